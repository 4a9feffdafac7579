/* Each node writes its own block of a shared array (homes deliberately
 * cyclic, so most writes go to pages homed elsewhere), then after a barrier
 * every node checks every element. Repeated with a different owner per
 * round so each round's writes land in pages other nodes have cached. */
/* tsr-test: suite */
#include <stdio.h>

#include "tessera.h"

#define N (64 * 1024)

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_CYCLIC;
    attr.block_pages = 1;
    double *a = tsr_alloc_attr(N * sizeof(double), &attr);
    long bad = 0;
    for (int round = 0; round < 5; round++) {
        int owner = (me + round) % n;
        for (long i = owner * (long)N / n; i < (owner + 1) * (long)N / n; i++)
            a[i] = round * 1e6 + (double)i;
        tsr_barrier();
        for (long i = 0; i < N; i++)
            bad += a[i] != round * 1e6 + (double)i;
        tsr_barrier();
    }
    printf("node %d: %ld wrong values %s\n", me, bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
