/*
 * lrc.c - TreadMarks' homeless lazy release consistency (TSR_PROTO_LRC):
 * its protocol table, its allocations, and garbage collection (lrc.h
 * lists the files and what each does).
 *
 * Garbage collection, as TreadMarks does it: intervals, notices and diffs
 * pile up until the memory they take passes half of TSR_LRC_GC_BYTES on
 * some node. That node says so at its next barrier arrival, and the root
 * tells every node in the departure. Each node then brings every invalid
 * page up to date (asking the writers for their diffs, which they still
 * hold) and forgets every interval and notice the barrier covers. Its own
 * diffs are still wanted by nodes that have not finished; every node has
 * finished once it reaches the next barrier, where they are freed.
 */
#include <stdlib.h>

#include "coherence/lrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "util/log.h"

STATS_COUNTER(lrc_collections, "LRC: garbage collections at barriers");

/* The allocations (runs of pages) LRC keeps, for garbage collection. */
typedef struct run {
    uint32_t first, n;
} run;
static run *runs;
static uint32_t nruns, cap_runs;

/* Own diffs up to this interval are freed at the next barrier (0: none). */
static uint32_t collect_own;

static void map(uint32_t first, uint32_t n, const tsr_attr *attr)
{
    if (nruns == cap_runs) {
        cap_runs = cap_runs ? 2 * cap_runs : 16;
        if (!(runs = realloc(runs, cap_runs * sizeof *runs)))
            log_die("out of memory (LRC allocations)");
    }
    runs[nruns++] = (run){first, n};
    lrc_active = 1;
    lrc_forget(first, n);
    /* A fresh allocation is zero on every node: a valid copy everywhere. */
    detect_set_access(first, n, ACCESS_READ);
}

static void unmap(uint32_t first, uint32_t n)
{
    for (uint32_t i = 0; i < nruns; i++)
        if (runs[i].first == first) {
            runs[i] = runs[--nruns];
            break;
        }
    lrc_forget(first, n);
}

static void flush(uint32_t *sent) { lrc_close_interval(); }

static void barrier_done(void)
{
    if (collect_own) {
        lrc_diffs_collect(collect_own);
        collect_own = 0;
    }
    if (!lrc_gc_requested())
        return;
    for (uint32_t i = 0; i < nruns; i++)
        lrc_validate(runs[i].first, runs[i].n);
    lrc_interval_collect();
    collect_own = lrc_own_index();
    COUNTER_ADD(lrc_collections, 1);
}

static void init(void)
{
    stats_register(&lrc_collections);
    lrc_mem_init();
    lrc_interval_init();
    lrc_diff_init();
}

const tsr_protocol lrc_protocol = {
    .name = "lrc",
    .init = init,
    .map = map,
    .unmap = unmap,
    .fault = lrc_fault,
    .flush = flush,
    .barrier_done = barrier_done,
    .lock_request = lrc_lock_request,
    .lock_request_check = lrc_lock_request_check,
    .payload_check = lrc_payload_check,
    .lock_grant = lrc_lock_grant,
    .lock_handoff = lrc_lock_handoff,
    .lock_release = lrc_lock_release,
    .lock_merge = lrc_lock_merge,
    .lock_acquire = lrc_lock_acquire,
    .barrier_arrival = lrc_barrier_arrival,
    .barrier_merge = lrc_barrier_merge,
    .barrier_departure = lrc_barrier_departure,
    .barrier_apply = lrc_barrier_apply,
    .replicate_begin = lrc_replicate_begin,
    .replicate_end = lrc_replicate_end,
};
