/*
 * ga_barriers.c - the Themis paper's Figure 5: the time to pass 1,024
 * tsr_ga_barrier calls in a row while an OrderCache allocation of 2^k
 * lines is alive, for k = 4 .. 18. Each barrier sweeps every descriptor
 * looking for dirty lines, then exchanges the barrier's messages; with
 * one line dirtied before each barrier, the sweep also writes it back.
 *
 *   tsrun -n 4 build/bench/ga_barriers
 */
#include <stdio.h>

#include "tessera_ga.h"

#define BARRIERS 1024

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    if (me == 0)
        printf("%-8s %6s %12s %14s\n", "lines", "nodes", "ms_clean", "ms_one_dirty");
    for (int k = 4; k <= 18; k += 2) {
        tsr_ga_attr attr = TSR_GA_ATTR_DEFAULT;
        attr.engine = TSR_GA_ORDER_CACHE;
        attr.cache_node_bits = 2;
        attr.cache_addr_bits = k - 2;
        tsr_ga *ga = tsr_ga_alloc(4096, &attr);
        double ms[2];
        for (int dirty = 0; dirty < 2; dirty++) {
            tsr_ga_barrier();
            double t0 = tsr_wtime();
            for (int b = 0; b < BARRIERS; b++) {
                if (dirty && n > 1)
                    tsr_ga_write32_async(ga, (me + 1) % n, (size_t)(b % 512) * 8, (uint32_t)b);
                tsr_ga_barrier();
            }
            ms[dirty] = (tsr_wtime() - t0) * 1e3;
        }
        if (me == 0)
            printf("%-8u %6d %12.1f %14.1f\n", 1u << k, n, ms[0], ms[1]);
        fflush(stdout);
        tsr_ga_free(ga);
    }
    tsr_finalize();
    return 0;
}
