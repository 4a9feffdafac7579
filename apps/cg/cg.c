/*
 * cg.c - conjugate gradient on Tessera.
 *
 * x and p are shared, each worker's band (a node's threads are its workers,
 * tsr_app.h) a run of pages homed on its node; r, q and the worker's rows
 * of the matrix are read only by their node, so they stay private. The
 * pages that move each iteration are the p pages next to a band's edges (a
 * grid row's worth each side) and the partial-sum pages.
 */
#include "cg.h"
#include "tsr_app.h"

static cg_params p;
static double *sums;     /* the partial-sum pages, a run per node */
static double *x, *dirs; /* shared: x and p, a band per worker */
static double *r, *q;    /* this node's: its workers' bands */

/* Where partial sums meet: node k's workers' slots fill run k, homed on
 * node k, so each node writes only its own pages and reads the others'
 * after a barrier: one page per node whatever its threads, each crossing
 * to a reader once per sum. Successive sums alternate between two slots,
 * because a fast worker may write its next partial while a slow one still
 * reads the previous sum. */
typedef struct cg_slots {
    int me;
    long sums; /* sums done so far: picks the slot */
} cg_slots;

/* Doubles from one node's slots to the next: whole pages. */
static long cg_slot_run(void)
{
    return (2L * app_threads + CG_PAGE_DOUBLES - 1) / CG_PAGE_DOUBLES * CG_PAGE_DOUBLES;
}

static double *cg_slot(int w, long slot)
{
    return &sums[app_worker_node(w) * cg_slot_run() + (w % app_threads) * 2 + slot];
}

static double cg_sum_slots(double partial, void *ctx)
{
    cg_slots *s = ctx;
    long slot = s->sums++ & 1;
    *cg_slot(s->me, slot) = partial;
    app_barrier();
    double total = 0.0; /* the same order on every worker, so the same total */
    for (int w = 0; w < app_workers(); w++)
        total += *cg_slot(w, slot);
    return total;
}

/* After the barrier every worker's new p band is visible to its readers. */
static void cg_share_barrier(double *dir, void *ctx)
{
    (void)dir;
    (void)ctx;
    app_barrier();
}

/* One run of `per_node` doubles (whole pages) per node, run k homed on
 * node k. */
static double *cg_alloc_runs(long per_node)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_CYCLIC;
    attr.block_pages = (size_t)(per_node / CG_PAGE_DOUBLES);
    return tsr_alloc_attr((size_t)tsr_nodes() * (size_t)per_node * sizeof(double), &attr);
}

static void cg_worker(int w)
{
    long lo, hi;
    cg_band(p.n, app_workers(), w, &lo, &hi);
    cg_slots slots = {w, 0};
    cg_vectors v = {x, r, dirs, q};
    cg_matrix a = cg_build_matrix(&p, lo, hi);
    cg_comm comm = {cg_sum_slots, cg_share_barrier, &slots};
    cg_init_band(&v, lo, hi); /* own band only: nothing moves */
    app_barrier();

    double start = tsr_wtime();
    cg_solve(&a, &v, p.iterations, &comm); /* ends with a barrier */
    app_stop_clock(w, start);
    cg_free_matrix(&a);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv);
    cg_parse(argc, argv, &p);
    long band = cg_band_capacity(p.n, app_workers());
    sums = cg_alloc_runs(cg_slot_run());
    x = cg_alloc_runs(band * app_threads); /* a node's workers' bands side by side */
    dirs = cg_alloc_runs(band * app_threads);
    r = app_calloc((size_t)p.n, sizeof(double));
    q = app_calloc((size_t)p.n, sizeof(double));
    app_run_workers(cg_worker);

    int status = 0;
    if (tsr_node() == 0)
        status = app_report("cg", APP_IMPL, tsr_nodes(), p.size, app_seconds,
                            cg_verify_parallel(&p, x));
    free(r);
    free(q);
    tsr_finalize();
    return status;
}
