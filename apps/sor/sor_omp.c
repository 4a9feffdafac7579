/*
 * sor_omp.c - red-black SOR in plain OpenMP: one source for libomp on one
 * host (clang-16 -fopenmp) and for Tessera across nodes (tsrcc -fopenmp,
 * docs/OPENMP.md).
 *
 * Each row is allocated and initialised by the thread whose static block
 * updates it, as OpenMP programs place data for first touch on NUMA
 * machines. Under Tessera malloc homes a block on the node that calls it, so
 * each node's band is homed where it is written, as sor.c arranges with
 * its per-node allocations, and the same boundary rows move at each barrier.
 */
#include <omp.h>

#include "sor.h"

/* Row i of both colours, and the boundary row next to it at either end. */
static void place_row(double **red, double **black, const sor_params *p, long i)
{
    size_t bytes = (size_t)p->width * sizeof(double);
    long first = i == 1 ? 0 : i, end = i == p->rows ? p->rows + 2 : i + 1;
    for (long r = first; r < end; r++) {
        red[r] = malloc(bytes);
        black[r] = malloc(bytes);
        if (!red[r] || !black[r]) {
            perror("malloc");
            exit(2);
        }
    }
    sor_init_rows(red, black, p, first, end);
}

int main(int argc, char **argv)
{
    sor_params p;
    sor_parse(argc, argv, &p);
    double **red = app_calloc((size_t)p.rows + 2, sizeof *red);
    double **black = app_calloc((size_t)p.rows + 2, sizeof *black);
#pragma omp parallel for schedule(static)
    for (long i = 1; i <= p.rows; i++)
        place_row(red, black, &p, i);

    double start = omp_get_wtime();
#pragma omp parallel
    for (long it = 0; it < p.iterations; it++) {
#pragma omp for schedule(static)
        for (long i = 1; i <= p.rows; i++)
            sor_sweep(red, black, SOR_RED, &p, i, i + 1);
#pragma omp for schedule(static)
        for (long i = 1; i <= p.rows; i++)
            sor_sweep(black, red, SOR_BLACK, &p, i, i + 1);
    }
    double seconds = omp_get_wtime() - start;
    return app_report("sor", "omp", omp_get_max_threads(), p.size, seconds,
                      sor_verify_parallel(red, black, &p));
}
