/* argv[1] parallel regions that touch no shared memory, then argv[2]
 * barriers inside one region: tests/sh/omp.sh builds it at -O0 (so that no
 * region is optimised away) and counts their messages (TSR_STATS_JSON). */
#include <omp.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int regions = argc > 1 ? atoi(argv[1]) : 0, barriers = argc > 2 ? atoi(argv[2]) : 0;
    for (int r = 0; r < regions; r++) {
#pragma omp parallel
        {
            int me = omp_get_thread_num();
            (void)me;
        }
    }
#pragma omp parallel firstprivate(barriers)
    for (int b = 0; b < barriers; b++) {
#pragma omp barrier
    }
    return 0;
}
