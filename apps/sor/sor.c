/*
 * sor.c - red-black SOR on Tessera.
 *
 * Each node updates a contiguous band of rows of both colour matrices, and
 * each band is a separate allocation homed on the node that writes it, so the
 * only pages that move are the boundary rows a node reads from its two
 * neighbours after each half-iteration's barrier.
 */
#include "sor.h"
#include "tsr_app.h"

/* One colour matrix in shared memory: node k's rows (sor_owned_rows) are an
 * allocation of their own homed on node k (with --munin, producer_consumer:
 * a node's boundary rows go straight to its neighbours at each barrier). Every node makes the same calls
 * in the same order, so the row table is the same everywhere. */
static double **sor_alloc_shared(const sor_params *p, int nodes)
{
    double **row = app_calloc((size_t)(p->rows + 2), sizeof *row);
    for (int k = 0; k < nodes; k++) {
        long first, end;
        sor_owned_rows(p, nodes, k, &first, &end);
        app_alloc_rows(row, first, end, p->width, k, TSR_PRODUCER_CONSUMER);
    }
    return row;
}

/* Collective: tells Munin that each band's producer_consumer pattern ends. */
static void sor_phase_change(double **red, double **black, const sor_params *p, int nodes)
{
    for (int k = 0; k < nodes; k++) {
        long first, end;
        sor_owned_rows(p, nodes, k, &first, &end);
        tsr_hint_phase_change(red[first]);
        tsr_hint_phase_change(black[first]);
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *impl = app_impl(&argc, &argv);
    sor_params p;
    sor_parse(argc, argv, &p);
    int me = tsr_node(), nodes = tsr_nodes();
    if (p.rows < nodes) {
        fprintf(stderr, "%s: need at least one row per node (%ld rows, %d nodes)\n", argv[0],
                p.rows, nodes);
        exit(2);
    }
    double **red = sor_alloc_shared(&p, nodes), **black = sor_alloc_shared(&p, nodes);
    long first, end, lo, hi;
    sor_owned_rows(&p, nodes, me, &first, &end);
    sor_band(&p, nodes, me, &lo, &hi);
    sor_init_rows(red, black, &p, first, end); /* own rows only: nothing moves */
    tsr_barrier();

    double start = tsr_wtime();
    for (long it = 0; it < p.iterations; it++) {
        sor_sweep(red, black, SOR_RED, &p, lo, hi);
        tsr_barrier(); /* neighbours' red boundary rows are now visible */
        sor_sweep(black, red, SOR_BLACK, &p, lo, hi);
        tsr_barrier();
    }
    double seconds = tsr_wtime() - start;
    if (app_munin) /* node 0 is about to read every row: a new sharing pattern */
        sor_phase_change(red, black, &p, nodes);

    int status = 0;
    if (me == 0)
        status = app_report("sor", impl, nodes, p.size, seconds,
                            sor_verify_parallel(red, black, &p));
    tsr_finalize();
    return status;
}
