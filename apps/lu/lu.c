/*
 * lu.c - blocked LU factorisation on Tessera.
 *
 * As in SPLASH-2's contiguous-blocks LU, the blocks a worker owns (a
 * node's threads are its workers, tsr_app.h) are allocated together, homed
 * on its node: a node writes only its own blocks (no twins or diffs), and
 * the pages that move are the diagonal and perimeter blocks of each step,
 * fetched by the nodes that use them.
 */
#include "lu.h"
#include "tsr_app.h"

static lu_params p;
static double **blk;

/* The block table of a shared matrix: worker w's blocks, in row-major
 * block order, fill one allocation homed on w's node. Every node makes the
 * same calls in the same order, so the table is the same everywhere. */
static double **lu_alloc_shared(void)
{
    double **table = app_calloc((size_t)(p.nb * p.nb), sizeof *table);
    size_t block = (size_t)(p.b * p.b);
    for (int w = 0; w < app_workers(); w++) {
        lu_grid g = lu_make_grid(app_workers(), w);
        size_t owned = 0;
        for (long I = 0; I < p.nb; I++)
            for (long J = 0; J < p.nb; J++)
                owned += lu_mine(&g, I, J);
        if (owned == 0) /* more workers than blocks in a grid row or column */
            continue;
        double *next =
            app_alloc_home(owned * block * sizeof *next, app_worker_node(w), TSR_CONVENTIONAL);
        for (long I = 0; I < p.nb; I++)
            for (long J = 0; J < p.nb; J++)
                if (lu_mine(&g, I, J)) {
                    table[I * p.nb + J] = next;
                    next += block;
                }
    }
    return table;
}

static void lu_worker(int w)
{
    lu_grid g = lu_make_grid(app_workers(), w);
    lu_init_blocks(blk, &p, &g); /* own blocks only: nothing moves */
    app_barrier();

    double start = tsr_wtime();
    for (long K = 0; K < p.nb; K++) {
        lu_phase_diagonal(blk, &p, &g, K);
        app_barrier();
        lu_phase_perimeter(blk, &p, &g, K);
        app_barrier();
        /* No barrier after the interior phase (as in SPLASH-2): the next
         * diagonal block is updated and then factored by the same worker,
         * and the next barrier orders everything else. */
        lu_phase_interior(blk, &p, &g, K);
    }
    app_barrier();
    app_stop_clock(w, start);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv);
    lu_parse(argc, argv, &p);
    blk = lu_alloc_shared();
    app_run_workers(lu_worker);

    int status = 0;
    if (tsr_node() == 0)
        status = app_report("lu", APP_IMPL, tsr_nodes(), p.size, app_seconds,
                            lu_verify_parallel(blk, &p));
    tsr_finalize();
    return status;
}
