/*
 * stats.h - per-node protocol counters. One list (STATS_COUNTERS) defines the
 * public tsr_stats fields, the TSR_STATS table and the TSR_STATS_JSON keys.
 * Counters are relaxed atomics: they are bumped from the application thread,
 * the fault handler and the communication thread.
 */
#ifndef TSR_STATS_H
#define TSR_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "tessera.h"

#define STATS_COUNTERS(X)                                           \
    X(messages_sent, "messages sent")                               \
    X(bytes_sent, "bytes sent (headers included)")                  \
    X(messages_received, "messages received")                       \
    X(bytes_received, "bytes received")                             \
    X(read_faults, "read faults")                                   \
    X(write_faults, "write faults")                                 \
    X(page_fetches, "pages fetched from their home")                \
    X(twins, "twins made")                                          \
    X(diffs_created, "diffs made")                                  \
    X(diffs_applied, "diffs applied at this home")                  \
    X(diff_bytes, "diff bytes made")                                \
    X(invalidations, "cached pages invalidated")                    \
    X(write_notices, "write notices made for new versions")         \
    X(release_pages, "pages examined at releases")                  \
    X(lock_acquires, "lock acquires")                               \
    X(remote_lock_acquires, "lock acquires needing a message")      \
    X(barriers, "barriers")                                         \
    X(updates_sent, "Munin update messages sent")                   \
    X(updates_applied, "Munin update messages applied here")        \
    X(reductions, "Munin Fetch_and_Phi operations performed here")

#define STATS_TIMES(X)                                  \
    X(barrier_wait_s, "seconds waiting in barriers")    \
    X(lock_wait_s, "seconds waiting for locks")         \
    X(fault_wait_s, "seconds waiting for page fetches")

typedef struct tsr_counters {
#define STATS_FIELD(name, text) _Atomic uint64_t name;
    STATS_COUNTERS(STATS_FIELD)
#undef STATS_FIELD
#define STATS_TIME_FIELD(name, text) _Atomic uint64_t name##_ns;
    STATS_TIMES(STATS_TIME_FIELD)
#undef STATS_TIME_FIELD
} tsr_counters;

extern tsr_counters stats;

#define STAT_ADD(field, n) atomic_fetch_add_explicit(&stats.field, (uint64_t)(n), memory_order_relaxed)
#define STAT_TIME(field, seconds) STAT_ADD(field##_ns, (seconds) * 1e9)

/* At tsr_finalize, after its barrier: every message of the job has been
 * received then, so the nodes' counters balance. Prints the table
 * (TSR_STATS=1) and appends the JSON line (TSR_STATS_JSON); returns -1,
 * having printed the cause, if the JSON line could not be written. */
int stats_report(void);

#endif
