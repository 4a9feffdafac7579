/* Themis, the Sequencer's global write order (Section 2.3.4 of the paper):
 * node 0 writes x = v, then y = v, for v = 1, 2, ... (asynchronously, many
 * in flight) into the last node's segment, while every other node reads y
 * then x over and over. The Java model lets a reader see y = v before
 * x = v (the writes touch different lines, and OrderCache or OrderNoCache
 * may deliver them in either order); the Sequencer applies one node's
 * writes to one owner in the order they were issued, so every reader sees
 * x >= y, always. Run at 3 and 4 nodes so that two or three nodes watch.
 * With the argument `job` it uses the job's engine (TSR_GA_ENGINE) instead:
 * under the udp transport's injected reordering, the Order engines are
 * then expected to fail it, which shows the test can. */
/* tsr-test: ga_seq -n 3,4 */
#include <stdio.h>
#include <string.h>

#include "tessera_ga.h"

#define TRIALS 10
#define WRITES 1000
#define READS 200
#define X 0
#define Y 64 /* another line, another cache index */

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), home = n - 1;
    tsr_ga_attr attr = TSR_GA_ATTR_DEFAULT;
    if (!(argc > 1 && !strcmp(argv[1], "job")))
        attr.engine = TSR_GA_SEQUENCER;
    tsr_ga *ga = tsr_ga_alloc(128, &attr);
    long bad = 0, pairs = 0, moving = 0;
    uint64_t v = 0;
    for (int t = 0; t < TRIALS; t++) {
        tsr_ga_barrier();
        if (me == 0) {
            for (int i = 0; i < WRITES; i++) {
                v++;
                tsr_ga_write64_async(ga, home, X, v);
                tsr_ga_write64_async(ga, home, Y, v);
            }
        } else {
            uint64_t last_y = 0;
            for (int i = 0; i < READS; i++) {
                uint64_t y = tsr_ga_read64(ga, home, Y);
                uint64_t x = tsr_ga_read64(ga, home, X);
                pairs++;
                moving += y != last_y;
                last_y = y;
                if (x < y && ++bad <= 5)
                    fprintf(stderr, "node %d: trial %d read y = %llu, then x = %llu\n", me, t,
                            (unsigned long long)y, (unsigned long long)x);
            }
        }
    }
    tsr_ga_barrier();
    uint64_t want = (uint64_t)TRIALS * WRITES;
    uint64_t x = tsr_ga_read64(ga, home, X), y = tsr_ga_read64(ga, home, Y);
    if (x != want || y != want) {
        fprintf(stderr, "node %d: after the last barrier x = %llu, y = %llu, not %llu\n", me,
                (unsigned long long)x, (unsigned long long)y, (unsigned long long)want);
        bad++;
    }
    printf("node %d: %ld of %ld (y, x) pairs out of write order (%ld saw y move) %s\n", me, bad,
           pairs, moving, bad ? "FAIL" : "PASS");
    tsr_ga_free(ga);
    tsr_finalize();
    return bad != 0;
}
