/* A job of one node under any protocol, counted: a page written between
 * many barriers faults once for writing, not once per synchronization.
 * The lazy protocol write-protects the pages an interval wrote when it
 * ends, which is how it finds the next interval's writes; alone, no node
 * will ever ask for them, so it must not (it made SOR 13 times slower than
 * the sequential program at one node). Values are checked too. */
/* tsr-test: lrc -n 1 */
#include <stdio.h>

#include "tessera.h"

#define PAGES 16
#define ROUNDS 50
#define PER_PAGE (4096 / sizeof(long))

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long *a = tsr_alloc(PAGES * 4096);
    tsr_stats before, after;
    tsr_barrier();
    tsr_stats_get(&before);
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t k = 0; k < PAGES * PER_PAGE; k++)
            a[k] += (long)k;
        tsr_barrier();
    }
    tsr_stats_get(&after);
    int bad = 0;
    for (size_t k = 0; k < PAGES * PER_PAGE; k++)
        bad += a[k] != (long)k * ROUNDS;
    uint64_t faults = after.write_faults - before.write_faults;
    if (faults > PAGES)
        bad++;
    printf("node 0: %d pages written in %d rounds: %llu write faults (at most %d) %s\n", PAGES,
           ROUNDS, (unsigned long long)faults, PAGES, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
