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
 *
 * A program that reaches no barrier gets the same collection in a round
 * (lrc_gc.c): an exchange like a barrier's, which the runtime holds at the
 * points where each node synchronizes holding no lock.
 */
#include "coherence/lrc/lrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "stats/stats.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(lrc_collections, "LRC: garbage collections, at barriers or in rounds");

static void map(uint32_t first, uint32_t n, const tsr_attr *attr)
{
    lrc_active = 1;
    lrc_forget(first, n);
    /* A fresh allocation is zero on every node: a valid copy everywhere. */
    detect_set_access(first, n, ACCESS_READ);
}

static void unmap(uint32_t first, uint32_t n) { lrc_forget(first, n); }

static void flush(uint32_t *sent) { lrc_close_interval(); }

void lrc_collect(int others_later)
{
    lrc_diffs_free_retired(); /* every node joins a round only after finishing the last */
    lrc_diffs_make_all();
    lrc_validate_all();
    lrc_interval_collect();
    lrc_diffs_retire(others_later ? 0 : lrc_own_index());
    lrc_rounds_collected();
    COUNTER_ADD(lrc_collections, 1);
}

/* The diffs a collection keeps for the nodes still validating are made
 * by those very validations (lazily, as each asks), and the next barrier
 * or round frees them. Counted when deciding to ask, they would ask for
 * another collection, whose validations make as many again: a program
 * whose pages are all rewritten between barriers, and that reads few of
 * another node's (SOR, full inputs), collected at every barrier and
 * fetched every page it does not read each time (5.6 million diff
 * requests where 50 thousand do). */
size_t lrc_gc_held(void)
{
    size_t bytes = lrc_bytes(), retiring = lrc_diffs_retiring();
    return retiring < bytes ? bytes - retiring : 0;
}

int lrc_gc_due(void) { return lrc_gc_held() > cfg.lrc_gc_bytes / 2; }

static void barrier_done(void)
{
    lrc_diffs_free_retired();
    if (lrc_gc_requested())
        lrc_collect(0);
}

static void init(void)
{
    stats_register(&lrc_collections);
    lrc_mem_init();
    lrc_interval_init();
    lrc_diff_init();
    lrc_page_init();
    lrc_rounds_init();
}

/* Memory a node allocates alone gives no other node a map call: locks and
 * barriers carry LRC's payloads from now on. */
static void prepare_local(void) { lrc_active = 1; }

const tsr_protocol lrc_protocol = {
    .name = "lrc",
    .init = init,
    .map = map,
    .unmap = unmap,
    .prepare_local = prepare_local,
    .fault = lrc_fault,
    .flush = flush,
    .sync_point = lrc_sync_point,
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
    .barrier_held = lrc_round_barrier_held,
    .barrier_eager = lrc_round_heard,
    .barrier_apply = lrc_barrier_apply,
    .replicate_begin = lrc_replicate_begin,
    .replicate_end = lrc_replicate_end,
};
