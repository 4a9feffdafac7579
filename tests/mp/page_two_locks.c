/* One page whose two halves two locks protect, the way water's force
 * groups share pages: a node's writes under one lock must not come back
 * over a later writer's.
 *
 * Each round, node 0 writes the low half under lock 1 (its interval i),
 * then the high half under lock 2 (interval i+1). Node 1 takes lock 1 after
 * node 0, so it sees interval i but not i+1, waits until node 0 has
 * finished i+1 (node 0 says so through Themis' global address space, which
 * carries no write notice), then adds to the low half. After a barrier every
 * node reads both halves: the low one must hold node 1's sums. Under the
 * lazy protocol node 0's one diff of the page covers both intervals; node 1
 * gets it for interval i and, were it applied again for interval i+1 after
 * the barrier, node 0's old low half would overwrite node 1's sums. */
/* tsr-test: suite -n 2,3,4 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "tessera.h"
#include "tessera_ga.h"

#define PAGE 4096
#define ROUNDS 8
#define HALF (PAGE / 2 / sizeof(long))

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    long *mem = tsr_alloc(ROUNDS * PAGE);
    tsr_ga *done = tsr_ga_alloc(8, NULL); /* node 1's word: node 0's last high-half round */
    for (int r = 0; r < ROUNDS; r++) {
        long *low = mem + r * PAGE / sizeof(long), *high = low + HALF;
        if (me == 0)
            tsr_lock(1); /* node 1 takes lock 1 only after the low half */
        tsr_barrier();
        if (me == 0) {
            for (size_t k = 0; k < HALF; k++)
                low[k] = r + 1;
            tsr_unlock(1);
            tsr_lock(2);
            for (size_t k = 0; k < HALF; k++)
                high[k] = r + 2;
            tsr_unlock(2);
            tsr_ga_write64(done, 1, 0, (uint64_t)r + 1);
        } else if (me == 1) {
            tsr_lock(1);
            while (tsr_ga_read64(done, 1, 0) < (uint64_t)r + 1)
                sched_yield();
            for (size_t k = 0; k < HALF; k++)
                low[k] += 100;
            tsr_unlock(1);
        }
        tsr_barrier();
        for (size_t k = 0; k < HALF; k++)
            if (low[k] != r + 101 || high[k] != r + 2) {
                printf("node %d: round %d: word %zu holds %ld and %ld, expected %d and %d\n", me,
                       r, k, low[k], high[k], r + 101, r + 2);
                bad = 1;
                break;
            }
        tsr_barrier();
    }
    printf("node %d: page_two_locks: %s\n", me, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
