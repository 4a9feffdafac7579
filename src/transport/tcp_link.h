/*
 * tcp_link.h - one TCP connection to a peer as a message link: a send queue
 * that senders write through directly when it is empty, and the receive
 * stream that puts messages together again (stream.h).
 *
 * The TCP backend (tcp.c) has one per peer; the shm backend (shm.c) one
 * per peer on another host, when a job spans hosts.
 */
#ifndef TSR_TCP_LINK_H
#define TSR_TCP_LINK_H

#include "transport/stream.h"
#include "util/spin.h"

typedef struct tcp_link {
    int fd, node;     /* the socket (-1: closed, or no link) and the peer */
    _Atomic int used; /* it has had a socket (on demand, one never opens twice) */
    spin_t lock;      /* guards head/tail and writing to fd */
    am_msg *head, *tail;
    spin_t reading;   /* held by the one thread reading fd and rx */
    _Atomic int polled; /* threads waiting for a reply they may take (tcp.c) */
    rx_stream rx;
} tcp_link;

/* Takes over fd (made non-blocking) as the link to node. */
void tcp_link_init(tcp_link *l, int node, int fd);
/* On demand: takes over fd as the link that had none; the messages queued
 * meanwhile go first (tcp_link_flush). The comm thread. */
void tcp_link_open(tcp_link *l, int fd);
/* Closes the socket and frees the stream. */
void tcp_link_free(tcp_link *l);
/* Writes m, or as much as the socket takes and queues the rest (backend.h's
 * post); queues it all while the link has no socket yet. Returns 1 when
 * something waits: the comm thread must flush it (or connect first). */
int tcp_link_post(tcp_link *l, am_msg *m);
/* Writes what waits while the socket takes it. The comm thread. */
void tcp_link_flush(tcp_link *l);
/* 1 when something waits to be written. Read without the lock: a stale
 * answer costs the comm thread one more turn. */
int tcp_link_queued(const tcp_link *l);
/* Reads until the socket is empty, delivering every whole message.
 * Returns 0 at the peer's end of file (or a broken connection); 1 also
 * when a waiting thread reads the socket now (tcp_link_take). The serving
 * thread only (core_serving). */
int tcp_link_read(tcp_link *l);
/* For a thread waiting for a reply (backend.h's take_replies): delivers
 * the message at the front of the socket on the calling thread if
 * am_direct accepts it. 1 if delivered, 0 if nothing whole is there yet,
 * -1 if what is there is the serving thread's (another message, the end
 * of file, or a message the serving thread has begun to read).
 * Async-signal-safe. */
int tcp_link_take(tcp_link *l);
/* The comm thread, after poll(2) gave the socket `revents`: writes what
 * waits, reads what came; at the end of file tells the core and closes. */
void tcp_link_serve(tcp_link *l, short revents);

#endif
