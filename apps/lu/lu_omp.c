/*
 * lu_omp.c - blocked LU in plain OpenMP: one source for libomp on one host
 * (clang-16 -fopenmp) and for Tessera across nodes (tsrcc -fopenmp,
 * docs/OPENMP.md).
 *
 * Thread t of the team plays node t of lu.c's 2-D scatter: it allocates
 * and initialises the blocks it owns (under Tessera, homed on its node by
 * first touch, as lu.c's per-node allocations are), then runs the three
 * phases of each step with a barrier after the first two, as lu.c does.
 */
#include "app_omp.h"
#include "lu.h"

/* The blocks `g` owns, as one allocation, entered in the shared table. */
static void place_blocks(double **blk, const lu_params *p, const lu_grid *g)
{
    size_t block = (size_t)(p->b * p->b), owned = 0;
    for (long I = 0; I < p->nb; I++)
        for (long J = 0; J < p->nb; J++)
            owned += lu_mine(g, I, J);
    if (owned == 0) /* more threads than blocks in a grid row or column */
        return;
    double *next = malloc(owned * block * sizeof *next);
    if (!next) {
        perror("malloc");
        exit(2);
    }
    for (long I = 0; I < p->nb; I++)
        for (long J = 0; J < p->nb; J++)
            if (lu_mine(g, I, J)) {
                blk[I * p->nb + J] = next;
                next += block;
            }
    lu_init_blocks(blk, p, g);
}

int main(int argc, char **argv)
{
    lu_params p;
    lu_parse(argc, argv, &p);
    double **blk = app_calloc((size_t)(p.nb * p.nb), sizeof *blk);
#pragma omp parallel
    {
        lu_grid g = lu_make_grid(omp_get_num_threads(), omp_get_thread_num());
        place_blocks(blk, &p, &g);
    }

    double start = omp_get_wtime();
#pragma omp parallel
    {
        lu_grid g = lu_make_grid(omp_get_num_threads(), omp_get_thread_num());
        for (long K = 0; K < p.nb; K++) {
            lu_phase_diagonal(blk, &p, &g, K);
#pragma omp barrier
            lu_phase_perimeter(blk, &p, &g, K);
#pragma omp barrier
            /* No barrier after the interior phase (lu.c says why). */
            lu_phase_interior(blk, &p, &g, K);
        }
    }
    double seconds = omp_get_wtime() - start;
    return app_report("lu", "omp", omp_get_max_threads(), p.size, seconds,
                      lu_verify_parallel(blk, &p));
}
