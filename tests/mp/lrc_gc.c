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
 *                 a node past a third of it waits for the round it asked
 *                 for, however late node 0's comm thread takes the
 *                 request (on an oversubscribed machine, 100 ms of
 *                 hand-offs were seen). Asking at half, a node that had
 *                 not yet asked could take a grant carrying the other
 *                 node's half and pass the bound: one run in ten with
 *                 two such jobs at once on two cores.
 *   absent        node 0 takes no hand-off and waits in the final
 *                 barrier while the others take them all. Until it
 *                 leaves, the others must keep every diff it will ask
 *                 for, so the bound cannot hold and is not checked; a
 *                 round frees none of them, and must not bring on the
 *                 next: once, each round asked for the next at once,
 *                 2,500 of them (a node of a CI run stopped early).
 *                 Rounds come about every third of the bound of new
 *                 memory. */
/* tsr-test: lrc -n 2,3,4 */
/* tsr-test: lrc -n 2 barriers */
/* tsr-test: lrc -n 3 absent */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "test_env.h"

#define HANDOFFS 10000
#define PER_BARRIER 250
#define BOUND (256 << 10)
#define ABSENT_ROUNDS 40 /* 9 to 19 at 2 to 4 nodes */

/* One hand-off, unless the counter is full already; says which. */
static int count_one(volatile long *count)
{
    tsr_lock(0);
    int more = *count < HANDOFFS;
    *count += more;
    tsr_unlock(0);
    return more;
}

int main(int argc, char **argv)
{
    test_setenv("TSR_LRC_GC_BYTES", "256K");
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    const char *mode = argc > 1 ? argv[1] : "";
    int barriers = !strcmp(mode, "barriers"), absent = !strcmp(mode, "absent");
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.proto = TSR_PROTO_LRC;
    volatile long *count = tsr_alloc_attr(sizeof *count, &attr);
    long want = absent ? HANDOFFS : HANDOFFS / n * n;
    if (absent)
        while (me > 0 && count_one(count))
            ;
    else
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
    if (*count != want) {
        printf("node %d: count %ld, want %ld\n", me, *count, want);
        bad++;
    }
    if (peak == 0 || (!absent && peak >= BOUND)) {
        printf("node %d: peak LRC memory %llu bytes, held under %d\n", me,
               (unsigned long long)peak, BOUND);
        bad++;
    }
    int took_part = n > 1 && !(absent && me == 0);
    if (took_part && (collections == 0 || (!barriers && rounds != collections) ||
                      (absent && rounds > ABSENT_ROUNDS))) {
        printf("node %d: %llu collections, %llu of them in rounds (at most %d when absent)\n",
               me, (unsigned long long)collections, (unsigned long long)rounds, ABSENT_ROUNDS);
        bad++;
    }
    printf("node %d: lrc_gc %s: peak %llu bytes, %llu collections (%llu rounds): %s\n", me,
           mode, (unsigned long long)peak, (unsigned long long)collections,
           (unsigned long long)rounds, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
