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
static double *sums;     /* the partial-sum pages, one per worker */
static double *x, *dirs; /* shared: x and p, a band per worker */
static double *r, *q;    /* this node's: its workers' bands */
static double seconds;   /* the solve, as this node's first worker saw it */

/* Where partial sums meet: worker w's slots fill page w, homed on w's
 * node, so each worker writes only its own page and reads the others'
 * after a barrier. Successive sums alternate between two slots, because a
 * fast worker may write its next partial while a slow one still reads the
 * previous sum. */
typedef struct cg_slots {
    int me;
    long sums; /* sums done so far: picks the slot */
} cg_slots;

static double cg_sum_slots(double partial, void *ctx)
{
    cg_slots *s = ctx;
    long slot = s->sums++ & 1;
    sums[s->me * CG_PAGE_DOUBLES + slot] = partial;
    app_barrier();
    double total = 0.0; /* the same order on every worker, so the same total */
    for (int w = 0; w < app_workers(); w++)
        total += sums[w * CG_PAGE_DOUBLES + slot];
    return total;
}

/* After the barrier every worker's new p band is visible to its readers. */
static void cg_share_barrier(double *dir, void *ctx)
{
    (void)dir;
    (void)ctx;
    app_barrier();
}

/* One run of `run_doubles` doubles per worker, the runs of a node's
 * workers side by side and homed on it. */
static double *cg_alloc_runs(long run_doubles)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_CYCLIC;
    attr.block_pages = (size_t)(run_doubles / CG_PAGE_DOUBLES * app_threads);
    return tsr_alloc_attr((size_t)app_workers() * (size_t)run_doubles * sizeof(double), &attr);
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
    if (app_leads(w))
        seconds = tsr_wtime() - start;
    cg_free_matrix(&a);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv);
    cg_parse(argc, argv, &p);
    long band = cg_band_capacity(p.n, app_workers());
    sums = cg_alloc_runs(CG_PAGE_DOUBLES);
    x = cg_alloc_runs(band);
    dirs = cg_alloc_runs(band);
    r = app_calloc((size_t)p.n, sizeof(double));
    q = app_calloc((size_t)p.n, sizeof(double));
    app_run_workers(cg_worker);

    int status = 0;
    if (tsr_node() == 0)
        status = app_report("cg", APP_IMPL, tsr_nodes(), p.size, seconds,
                            cg_verify_parallel(&p, x));
    free(r);
    free(q);
    tsr_finalize();
    return status;
}
