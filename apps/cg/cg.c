/*
 * cg.c - conjugate gradient on Tessera.
 *
 * x and p are shared, each node's band a run of pages homed on it; r, q and
 * the node's rows of the matrix are read only by their node, so they stay
 * private. The pages that move each iteration are the p pages next to a
 * band's edges (a grid row's worth each side) and the partial-sum pages.
 */
#include <tessera.h>

#include "cg.h"

/* Where partial sums meet: node k's slots fill page k, homed on node k, so
 * each node writes only its own page and reads the others' after a barrier.
 * Successive sums alternate between two slots, because a fast node may
 * write its next partial while a slow one still reads the previous sum. */
typedef struct cg_slots {
    double *page;
    int me, nodes;
    long sums; /* sums done so far: picks the slot */
} cg_slots;

static double cg_sum_slots(double partial, void *ctx)
{
    cg_slots *s = ctx;
    long slot = s->sums++ & 1;
    s->page[s->me * CG_PAGE_DOUBLES + slot] = partial;
    tsr_barrier();
    double total = 0.0; /* the same order on every node, so the same total */
    for (int k = 0; k < s->nodes; k++)
        total += s->page[k * CG_PAGE_DOUBLES + slot];
    return total;
}

/* After the barrier every node's new p band is visible to its readers. */
static void cg_share_barrier(double *p, void *ctx)
{
    (void)p;
    (void)ctx;
    tsr_barrier();
}

/* `nodes` runs of `run_doubles` doubles, run k homed on node k. */
static double *cg_alloc_runs(long run_doubles, int nodes)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_CYCLIC;
    attr.block_pages = (size_t)(run_doubles / CG_PAGE_DOUBLES);
    return tsr_alloc_attr((size_t)nodes * (size_t)run_doubles * sizeof(double), &attr);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    cg_params p;
    cg_parse(argc, argv, &p);
    int me = tsr_node(), nodes = tsr_nodes();
    long lo, hi, band = cg_band_capacity(p.n, nodes);
    cg_band(p.n, nodes, me, &lo, &hi);
    cg_slots slots = {cg_alloc_runs(CG_PAGE_DOUBLES, nodes), me, nodes, 0};
    cg_vectors v = {cg_alloc_runs(band, nodes), app_calloc((size_t)p.n, sizeof(double)),
                    cg_alloc_runs(band, nodes), app_calloc((size_t)p.n, sizeof(double))};
    cg_matrix a = cg_build_matrix(&p, lo, hi);
    cg_comm comm = {cg_sum_slots, cg_share_barrier, &slots};
    cg_init_band(&v, lo, hi); /* own band only: nothing moves */
    tsr_barrier();

    double start = tsr_wtime();
    cg_solve(&a, &v, p.iterations, &comm); /* ends with a barrier */
    double seconds = tsr_wtime() - start;

    int status = 0;
    if (me == 0)
        status = app_report("cg", "tessera", nodes, p.size, seconds, cg_verify_parallel(&p, v.x));
    cg_free_matrix(&a);
    free(v.r);
    free(v.q);
    tsr_finalize();
    return status;
}
