/* A collection's validation must not bring on the next collection
 * (TSR_PROTO_LRC under TSR_LRC_GC_BYTES=128K, set before tsr_init).
 * As in SOR's red and black sweeps, each node rewrites half the words of
 * every page of its band of BAND pages between barriers, alternating the
 * even and the odd ones, and reads the other half of the next node's first
 * page (what that node wrote before the last barrier). Diffs are made
 * lazily, for that page alone, so memory grows slowly, and a collection
 * comes about every 25 barriers. Each collection brings every invalid
 * page up to date, so the writers' diffs of their whole bands are made
 * then, about half the bound. Made as each validating node asked, such a
 * diff could also hold an interval its writer had closed since (the twin
 * kept across intervals); the collection then neither counted it as its
 * own nor freed it, it brought on the next collection, and so on: in one
 * run in three, 20 collections in 60 barriers. The values read are
 * checked too. */
/* tsr-test: lrc -n 2 */
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"
#include "test_env.h"

#define BAND 16   /* pages: 64 KiB of diffs at a collection, half the bound */
#define ROUNDS 30 /* of two barriers each */
#define PER_PAGE (4096 / sizeof(long))
/* 2 or 3 here; 20 or more in the runs that went wrong. */
#define MAX_COLLECTIONS 6

int main(int argc, char **argv)
{
    test_setenv("TSR_LRC_GC_BYTES", "128K");
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.proto = TSR_PROTO_LRC;
    long *band = tsr_alloc_attr((size_t)n * BAND * 4096, &attr);
    long *mine = band + (size_t)me * BAND * PER_PAGE;
    const long *next = band + (size_t)((me + 1) % n) * BAND * PER_PAGE;
    for (long r = 1; r <= ROUNDS; r++)
        for (int half = 0; half < 2; half++) {
            for (size_t k = (size_t)half; k < BAND * PER_PAGE; k += 2)
                mine[k] = r * 100000 + (long)k;
            for (size_t k = (size_t)!half; r > 1 - half && k < PER_PAGE; k += 2)
                bad += next[k] != (r - !half) * 100000 + (long)k;
            tsr_barrier();
        }
    uint64_t collections = 0;
    tsr_counter_get("lrc_collections", &collections);
    int storm = collections > MAX_COLLECTIONS;
    printf("node %d: %d barriers after rewriting %d pages, %llu collections (at most %d)%s: "
           "%s\n", me, 2 * ROUNDS, BAND, (unsigned long long)collections, MAX_COLLECTIONS,
           bad ? ", wrong values read" : "", bad || storm ? "FAIL" : "PASS");
    tsr_finalize();
    return bad || storm;
}
