/*
 * tcp_dial.h - a connection to a peer opened when this node first sends to
 * it (TSR_CONNECT=demand): the connect, the hello with the job secret and
 * the peer's acknowledgement, each a step the comm thread takes when
 * poll(2) says it can, so that a slow or crowded peer never stops it.
 *
 * The peer's gate judges the hello as at start-up (boot.c). A refusal
 * (its gate full, or its own connection to this node crossing this one,
 * which the lower-numbered node's wins: tcp.c) closes the attempt, and
 * the next follows after a pause, until TSR_CONNECT_TIMEOUT from the
 * first: then the node stops, naming the peer, as when the mesh could not
 * be built at start-up.
 */
#ifndef TSR_TCP_DIAL_H
#define TSR_TCP_DIAL_H

#include <poll.h>
#include <stddef.h>

#include "boot/boot_proto.h"

typedef struct tcp_dial {
    int active;      /* a connection is wanted and not yet there */
    int fd;          /* this attempt's socket; -1 while pausing between two */
    int hello_sent;  /* connected, the hello written: the answer is awaited */
    int orphan;      /* the peer's connection was taken: this one ends at its hello */
    int err;         /* why the last attempt failed (errno), for the message */
    double deadline; /* TSR_CONNECT_TIMEOUT after the first attempt */
    double retry_at; /* fd < 0: when the next attempt starts */
    size_t have;     /* bytes of the acknowledgement read */
    boot_note ack;
} tcp_dial;

/* Starts connecting to peer (boot.ep's endpoint). */
void tcp_dial_start(tcp_dial *d, int peer);
/* The attempt's poll entry: writable once connected, readable once
 * answered; fd -1 while pausing. */
struct pollfd tcp_dial_pollfd(const tcp_dial *d);
/* Milliseconds until the dial must be stepped without any event (its next
 * attempt, its deadline). */
int tcp_dial_timeout_ms(const tcp_dial *d);
/* After poll(2) gave the attempt's entry `revents` (0 if none): takes the
 * next step. Returns the connected socket, the peer having acknowledged
 * (the dial is then over), or -1. At the deadline the node stops, naming
 * the peer. */
int tcp_dial_step(tcp_dial *d, int peer, short revents);
/* Ends the dial now (its socket closed, if any). */
void tcp_dial_drop(tcp_dial *d);
/* The peer's own connection was taken instead: a socket already connected
 * or connecting says its hello before it closes, so that the peer's gate,
 * which closes it then (tcp.c), sees a node of the job and not a stranger
 * that left without a word; one between attempts ends now. */
void tcp_dial_orphan(tcp_dial *d);

#endif
