/* Garbage collection of the lazy protocol (TSR_PROTO_LRC) across 10,000
 * lock hand-offs, each writing the shared counter's page, under
 * TSR_LRC_GC_BYTES=256K (set before tsr_init). Uncollected, intervals,
 * notices and diffs would take over 1 MiB on a node; the counter comes out
 * exact either way.
 *   barriers      a barrier every 250 hand-offs, where TreadMarks
 *                 collects: the memory stays under the bound.
 *   (no argument) no barrier in the loop: the collections are rounds
 *                 joined at lock operations (lrc_gc.c), and every one of
 *                 them is a round. The memory stays under the bound too:
 *                 a node past half of it waits for the round it asked
 *                 for, however late node 0's comm thread takes the
 *                 request (on an oversubscribed machine, 100 ms of
 *                 hand-offs were seen). */
/* tsr-test: lrc -n 2,3,4 */
/* tsr-test: lrc -n 2 barriers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

#define HANDOFFS 10000
#define PER_BARRIER 250
#define BOUND (256 << 10)

int main(int argc, char **argv)
{
    setenv("TSR_LRC_GC_BYTES", "256K", 1);
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    int barriers = argc > 1 && !strcmp(argv[1], "barriers");
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.proto = TSR_PROTO_LRC;
    volatile long *count = tsr_alloc_attr(sizeof *count, &attr);
    for (int i = 0; i < HANDOFFS / n; i++) {
        tsr_lock(0);
        ++*count;
        tsr_unlock(0);
        if (barriers && (i + 1) % (PER_BARRIER / n) == 0)
            tsr_barrier();
    }
    uint64_t peak = 0, collections = 0, rounds = 0;
    tsr_counter_get("lrc_peak_bytes", &peak);
    tsr_counter_get("lrc_collections", &collections);
    tsr_counter_get("lrc_gc_rounds", &rounds);
    tsr_barrier();
    if (*count != HANDOFFS / n * n) {
        printf("node %d: count %ld, want %d\n", me, *count, HANDOFFS / n * n);
        bad++;
    }
    if (peak == 0 || peak >= BOUND) {
        printf("node %d: peak LRC memory %llu bytes, held under %d\n", me,
               (unsigned long long)peak, BOUND);
        bad++;
    }
    if (n > 1 && (collections == 0 || (!barriers && rounds != collections))) {
        printf("node %d: %llu collections, %llu of them in rounds\n", me,
               (unsigned long long)collections, (unsigned long long)rounds);
        bad++;
    }
    printf("node %d: lrc_gc%s: peak %llu bytes, %llu collections (%llu rounds): %s\n", me,
           barriers ? " barriers" : "", (unsigned long long)peak, (unsigned long long)collections,
           (unsigned long long)rounds, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
