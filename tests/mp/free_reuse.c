/* tsr_free and a new allocation at the same address: the new memory must
 * start zeroed and behave like any fresh allocation, whatever the freed
 * pages' state was (written by their home alone and left writable by
 * cache-only write detection, cached and invalidated elsewhere). A stale
 * state from the freed pages makes a fault repeat forever or a value go
 * missing. */
/* tsr-test: suite */
#include <stdio.h>

#include "tessera.h"

#define PAGES 16
#define LONGS (PAGES * 512)

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    long bad = 0;
    for (int cycle = 0; cycle < 6; cycle++) {
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.home = cycle % 2 ? TSR_HOME_CYCLIC : TSR_HOME_NODE;
        attr.home_node = cycle % n;
        long *a = tsr_alloc_attr(LONGS * sizeof(long), &attr);
        for (long i = 0; i < LONGS; i++)
            bad += a[i] != 0;
        tsr_barrier();
        for (int round = 1; round <= 3; round++) {
            /* The last round's writer is the pages' home (in the node-homed
             * cycles) alone, so they are freed sticky at their home. */
            int last = round == 3, writer = cycle % n;
            for (long i = last ? 0 : me; i < LONGS && (!last || me == writer); i += last ? 1 : n)
                a[i] = cycle * 100 + round;
            tsr_barrier();
            for (long i = 0; i < LONGS; i++)
                bad += a[i] != cycle * 100 + round;
            tsr_barrier();
        }
        tsr_free(a);
    }
    printf("node %d: %ld wrong values %s\n", me, bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
