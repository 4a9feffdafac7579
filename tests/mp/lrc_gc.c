/* Garbage collection of the lazy protocol (TSR_PROTO_LRC): across 10,000
 * lock hand-offs, each writing the shared counter's page, with a barrier
 * every 250 of them, the memory for intervals, notices and diffs stays
 * under TSR_LRC_GC_BYTES (256K here, set before tsr_init) on every node,
 * although they would take several times that uncollected; the collections
 * happen, and the counter comes out exact. */
/* tsr-test: lrc -n 2 */
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

#define HANDOFFS 10000
#define PER_BARRIER 250
#define BOUND (256 << 10)

int main(int argc, char **argv)
{
    setenv("TSR_LRC_GC_BYTES", "256K", 1);
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.proto = TSR_PROTO_LRC;
    volatile long *count = tsr_alloc_attr(sizeof *count, &attr);
    for (int i = 0; i < HANDOFFS / n; i++) {
        tsr_lock(0);
        ++*count;
        tsr_unlock(0);
        if ((i + 1) % (PER_BARRIER / n) == 0)
            tsr_barrier();
    }
    tsr_barrier();
    uint64_t peak = 0, collections = 0;
    tsr_counter_get("lrc_peak_bytes", &peak);
    tsr_counter_get("lrc_collections", &collections);
    if (*count != HANDOFFS / n * n) {
        printf("node %d: count %ld, want %d\n", me, *count, HANDOFFS / n * n);
        bad++;
    }
    if (peak == 0 || peak >= BOUND) {
        printf("node %d: peak LRC memory %llu bytes, bound %d\n", me, (unsigned long long)peak, BOUND);
        bad++;
    }
    if (collections == 0) {
        printf("node %d: no garbage collection\n", me);
        bad++;
    }
    printf("node %d: lrc_gc: peak %llu bytes, %llu collections: %s\n", me,
           (unsigned long long)peak, (unsigned long long)collections, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
