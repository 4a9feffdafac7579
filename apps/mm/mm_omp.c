/*
 * mm_omp.c - matrix multiply in plain OpenMP: one source for libomp on one
 * host (clang-16 -fopenmp) and for Tessera across nodes (tsrcc -fopenmp,
 * docs/OPENMP.md).
 *
 * Each thread allocates and initialises the rows of A, B and C that its
 * static block covers (under Tessera, homed on its node, as mm.c's bands
 * are), then multiplies that block in one kernel call, as mm.c does: only
 * B's rows move, each node fetching them once.
 */
#include "app_omp.h"
#include "mm.h"

/* Rows [lo, hi) of an n x n matrix as one block; `which` input, or zero. */
static void place_rows(double **m, int which, long n, long lo, long hi)
{
    double *band = malloc((size_t)(hi - lo) * (size_t)n * sizeof(double));
    if (!band) {
        perror("malloc");
        exit(2);
    }
    for (long i = lo; i < hi; i++)
        m[i] = band + (i - lo) * n;
    if (which >= 0)
        mm_init_rows(m, which, n, lo, hi);
}

int main(int argc, char **argv)
{
    mm_params p;
    mm_parse(argc, argv, &p);
    long n = p.n;
    double **a = app_calloc((size_t)n, sizeof *a), **b = app_calloc((size_t)n, sizeof *b);
    double **c = app_calloc((size_t)n, sizeof *c);
#pragma omp parallel
    {
        long lo, hi;
        app_omp_block(0, n, &lo, &hi);
        if (lo < hi) {
            place_rows(a, 0, n, lo, hi);
            place_rows(b, 1, n, lo, hi);
            place_rows(c, -1, n, lo, hi);
        }
    }

    double start = omp_get_wtime();
#pragma omp parallel
    {
        long lo, hi;
        app_omp_block(0, n, &lo, &hi);
        mm_multiply_rows(c, a, b, n, lo, hi);
    }
    double seconds = omp_get_wtime() - start;
    return app_report("mm", "omp", omp_get_max_threads(), p.size, seconds,
                      mm_verify_parallel(c, n));
}
