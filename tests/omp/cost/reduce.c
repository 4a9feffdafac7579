/* argv[1] parallel loops with a reduction, nothing else locked:
 * tests/sh/omp_teams_apps.sh counts the lock acquires (TSR_STATS_JSON).
 * A node's threads combine their values first, so each reduction takes
 * the reduction's lock once a node, and no thread hands it to another. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int loops = argc > 1 ? atoi(argv[1]) : 0;
    long total = 0;
    for (int r = 0; r < loops; r++) {
        long sum = 0;
#pragma omp parallel for reduction(+ : sum)
        for (int i = 0; i < 1000; i++)
            sum += i;
        total += sum;
    }
    printf("reductions %d, total %ld\n", loops, total);
    return 0;
}
