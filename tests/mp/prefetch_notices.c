/* Prefetch at a barrier (TSR_PREFETCH=notices, hlrc_prefetch.c), counted.
 * Node 1 homes PAGES pages and writes each in every round; node 0 reads
 * them all in rounds 1-3 and only the first half afterwards. From round 2
 * on, every page node 0 read in the round before is fetched at the barrier
 * that invalidates it, so node 0's reads take no read fault (a prefetched
 * page's first touch only changes its access); a page it stopped reading
 * is prefetched once more (at round 4, having been touched in round 3),
 * then no longer: PAGES in rounds 2, 3 and 4, PAGES / 2 in round 5. Where pages are copied from the home's memory (shm,
 * TSR_FETCH=direct), read one-sided (ucx, TSR_FETCH=direct) or
 * TSR_PREFETCH=off, nothing is prefetched. Every
 * value node 0 reads must be the round's. */
/* tsr-test: hlrc -n 2 */
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "transport/core.h"
#include "util/config.h"

#define PAGES 16
#define ROUNDS 5
#define WORDS (4096 / sizeof(long))

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 1;
    volatile long *a = tsr_alloc_attr(PAGES * 4096, &attr);
    long wrong = 0;
    /* The counts after round 1 and at the end. */
    uint64_t faults[2] = {0, 0}, prefetched[2] = {0, 0};
    tsr_counter_get("pages_prefetched", &prefetched[0]);
    for (long r = 1; r <= ROUNDS; r++) {
        if (tsr_node() == 1)
            for (int p = 0; p < PAGES; p++)
                a[p * WORDS] = r * 100 + p;
        tsr_barrier();
        if (r == 2)
            tsr_counter_get("read_faults", &faults[0]);
        int read = r <= 3 ? PAGES : PAGES / 2;
        for (int p = 0; tsr_node() == 0 && p < read; p++)
            wrong += a[p * WORDS] != r * 100 + p;
        tsr_barrier();
    }
    tsr_counter_get("read_faults", &faults[1]);
    tsr_counter_get("pages_prefetched", &prefetched[1]);
    uint64_t took = faults[1] - faults[0], fetched = prefetched[1] - prefetched[0];
    const char *t = transport_name();
    int expect = cfg.prefetch && !(cfg.fetch_direct && (!strcmp(t, "shm") || !strcmp(t, "ucx")));
    uint64_t want_prefetched = expect ? 3 * PAGES + PAGES / 2 : 0;
    int bad = wrong || (tsr_node() == 0 && (fetched != want_prefetched || (expect && took)));
    if (tsr_node() == 0)
        printf("node 0: %ld wrong values, %llu pages prefetched (%llu expected), %llu read faults "
               "after round 1 (%s) %s\n",
               wrong, (unsigned long long)fetched, (unsigned long long)want_prefetched,
               (unsigned long long)took, expect ? "none expected" : "any number",
               bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
