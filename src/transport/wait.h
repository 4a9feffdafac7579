/*
 * wait.h - how a thread waits for the communication thread: spin for a short
 * while (a wake-up across cores costs ~20 us here, a spin costs nothing when
 * the reply is already on its way), then sleep on a futex.
 *
 * Only atomics and the futex system call: usable from the SIGSEGV handler.
 */
#ifndef TSR_WAIT_H
#define TSR_WAIT_H

#include <stdatomic.h>
#include <stdint.h>

/* The bit of `pending` that says the waiting thread is on (or going to)
 * its futex. In the same word as the count, so that the reply that ends
 * the wait learns it from its own decrement and touches the waiter no
 * more: the waiter may be gone the moment the count reaches zero. */
#define WAITER_SLEEPS 0x80000000u

/* How many turns a spinning thread lets pass between offers of its core
 * (sched_yield): often when what it waits for needs this node's comm
 * thread, which may share the core; seldom when the work is on the peer's
 * core (wait.c gives the measurements). The comm thread, when idle,
 * offers its core as often while a thread takes it, and as seldom while
 * none does (core.c, offer_core). */
#define WAIT_YIELD_FOR_COMM 8
#define WAIT_YIELD_FOR_PEER 64

typedef struct waiter {
    _Atomic uint32_t pending; /* replies still expected, and WAITER_SLEEPS */
    int reply_from;           /* waiter_init_taken's peer, or -1 */
} waiter;

static inline void waiter_init(waiter *w, uint32_t count)
{
    atomic_store(&w->pending, count);
    w->reply_from = -1;
}
/* A waiter for one reply from `peer`, of a type registered with
 * am_register_direct: while it spins, it takes the reply off that peer's
 * link itself where the backend lets it (shm, a peer on this host; tcp), and
 * the comm thread is not asked to poll. Any other waiter leaves its
 * replies to the comm thread, which polls for them (hybrid): that thread
 * has their handlers to run anyway. */
static inline void waiter_init_taken(waiter *w, int peer)
{
    waiter_init(w, 1);
    w->reply_from = peer;
}
/* Counts one reply; at zero wakes the waiting thread if it sleeps (one
 * that spins, or that took the reply off the ring itself, costs no system
 * call). */
void waiter_done(waiter *w);
/* Returns when pending reaches zero. */
void waiter_wait(waiter *w);
/* The same, giving up at `deadline` (now_s() clock): 0 done, -1 not yet. */
int waiter_wait_until(waiter *w, double deadline);

#endif
