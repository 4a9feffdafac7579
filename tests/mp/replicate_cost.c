/* What entering and leaving a replicated section costs when the job
 * reserved much (tsrun -m 256G) and allocated little (a few pages): it must
 * follow the allocation, not the reservation (issue 52). A section's entry
 * and exit are each a barrier plus the protocols' hooks, so the test times
 * ROUNDS sections (each writing every page) against ROUNDS pairs of plain
 * barriers in the same job, and fails when the sections cost more than
 * SLACK times the barriers plus FLOOR_S. The barriers scale the bound with
 * the machine's load; a walk over the reserved pages' table (64M entries
 * at 256G) costs tens of milliseconds per entry, which no load here makes
 * a barrier cost. Prints both times. Run by tests/sh/replicate_cost.sh;
 * no tsr-test line: a helper. */
#include <stdio.h>

#include "tessera.h"

#define ROUNDS 10
#define PAGES 4
#define SLACK 20
#define FLOOR_S 0.2

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node();
    long *a = tsr_alloc(PAGES * 4096);
    a[me * 512] = me; /* a page written by this node before the sections */
    tsr_barrier();

    double t0 = tsr_wtime();
    for (int r = 0; r < ROUNDS; r++) {
        tsr_barrier();
        tsr_barrier();
    }
    double barriers = tsr_wtime() - t0;

    t0 = tsr_wtime();
    for (int r = 0; r < ROUNDS; r++) {
        tsr_replicate_begin();
        for (int p = 0; p < PAGES; p++)
            a[p * 512 + 1] += 1;
        tsr_replicate_end();
    }
    double sections = tsr_wtime() - t0;

    int wrong = 0;
    for (int p = 0; p < PAGES; p++)
        wrong |= a[p * 512 + 1] != ROUNDS;
    int slow = sections > SLACK * barriers + FLOOR_S;
    printf("node %d: %d sections in %.4f s, %d barrier pairs in %.4f s%s%s: %s\n", me, ROUNDS,
           sections, ROUNDS, barriers, slow ? ", too slow" : "", wrong ? ", wrong values" : "",
           slow || wrong ? "FAIL" : "PASS");
    tsr_finalize();
    return slow || wrong;
}
