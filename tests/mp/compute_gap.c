/* One node computes for a given number of seconds without a single call
 * into Tessera, between two barriers: its comm thread must keep it alive
 * for the others (tests/sh/heartbeat.sh runs it with a short TSR_HEARTBEAT).
 * The computation is a busy loop, not a sleep, so that it competes with the
 * comm threads for the cores. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tessera.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    volatile unsigned long spins = 0;
    tsr_barrier();
    if (tsr_node() == tsr_nodes() - 1)
        for (double t0 = now(); now() - t0 < seconds;)
            spins++;
    tsr_barrier();
    printf("node %d: PASS\n", tsr_node());
    tsr_finalize();
    return 0;
}
