/*
 * stats.h - per-node protocol counters. One list (STATS_COUNTERS) defines the
 * public tsr_stats fields, the counters every protocol shares, and their rows
 * in the TSR_STATS table and keys in the TSR_STATS_JSON objects; adding a
 * counter there adds it everywhere. A counter only one protocol has is a
 * named counter instead (stats_counter, counter.c), registered at that
 * protocol's init.
 *
 * The shared counters are bumped from the application threads, the fault
 * handler and the communication thread, several times a message. Each
 * thread counts into a block of its own, with a plain load and store
 * (relaxed atomics, for the thread that reads them all): the four locked
 * adds a message cost on one shared line took 13% of a 64-byte AM round
 * trip over shm (tsr_micro: 0.318 against 0.275 us). A reader sums the
 * blocks. The named counters are rarer, and stay locked adds on one word
 * each.
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
    X(read_faults, "read-fault actions (faults and range checks)")  \
    X(write_faults, "write-fault actions (faults and checks)")      \
    X(page_fetches, "pages fetched from their home")                \
    X(twins, "twins made")                                          \
    X(diffs_created, "diffs made")                                  \
    X(diffs_applied, "diffs applied at this home")                  \
    X(diff_bytes, "diff bytes made")                                \
    X(invalidations, "cached pages invalidated")                    \
    X(lock_acquires, "lock acquires")                               \
    X(remote_lock_acquires, "lock acquires needing a message")      \
    X(barriers, "barriers")

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
    _Atomic uint64_t posted; /* messages the transport has (stats_posted) */
} tsr_counters;

/* Blocks for this many threads; those past them share one more, by locked
 * adds. */
#define STATS_BLOCKS 63

typedef struct stats_own {
    tsr_counters *block;
    int shared; /* the block is the one the threads past STATS_BLOCKS share */
} stats_own;

extern __thread stats_own stats_mine;

/* Gives the calling thread its block (async-signal-safe: the first count
 * of a thread may be its fault handler's). */
void stats_claim(void);

/* A thread's fault handler counts into the thread's own block, and may run
 * between a load and a store here if the compiler put an access to shared
 * memory there: its count would then be lost. It runs only at such an
 * access, and the signal fences (no instruction, an order for the
 * compiler alone) keep every access out of the pair. */
static inline void stats_add(_Atomic uint64_t *c, uint64_t n)
{
    if (stats_mine.shared) {
        atomic_fetch_add_explicit(c, n, memory_order_relaxed);
        return;
    }
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                          memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
}

#define STAT_ADD(field, n)                                      \
    do {                                                        \
        if (!stats_mine.block)                                  \
            stats_claim();                                      \
        stats_add(&stats_mine.block->field, (uint64_t)(n));     \
    } while (0)
#define STAT_TIME(field, seconds) STAT_ADD(field##_ns, (seconds) * 1e9)

/* A named counter. A protocol defines it statically and registers it once,
 * at its init (before tsr_init resets the counters). */
typedef struct stats_counter {
    const char *name; /* its tsr_counter_get name, table row and JSON key */
    const char *text; /* its meaning, in the table */
    _Atomic uint64_t value;
} stats_counter;

/* Defines a named counter whose name is that of the variable. */
#define STATS_COUNTER(var, meaning) static stats_counter var = {.name = #var, .text = meaning}

/* Dies, naming the counter, if the name is taken or the table is full. */
void stats_register(stats_counter *c);
/* The i-th registered counter, in registration order; NULL past the end. */
const stats_counter *stats_counter_at(int i);
void stats_counters_reset(void);

#define COUNTER_ADD(c, n) atomic_fetch_add_explicit(&(c).value, (uint64_t)(n), memory_order_relaxed)

/* Messages this node's threads have handed to the transport, counted
 * after messages_sent (which a message's receipt must never precede): a
 * test that sees it grow knows its message is on its way. Not reset, and
 * in no report. */
uint64_t stats_posted(void);

/* Visits every counter of this node: the waits first (in nanoseconds,
 * `ns` set), then the shared counters, then the named ones. */
typedef void stats_visit(const char *name, uint64_t value, int ns, void *ctx);
void stats_each(stats_visit *fn, void *ctx);

/* At tsr_finalize, after its barrier: every message of the job has been
 * received then, so the nodes' counters balance. Prints this node's table
 * if TSR_STATS asks for one and `table` is set (no tsrun gathers the job's
 * table), and appends the JSON line (TSR_STATS_JSON); returns -1, having
 * printed the cause, if the JSON line could not be written. */
int stats_report(int table);

#endif
