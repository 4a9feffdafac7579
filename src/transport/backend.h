/*
 * backend.h - what a transport backend provides to the transport core.
 *
 * The core (core.c) owns everything backends share: the communication
 * thread and its wait policy, messages to this node itself, the failure
 * relay (MSG_ABORT), the shutdown handshake (MSG_BYE), heartbeats, and the
 * watch over tsrun's connection and the stranger gate. A backend only moves
 * bytes between this node and its peers: it writes a message or queues it,
 * and, called by the comm thread, receives what arrived, tells the core that
 * the sender is alive (core_heard) and runs each whole message's handler
 * (am_dispatch).
 *
 * A stream backend (tcp.c, shm.c) may cut a message anywhere and uses
 * stream.h to put it together again. A datagram backend fits the same
 * table: its progress() runs its own acknowledgements and retransmissions,
 * and delivers per sender in order. A backend with a service class
 * without ordering (udp) fills post_unordered; the others leave it NULL and
 * their ordered post serves am_send_unordered too.
 */
#ifndef TSR_BACKEND_H
#define TSR_BACKEND_H

#include "transport/rma.h"
#include "transport/transport.h"

typedef struct tsr_backend {
    const char *name;
    /* Sets up the links to every peer (the bootstrap is done). Exits naming
     * the cause if it cannot. Runs before the comm thread starts. */
    void (*start)(void);
    /* Writes m to dest (dest != this node) or queues it; never blocks on
     * the peer. Any thread, including the fault path: async-signal-safe when
     * m->heap != -1 (am_post's messages). A message with heap == -1 that
     * must wait is copied with am_detach(). */
    void (*post)(int dest, am_msg *m);
    /* The same for am_send_unordered: exactly once, in any order with the
     * sender's other messages. NULL: post. */
    void (*post_unordered)(int dest, am_msg *m);
    /* Sends a copy of m (which stays the caller's) to every node of dests
     * but this one with one transmission, in order with what this node
     * posted to each; returns 0, having sent nothing, when it cannot now
     * (am_multicast then posts to each). NULL: never. Not on the fault path. */
    int (*multicast)(const int *dests, int n, const am_msg *m);
    /* 1 when multicast can succeed at all. NULL: 0. */
    int (*multicast_native)(void);
    /* Comm thread only: waits at most timeout_ms (0: not at all) for
     * something to do (a wait that may sleep between core_sleep_begin and
     * core_sleep_end), then delivers this node's own messages
     * (core_drain_self), flushes what waits to be written, and receives and
     * delivers what arrived. Serves the core's descriptors (core_pollfds)
     * at least every CORE_WATCH_MS. Returns 0 when nothing happened. */
    int (*progress)(int timeout_ms);
    /* Makes a waiting progress() return. Any thread; async-signal-safe. */
    void (*wake)(void);
    /* 1 when nothing waits to be written (the comm thread may stop). */
    int (*idle)(void);
    /* After the comm thread ended: releases the links. */
    void (*stop)(void);
    /* Optional (NULL: the comm thread receives everything). Lets a thread
     * that spins for a reply from `peer` take it off that peer's link
     * itself. poll_begin(peer) returns 0 if the link is not one it can
     * read (the comm thread then receives the reply); otherwise it and
     * poll_end(peer) bracket the spin: meanwhile the peer need not wake
     * this node's comm thread, and take_replies(peer) delivers the reply
     * at the front of the link if am_direct() accepts it, returning how
     * many it delivered, and wakes the comm thread for anything else it
     * finds (or returns -1, having handed the link back to the comm thread,
     * when what waits at its front is not a reply it may take: the waiter
     * then leaves its reply to the comm thread). Any thread,
     * async-signal-safe; poll_end wakes the comm thread if something it
     * left behind waits. */
    int (*poll_begin)(int peer);
    void (*poll_end)(int peer);
    int (*take_replies)(int peer);
    /* With take_replies: the turns a waiter spins between offers of its
     * core (wait.c), which depend on what a look costs. */
    unsigned take_yield;
    /* Optional (NULL: am_poll does nothing). For am_poll, on an application
     * thread that holds the serve lock while the comm thread sleeps:
     * arrived() says at little cost whether anything waits on the links;
     * receive() reads and delivers what did, without waiting, and leaves a
     * link's end to the comm thread. */
    int (*arrived)(void);
    void (*receive)(void);
    /* Optional (NULL: no peer's memory is this node's too): the pid and
     * shared-memory descriptors a peer on this host published at its start
     * (core_shared_memory), as transport_peer_memory says. Any thread. */
    int (*peer_memory)(int node, int *pid, int fds[2]);
    /* Optional (NULL: no one-sided access, rma.h): what this node may do
     * with node's exposed segments, RMA_NO_ACCESS, RMA_READABLE or
     * RMA_WRITABLE (any thread, async-signal-safe), and runs
     * batch b at node, ending its waiter when done (any thread,
     * async-signal-safe: a thread that cannot call the fabric queues it). */
    int (*rma_ready)(int node);
    void (*rma)(int node, rma_batch *b);
    /* Optional (NULL: every peer is linked from the start). Whether this
     * node has a link to peer, open or wanted (a message queued for it):
     * the peers the MSG_BYE handshake and a failure's relay go to, so
     * that they open no link of their own. Any thread. */
    int (*linked)(int peer);
    /* With linked: 1 while a link this node wanted has not yet opened. */
    int (*connecting)(void);
} tsr_backend;

extern const tsr_backend tcp_backend;
extern const tsr_backend shm_backend;
extern const tsr_backend udp_backend;
#ifdef TSR_HAVE_UCX
extern const tsr_backend ucx_backend;
#endif

#endif
