/*
 * cg_omp.c - conjugate gradient in plain OpenMP: one source for libomp on
 * one host (clang-16 -fopenmp) and for Tessera across nodes (tsrcc
 * -fopenmp, docs/OPENMP.md).
 *
 * Thread t works on cg.c's band t. As in cg_mpi.c, its vectors are
 * whole-length and its own (allocated by the thread, so under Tessera homed
 * on its node), of which it touches its band and, for p, one grid row each
 * side that it copies from its neighbours' p after each update. A single
 * shared x and p would be homed on the master's node alone (malloc homes a
 * block where it is called), and every other node would send its band
 * home at every barrier. Partial sums meet as in cg.c: each thread writes
 * its own slots and everyone reads them all after a barrier, in thread
 * order, so every thread gets the same total.
 */
#include "app_omp.h"
#include "cg.h"

/* One thread's view: copies of what it reads in every sum and halo, so
 * that under Tessera it reads them from its own node's memory (the
 * master's locals share a page with the master's own view, which it writes
 * at every sum). Each thread's vectors and its two partial-sum slots
 * (alternating: a fast thread may write its next partial while a slow one
 * still reads the previous sum) are in tables that everyone reads. */
typedef struct cg_team {
    cg_params p;
    cg_vectors *v;
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

/* After the barrier every band of p is new: copy the halo from the
 * neighbours. They write their bands again only after the next sum's
 * barrier, which this thread reaches after copying. */
static void cg_share_halo(double *p, void *ctx)
{
    const cg_team *t = ctx;
    long lo, hi, below, above;
#pragma omp barrier
    cg_band(t->p.n, t->threads, t->me, &lo, &hi);
    cg_halo(&t->p, t->threads, t->me, &below, &above);
    if (below)
        memcpy(p + lo - below, t->v[t->me - 1].p + lo - below, (size_t)below * sizeof *p);
    if (above)
        memcpy(p + hi, t->v[t->me + 1].p + hi, (size_t)above * sizeof *p);
}

/* Band t of x from thread t's x, into one vector for the check. */
static double *cg_gather(const cg_params *p, const cg_vectors *v, int threads)
{
    double *x = app_calloc((size_t)p->n, sizeof *x);
    for (int t = 0; t < threads; t++) {
        long lo, hi;
        cg_band(p->n, threads, t, &lo, &hi);
        memcpy(x + lo, v[t].x + lo, (size_t)(hi - lo) * sizeof *x);
    }
    return x;
}

int main(int argc, char **argv)
{
    cg_params p;
    cg_parse(argc, argv, &p);
    int threads = omp_get_max_threads();
    if (cg_band_capacity(p.n, threads) < p.grid) { /* a halo must not pass a neighbour */
        fprintf(stderr, "%s: bands shorter than a grid row (grid %ld, %d threads)\n", argv[0],
                p.grid, threads);
        return 2;
    }
    /* Pages of their own for the vectors, whose bands start on a page
     * (cg_band) so that a halo spans the pages it does in cg.c, and for
     * what is read at every sum or halo copy: under Tessera no write to a
     * neighbouring block (a thread's slots, the master's band of x) makes
     * the readers fetch the page again. */
    cg_vectors *vectors = app_omp_pages((size_t)threads * sizeof *vectors);
    double **slot = app_omp_pages((size_t)threads * sizeof *slot);
    double seconds = 0.0;
#pragma omp parallel
    {
        cg_team team = {p, vectors, slot, omp_get_thread_num(), omp_get_num_threads(), 0};
        long lo, hi;
        cg_band(p.n, team.threads, team.me, &lo, &hi);
        slot[team.me] = app_omp_pages(2 * sizeof(double));
        cg_vectors *v = &vectors[team.me];
        size_t bytes = (size_t)p.n * sizeof(double);
        *v = (cg_vectors){app_omp_pages(bytes), app_omp_pages(bytes), app_omp_pages(bytes),
                          app_omp_pages(bytes)};
        cg_matrix a = cg_build_matrix(&p, lo, hi);
        cg_comm comm = {cg_sum_team, cg_share_halo, &team};
        cg_init_band(v, lo, hi);
#pragma omp barrier
        double start = omp_get_wtime();
        cg_solve(&a, v, p.iterations, &comm); /* ends with a barrier */
#pragma omp master
        seconds = omp_get_wtime() - start;
        cg_free_matrix(&a);
    }
    double *x = cg_gather(&p, vectors, threads);
    return app_report("cg", "omp", threads, p.size, seconds, cg_verify_parallel(&p, x));
}
