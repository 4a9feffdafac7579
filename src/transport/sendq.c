/*
 * sendq.c - the bound on what waits to be sent to each peer (TSR_SEND_QUEUE).
 *
 * A backend writes a message at once when it can, and queues it when the
 * link is full; it counts what it queues and what leaves the queue here.
 * Who waits for room when a queue is over its bound:
 *
 * - The application thread, at the start of each synchronization call
 *   (tsr_lock, tsr_unlock, a barrier), where it holds no lock of the
 *   runtime: am_wait_room(). Waiting inside am_send could hold a lock that
 *   the comm thread needs to go on reading (lock.c's node_mutex, for
 *   instance), and two nodes doing so toward each other would wait forever.
 * - Never the comm thread: it is what reads every peer, so it must not
 *   wait on any of them. What it sends answers what it read.
 * - Never the fault path: it posts one caller-owned message (am_post) and
 *   waits for its reply, which bounds what it can queue.
 *
 * So a queue exceeds its bound by at most what one synchronization call
 * sends (its releases, arrivals and Munin's unacknowledged updates) and
 * what the comm thread answers meanwhile; send_queue_peak shows the most
 * bytes queued to one peer, send_queue_waits how often a caller waited.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "stats/stats.h"
#include "transport/core.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(send_queue_peak, "most bytes queued to one peer at once");
STATS_COUNTER(send_queue_waits, "synchronization calls that waited for a send queue to drain");

static _Atomic size_t *queued; /* bytes queued to each peer */

void sendq_init(void)
{
    queued = calloc((size_t)cfg.nodes, sizeof *queued);
    if (!queued)
        log_die("cannot set up the send queues: out of memory");
    stats_register(&send_queue_peak);
    stats_register(&send_queue_waits);
}

/* Async-signal-safe: a fault handler's message may be queued. */
void sendq_grew(int peer, size_t bytes)
{
    uint64_t now = atomic_fetch_add(&queued[peer], bytes) + bytes;
    uint64_t peak = atomic_load(&send_queue_peak.value);
    while (now > peak && !atomic_compare_exchange_weak(&send_queue_peak.value, &peak, now))
        ;
}

void sendq_shrank(int peer, size_t bytes) { atomic_fetch_sub(&queued[peer], bytes); }

static int over(int peer) { return atomic_load(&queued[peer]) > cfg.send_queue; }

void am_wait_room(void)
{
    const struct timespec pause = {0, 100 * 1000};
    int waited = 0;
    for (int j = 0; j < cfg.nodes; j++)
        while (over(j)) {
            waited = 1;
            nanosleep(&pause, NULL); /* woken early by a signal: looks again */
        }
    if (waited)
        COUNTER_ADD(send_queue_waits, 1);
}
