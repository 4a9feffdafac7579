/*
 * barnes_omp.c - the Barnes-Hut simulation in plain OpenMP: one source for
 * libomp on one host (clang-16 -fopenmp) and for Tessera across nodes
 * (tsrcc -fopenmp, docs/OPENMP.md).
 *
 *   barnes_omp BODIES STEPS
 *
 * Each step builds the octree from every body in sequential code, then a
 * parallel region moves each thread's static block of bodies: the long
 * sequential part of OpenMP/NOW's experiment, which TSR_OMP_SEQUENTIAL
 * runs on node 0 alone (master) or on every node (replicate).
 */
#include "app.h"
#include "app_omp.h"
#include "barnes.h"

int main(int argc, char **argv)
{
    barnes_size size = barnes_parse(argc, argv);
    long n = size.bodies;
    barnes_sys sys = barnes_sys_malloc(n);
#pragma omp parallel
    {
        long lo, hi;
        app_omp_block(0, n, &lo, &hi);
        barnes_init(&sys, lo, hi);
    }

    double start = omp_get_wtime();
    for (long step = 0; step < size.steps; step++) {
        barnes_build_tree(&sys);
#pragma omp parallel
        {
            long lo, hi;
            app_omp_block(0, n, &lo, &hi);
            barnes_advance(&sys, lo, hi);
        }
    }
    double seconds = omp_get_wtime() - start;

    char name[64];
    barnes_size_string(&size, name, sizeof name);
    return app_report("barnes", "omp", omp_get_max_threads(), name, seconds, barnes_check(&sys));
}
