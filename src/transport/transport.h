/*
 * transport.h - reliable active messages between the nodes of a job.
 *
 * A message (see msg.h) runs its type's handler on the receiver's
 * communication thread, in the order it was sent with respect to the other
 * messages from the same sender. Handlers must not block waiting for other
 * messages: they are the only thing that receives them.
 *
 * The protocol layers see only this header; the transport core (core.h)
 * and a backend (backend.h: TCP, or shared-memory rings) move the bytes.
 */
#ifndef TSR_TRANSPORT_H
#define TSR_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "transport/msg.h"

typedef struct tsr_msg_hdr {
    uint32_t len;  /* payload bytes after the header */
    uint16_t type; /* MSG_* */
    uint16_t src;  /* sending node */
    uint64_t arg[3];
    uint64_t stamp; /* the sender's clock at sending, or 0 (unsampled), for the
                     * holdup statistics only (transport/holdup.c) */
} tsr_msg_hdr;

/* A message in flight. Callers on the fault path build one on their stack
 * and pass it to am_post(); everyone else uses am_send(). */
typedef struct am_msg {
    struct am_msg *next;
    tsr_msg_hdr hdr;
    const void *payload;
    size_t sent;   /* bytes of header + payload already written */
    int heap;      /* 0: the caller owns it (am_post); 1: the transport frees it;
                    * -1: on am_send's stack, copied (am_detach) if it must queue */
} am_msg;

typedef void (*am_handler_fn)(int src, const tsr_msg_hdr *h, void *payload);

void am_register(int type, am_handler_fn fn);
/* Whether a handler will take message h without rejecting it (its own
 * checks, beyond the type's rule, that the header alone decides). Quiet:
 * it rejects nothing. */
typedef int (*am_accept_fn)(const tsr_msg_hdr *h);
/* The same as am_register for a reply (a type whose arg1 names a request,
 * msg.h) whose handler may run on the thread that waits for it, which then
 * takes it off the link itself (shm) rather than wait for the comm thread.
 * The handler must be async-signal-safe, touch only its request's context
 * and what that request asked for, and take without rejecting whatever
 * `accepts` said yes to (a rejection logs, which the fault path may not);
 * a reply it says no to goes to the comm thread. */
void am_register_direct(int type, am_handler_fn fn, am_accept_fn accepts);

/* Sends a message; the payload is copied if it cannot go out at once. May be
 * called from any thread, including handlers. dest may be this node. */
void am_send(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *payload,
             size_t len);

/* Like am_send, but the message may be delivered in any order with respect
 * to the sender's other messages (still exactly once): for protocols that
 * enforce their own order (Themis). A backend that delivers in order (tcp,
 * shm) sends it as am_send does, which is one of the orders allowed. */
void am_send_unordered(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                       const void *payload, size_t len);

/* Sends one message to each of the n nodes in dests (this node may be one
 * of them), reliably and in order with the sender's other messages to each.
 * A backend with multicast sends it once for all of them
 * (am_multicast_native); otherwise it is one am_send per node. */
void am_multicast(const int *dests, int n, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                  const void *payload, size_t len);
/* 1 when am_multicast reaches its nodes with one transmission. */
int am_multicast_native(void);

/* Sends a caller-owned message without allocating: m and its payload must
 * stay untouched until the reply to it arrives (a reply cannot arrive before
 * the request has been written out). dest may be this node: the message then
 * runs on this node's comm thread like any other, and is not counted as
 * sent. Async-signal-safe. */
void am_post(int dest, am_msg *m, int type, uint64_t a0, uint64_t a1, uint64_t a2,
             const void *payload, size_t len);

/* Waits until no send queue to a peer is over its bound (TSR_SEND_QUEUE):
 * back-pressure for the application thread, which calls it where it holds
 * no lock of the runtime (the start of each synchronization call; see
 * transport/sendq.c for who waits and who never does). */
void am_wait_room(void);

/* Serves, on the calling application thread, whatever waits on the links
 * while the comm thread sleeps: their handlers run here, one at a time as
 * on the comm thread. Returns at once when nothing waits or the comm thread
 * is awake (it serves them). For tsr_poll; not for handlers or the fault
 * path. */
void am_poll(void);

/* Lets a thread that is about to wait for a reply tell the progress engine
 * to poll rather than sleep (hybrid policy). Async-signal-safe. */
void am_expect_reply(void);

/* Names the application's view of shared memory. A payload there may lie
 * in a page that is invalid on this node: touching it faults into the
 * protocol, which sends messages of its own, so am_send copies such a
 * payload before the backend takes any lock (a fault under a per-peer send
 * lock would wait forever for that same lock). */
void am_guard_range(const void *base, size_t size);

/* Sends len bytes (at most MSG_BYTES_MAX) to dest, which returns them;
 * waits for them into reply. The transport's own round trip, for tests and
 * benchmarks. */
void am_echo(int dest, const void *buf, size_t len, void *reply);
/* Stops the whole job: every node, this one included, exits naming `cause`
 * (the MSG_ABORT path a node's failure takes). Callable from any thread. */
void am_abort(const char *cause) __attribute__((noreturn));

/* Registers the transport's own handlers (echo). */
void am_init(void);

/* For backends: runs the handler of a received message, if it keeps its
 * type's rule (am_check) and, as a reply, answers an outstanding request
 * (request.h); copies a stack message (heap == -1) that must be queued into
 * one the transport owns. */
am_msg *am_detach(am_msg *m);
void am_dispatch(int src, const tsr_msg_hdr *h, void *payload);
/* am_dispatch of a message whose header the backend has checked already
 * (am_check), as it must before it makes room for the payload: the check
 * is not made twice. */
void am_dispatch_checked(int src, const tsr_msg_hdr *h, void *payload);
/* am_dispatch of a reply that am_direct accepted, on the thread that holds
 * its link's reading end since that look: am_direct matched it to its
 * request, and nothing else can answer that request in between, so it is
 * not matched twice. */
void am_dispatch_direct(int src, const tsr_msg_hdr *h, void *payload);
/* am_dispatch for a message carried inside another (a multicast tree's):
 * its rule is checked and its handler run, and it is not counted as
 * received (its carrier was). */
void am_deliver(int src, const tsr_msg_hdr *h, void *payload);

/* 0 if header h, received from node src, keeps its type's rule (msg.h):
 * a known type, the sender it came from, the payload length and argument
 * ranges. Otherwise rejects it (am_reject) and returns -1. A backend calls
 * it before it allocates room for a payload. */
int am_check(int src, const tsr_msg_hdr *h);
/* 1 if the waiting thread may deliver h itself: a type registered with
 * am_register_direct that keeps its rule and answers an outstanding
 * request. Rejects nothing (the comm thread does). Async-signal-safe. */
int am_direct(int src, const tsr_msg_hdr *h);

/* Rejects a message from src: counts it (messages_rejected) and logs the
 * rule it broke (printf-style), at most a few lines a second. For handlers
 * whose own checks fail; the message must then change no state. */
void am_reject(int src, const tsr_msg_hdr *h, const char *rule, ...)
    __attribute__((format(printf, 3, 4)));

/* The region's page count, for the page rules of msg.h. */
void am_limit_pages(uint32_t pages);

#endif
