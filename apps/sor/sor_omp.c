/*
 * sor_omp.c - red-black SOR in plain OpenMP: one source for libomp on one
 * host (clang-16 -fopenmp) and for Tessera across nodes (tsrcc -fopenmp,
 * docs/OPENMP.md).
 *
 * Each thread allocates and initialises the rows its static block
 * updates, as OpenMP programs place data for first touch on NUMA machines.
 * Under Tessera malloc homes a block on the node that calls it, so each
 * node's band is homed where it is written, as sor.c arranges with its
 * per-node allocations, and the same boundary rows move at each barrier.
 */
#include "app_omp.h"
#include "sor.h"

/* Rows [lo, hi) of one colour matrix, and the boundary row next to them
 * at either end: one block, so that a node's rows lie together and share
 * no page with another node's or with the other colour's. */
static void place_band(double **m, int colour, const sor_params *p, long lo, long hi)
{
    long first = lo == 1 ? 0 : lo, end = hi == p->rows + 1 ? p->rows + 2 : hi;
    double *band = malloc((size_t)(end - first) * (size_t)p->width * sizeof(double));
    if (!band) {
        perror("malloc");
        exit(2);
    }
    for (long r = first; r < end; r++) {
        m[r] = band + (r - first) * p->width;
        for (long k = 0; k < p->width; k++)
            m[r][k] = sor_initial(p, r, 2 * k + ((r + colour) & 1));
    }
}

int main(int argc, char **argv)
{
    sor_params p;
    sor_parse(argc, argv, &p);
    double **red = app_calloc((size_t)p.rows + 2, sizeof *red);
    double **black = app_calloc((size_t)p.rows + 2, sizeof *black);
#pragma omp parallel
    {
        long lo, hi;
        app_omp_block(1, p.rows + 1, &lo, &hi);
        if (lo < hi) {
            place_band(red, SOR_RED, &p, lo, hi);
            place_band(black, SOR_BLACK, &p, lo, hi);
        }
    }

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
