/*
 * cg_omp.c - conjugate gradient in plain OpenMP: one source for libomp on
 * one host (clang-16 -fopenmp) and for Tessera across nodes (tsrcc
 * -fopenmp, docs/OPENMP.md).
 *
 * Thread t works on cg.c's band t. It builds its rows of the matrix and its
 * r and q itself (under Tessera, homed on its node and touched by nobody
 * else, as cg.c's private ones). x and p are indexed by global unknown, so
 * they are one allocation each, the master's: under Tessera homed on node
 * 0, where cg.c homes each band on its node (docs/OPENMP.md counts the
 * difference). Partial sums meet as in cg.c: each thread writes its own
 * slots, which it allocated, and everyone reads them all after a barrier,
 * in thread order, so every thread gets the same total.
 */
#include "app_omp.h"
#include "cg.h"

/* One thread's view of the partial sums; `slot[t]` holds thread t's two
 * alternating slots (a fast thread may write its next partial while a
 * slow one still reads the previous sum). */
typedef struct cg_team {
    double **slot;
    int me, threads;
    long sums;
} cg_team;

static double cg_sum_team(double partial, void *ctx)
{
    cg_team *t = ctx;
    long k = t->sums++ & 1;
    t->slot[t->me][k] = partial;
#pragma omp barrier
    double total = 0.0;
    for (int i = 0; i < t->threads; i++)
        total += t->slot[i][k];
    return total;
}

/* After the barrier every thread's new p band is visible to its readers. */
static void cg_share_team(double *p, void *ctx)
{
    (void)p;
    (void)ctx;
#pragma omp barrier
}

int main(int argc, char **argv)
{
    cg_params p;
    cg_parse(argc, argv, &p);
    int threads = omp_get_max_threads();
    /* Whole pages per band (cg_band_capacity), so bands share no page. */
    size_t bytes = (size_t)(threads * cg_band_capacity(p.n, threads)) * sizeof(double);
    double *x, *dir, **slot = app_calloc((size_t)threads, sizeof *slot);
    if (posix_memalign((void **)&x, 4096, bytes) || posix_memalign((void **)&dir, 4096, bytes)) {
        perror("posix_memalign");
        return 2;
    }
    double seconds = 0.0;
#pragma omp parallel
    {
        cg_team team = {slot, omp_get_thread_num(), omp_get_num_threads(), 0};
        long lo, hi;
        cg_band(p.n, team.threads, team.me, &lo, &hi);
        slot[team.me] = app_calloc(2, sizeof(double));
        cg_vectors v = {x, app_calloc((size_t)p.n, sizeof(double)), dir,
                        app_calloc((size_t)p.n, sizeof(double))};
        cg_matrix a = cg_build_matrix(&p, lo, hi);
        cg_comm comm = {cg_sum_team, cg_share_team, &team};
        cg_init_band(&v, lo, hi);
#pragma omp barrier
        double start = omp_get_wtime();
        cg_solve(&a, &v, p.iterations, &comm); /* ends with a barrier */
#pragma omp master
        seconds = omp_get_wtime() - start;
        cg_free_matrix(&a);
        free(v.r);
        free(v.q);
    }
    return app_report("cg", "omp", threads, p.size, seconds, cg_verify_parallel(&p, x));
}
