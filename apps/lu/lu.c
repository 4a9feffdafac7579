/*
 * lu.c - blocked LU factorisation on Tessera.
 *
 * As in SPLASH-2's contiguous-blocks LU, the blocks a node owns are
 * allocated together, homed on that node: a node writes only its own blocks
 * (no twins or diffs), and the pages that move are the diagonal and
 * perimeter blocks of each step, fetched by the nodes that use them.
 */
#include "lu.h"
#include "tsr_app.h"

/* The block table of a shared matrix: node k's blocks, in row-major block
 * order, fill one allocation homed on node k. Every node makes the same
 * calls in the same order, so the table is the same everywhere. */
static double **lu_alloc_shared(const lu_params *p, int nodes)
{
    double **blk = app_calloc((size_t)(p->nb * p->nb), sizeof *blk);
    size_t block = (size_t)(p->b * p->b);
    for (int k = 0; k < nodes; k++) {
        lu_grid g = lu_make_grid(nodes, k);
        size_t owned = 0;
        for (long I = 0; I < p->nb; I++)
            for (long J = 0; J < p->nb; J++)
                owned += lu_mine(&g, I, J);
        if (owned == 0) /* more nodes than blocks in a grid row or column */
            continue;
        double *next = app_alloc_home(owned * block * sizeof *next, k, TSR_CONVENTIONAL);
        for (long I = 0; I < p->nb; I++)
            for (long J = 0; J < p->nb; J++)
                if (lu_mine(&g, I, J)) {
                    blk[I * p->nb + J] = next;
                    next += block;
                }
    }
    return blk;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    lu_params p;
    lu_parse(argc, argv, &p);
    int me = tsr_node(), nodes = tsr_nodes();
    lu_grid g = lu_make_grid(nodes, me);
    double **blk = lu_alloc_shared(&p, nodes);
    lu_init_blocks(blk, &p, &g); /* own blocks only: nothing moves */
    tsr_barrier();

    double start = tsr_wtime();
    for (long K = 0; K < p.nb; K++) {
        lu_phase_diagonal(blk, &p, &g, K);
        tsr_barrier();
        lu_phase_perimeter(blk, &p, &g, K);
        tsr_barrier();
        /* No barrier after the interior phase (as in SPLASH-2): the next
         * diagonal block is updated and then factored by the same node, and
         * the next barrier orders everything else. */
        lu_phase_interior(blk, &p, &g, K);
    }
    tsr_barrier();
    double seconds = tsr_wtime() - start;

    int status = 0;
    if (me == 0)
        status = app_report("lu", "tessera", nodes, p.size, seconds, lu_verify_parallel(blk, &p));
    tsr_finalize();
    return status;
}
