/*
 * core.h - the transport core: what every backend (backend.h) relies on.
 *
 * transport_start() chooses the backend (TSR_TRANSPORT) and starts the
 * communication thread; transport_shutdown() runs the MSG_BYE handshake and
 * stops it. The rest is for the active-message layer (am.c) and the backends.
 */
#ifndef TSR_CORE_H
#define TSR_CORE_H

#include <poll.h>

#include "boot/boot.h"
#include "transport/transport.h"

/* How often, at most, a backend that waits on something other than poll(2)
 * must look at the core's descriptors (tsrun's news, strangers) and at its
 * peers' liveness. */
#define CORE_WATCH_MS 100
/* Entries of a poll set the core's descriptors take: tsrun's connection,
 * then the peer port's gate. */
#define CORE_POLLFDS (1 + GATE_POLLFDS(BOOT_GATE_CAP))

/* Chooses and starts the backend, then the comm thread. */
void transport_start(void);
/* tsr_init's last barrier is passed: every node has started, and a watched
 * peer's silence is bounded by TSR_HEARTBEAT from now on. */
void transport_started(void);
/* tsr_finalize's last barrier is passed. With connections on demand,
 * waits until every link this node wanted is open, its peer knowing it,
 * and returns 1: the caller then passes one more barrier, after which no
 * node has a link that a peer leaving does not know of, so every MSG_BYE
 * that a node waits for comes. 0 (nothing to do) otherwise. */
int transport_quiesce(void);
/* After tsr_finalize's last barrier: exchanges MSG_BYE with every peer, then
 * stops the comm thread and the backend. */
void transport_shutdown(void);
/* The backend's name, once started ("tcp", "shm"). */
const char *transport_name(void);

/* Memory this node shares with the other nodes of its host, for direct
 * page copies (TSR_FETCH=direct, memory/peers.c). transport_share_memory,
 * before transport_start, names this node's shared-memory files, which the
 * backend publishes where its host's nodes can read them if it shares
 * memory with them (shm). transport_peer_memory gives a peer's: 0 with its
 * pid and descriptors, 1 while it has not published them, -1 if it never
 * will (another host, another backend). */
void transport_share_memory(int data_fd, int meta_fd);
int transport_peer_memory(int node, int *pid, int fds[2]);
/* For a backend's start: the files transport_share_memory named, or -1. */
void core_shared_memory(int fds[2]);

/* For am.c: to a peer, to this node's comm thread, and the hybrid spin hint. */
void core_post(int dest, am_msg *m);
void core_post_unordered(int dest, am_msg *m);
int core_multicast(const int *dests, int n, const am_msg *m);
int core_multicast_native(void);
/* 1 on the thread that serves the links now: the comm thread, or an
 * application thread in am_poll (which must never wait for the links'
 * progress: it is what makes it). */
int core_serving(void);
void core_post_self(am_msg *m);
void core_expect_reply(void);

/* For wait.c: a thread that spins for a reply from `peer` takes it off
 * that peer's link itself where the backend can (backend.h, poll_begin).
 * begin returns 0 when it cannot; take returns how many replies it
 * delivered, or -1 when the link is the comm thread's again; end follows
 * a begin that returned 1. Async-signal-safe. */
int core_replies_begin(int peer);
int core_take_replies(int peer);
void core_replies_end(int peer);
/* The turns between a taking waiter's offers of its core (backend.h). */
unsigned core_take_yield(void);
/* For wait.c: a thread waits (spinning or asleep) between the two, so the
 * comm thread may poll without taking a core from computation (hybrid).
 * Async-signal-safe. */
void core_wait_begin(void);
void core_wait_end(void);

/* For backends. */
/* What a backend queued for `peer` because its link was full, and what
 * left that queue (written out): counted against TSR_SEND_QUEUE (sendq.c).
 * Async-signal-safe. */
void sendq_init(void);
void sendq_grew(int peer, size_t bytes);
void sendq_shrank(int peer, size_t bytes);
/* Bytes arrived from src: it is alive, even in the middle of a message too
 * long to arrive within TSR_HEARTBEAT. Comm thread only. */
void core_heard(int src);
/* For a backend that keeps the bootstrap's TCP mesh only to learn that a
 * peer's process has gone (udp, ucx): after poll(2) saw the peer's
 * connection readable, 1 if it ended (the caller then closes it), 0 if
 * nothing happened; a byte on it stops the node. Comm thread. */
int core_mesh_ended(int peer);
/* 1 once the peer's MSG_BYE has arrived. Comm thread. */
int core_peer_left(int peer);
/* The peer's link ended: expected after its MSG_BYE, otherwise it failed
 * (this node stops, naming it). Returns only in the first case. */
void core_link_closed(int peer);
/* On demand (tcp_dial.h): the link to peer has just opened, this node's
 * side or the peer's; the core says its MSG_BYE on it if this node is
 * already leaving. Comm thread. */
void core_link_opened(int peer);
/* A peer that does not answer (its heartbeats stopped, or a connection to
 * it on demand went unanswered) stops this node, naming it and `cause`,
 * which every linked peer is told too. Comm thread. */
void core_peer_hung(int peer, const char *cause) __attribute__((noreturn));
/* 1 when messages to this node itself wait (a sleeping backend must not). */
int core_pending(void);
/* Delivers the messages to this node itself; returns 1 if there were any.
 * progress() calls it after its wait and before it reads its links, so
 * that what this node sent itself before sleeping goes first (node 0's
 * barrier release of itself comes after the others', as before). */
int core_drain_self(void);
/* The comm thread's progress() brackets each wait that may sleep with
 * these: meanwhile an application thread may serve the links (am_poll). */
void core_sleep_begin(void);
void core_sleep_end(void);
/* Counts a message delivered, for the polling statistics (am_dispatch). */
void core_count_dispatch(void);
/* Counts a wake-up of a sleeping comm thread. Async-signal-safe. */
void core_count_wakeup(void);
/* Fills CORE_POLLFDS entries; after poll, serves them. */
void core_pollfds(struct pollfd *pfd);
void core_serve(const struct pollfd *pfd);
/* The comm thread's poll(2) over a backend's n descriptors, among them
 * the core's (CORE_POLLFDS at core_pfd, filled here) and the backend's
 * wake-up eventfd (at wake_pfd, or NULL): waits at most wait_ns nanoseconds (< 0:
 * until something happens; a sleep, bracketed by core_sleep_begin and
 * core_sleep_end, unless 0), serves the core's descriptors and drains the
 * eventfd. Returns what poll returned. */
int core_poll(struct pollfd *pfd, nfds_t n, struct pollfd *core_pfd,
              const struct pollfd *wake_pfd, int64_t wait_ns);

#endif
