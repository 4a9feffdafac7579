/*
 * gate.h - connections that have not yet shown the job secret.
 *
 * tsrun's registration port and every node's peer port accept through a
 * gate. A newcomer is accepted without blocking and gets GATE_WAIT_S
 * seconds to send its whole hello (a boot_hello); the owner's judge then
 * takes it or names why not, and a refusal is logged with a rate limit.
 * Nothing a stranger does (connect and stay silent, send one byte, open
 * many connections) blocks the owner's loop: the gate lives in that loop's
 * poll set and only ever reads what is already there.
 */
#ifndef TSR_GATE_H
#define TSR_GATE_H

#include <poll.h>
#include <stddef.h>

#include "boot/boot_proto.h"
#include "util/log.h"

#define GATE_WAIT_S 1.0
/* Entries a gate of `cap` slots takes in a poll set: the listener, then one
 * per slot (-1 when free). */
#define GATE_POLLFDS(cap) (1 + (cap))

/* Decides on a whole hello. Returns NULL when it takes the connection (the
 * judge now owns fd), or why it is refused (the gate closes fd). */
typedef const char *gate_judge(const boot_hello *h, int fd, void *ctx);

typedef struct gate_conn {
    int fd;          /* -1: the slot is free */
    double deadline; /* now_s() by which the hello must be whole */
    size_t have;     /* bytes of the hello received so far */
    boot_hello hello;
} gate_conn;

typedef struct gate {
    int listen_fd;   /* non-blocking listener, or -1 */
    int cap, waiting;
    gate_conn *slot;
    gate_judge *judge;
    void *ctx;
    log_rate refusals;
} gate;

/* Sets up a gate of `cap` slots on listen_fd (made non-blocking); exits
 * naming the cause if memory is short. */
void gate_open(gate *g, int listen_fd, int cap, gate_judge *judge, void *ctx);
/* Closes the listener and every waiting connection. */
void gate_close(gate *g);
/* Writes the gate's GATE_POLLFDS(cap) entries of a poll set. */
void gate_pollfds(const gate *g, struct pollfd *pfd);
/* Milliseconds until the gate has something to do without any event (a
 * deadline, a held-back log line), or -1. */
int gate_timeout_ms(gate *g);
/* After poll: accepts newcomers, reads what waiting ones sent, judges whole
 * hellos and refuses the late. pfd is what gate_pollfds filled. */
void gate_serve(gate *g, const struct pollfd *pfd);

#endif
