/*
 * mm.c - matrix multiply on Tessera.
 *
 * Node k computes band k of the rows of C. Every matrix is split into the
 * same row bands, each band an allocation homed on its node: node k's rows of
 * A and C never leave it, A and B are written only by their home nodes at
 * initialisation (so they stay read-only afterwards, as Munin's annotation
 * said), and the only pages that move are the B rows each node fetches once.
 *
 * With --munin the data is annotated as in the Munin paper (Section 4): A
 * and B become read_only once initialised, and C is one `result` object
 * owned by node 0, to which each worker's rows flow in one message at the
 * barrier that ends the multiplication.
 */
#include "mm.h"
#include "tsr_app.h"

/* An n x n shared matrix whose band of rows k (mm_band) is homed on node k.
 * Every node makes the same calls in the same order, so the row table is the
 * same everywhere. */
static double **mm_alloc_shared(long n, int nodes)
{
    double **row = app_calloc((size_t)n, sizeof *row);
    for (int k = 0; k < nodes; k++) {
        long lo, hi;
        mm_band(n, nodes, k, &lo, &hi);
        app_alloc_rows(row, lo, hi, n, k, TSR_CONVENTIONAL);
    }
    return row;
}

/* Collective: with --munin, each band of an initialised input becomes
 * read_only (Munin initialises then freezes read-only data). */
static void mm_freeze_input(double **m, long n, int nodes)
{
    for (int k = 0; app_munin && k < nodes; k++) {
        long lo, hi;
        mm_band(n, nodes, k, &lo, &hi);
        tsr_hint_change_annotation(m[lo], TSR_READ_ONLY);
    }
}

/* The product: banded like the inputs, or with --munin one `result` object
 * owned by node 0. */
static double **mm_alloc_product(long n, int nodes)
{
    if (!app_munin)
        return mm_alloc_shared(n, nodes);
    double **row = app_calloc((size_t)n, sizeof *row);
    app_alloc_rows(row, 0, n, n, 0, TSR_RESULT);
    return row;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *impl = app_impl(&argc, &argv);
    mm_params p;
    mm_parse(argc, argv, &p);
    int me = tsr_node(), nodes = tsr_nodes();
    if (p.n < nodes) {
        fprintf(stderr, "%s: need at least one row per node (n=%ld, %d nodes)\n", argv[0], p.n,
                nodes);
        exit(2);
    }
    double **a = mm_alloc_shared(p.n, nodes), **b = mm_alloc_shared(p.n, nodes);
    double **c = mm_alloc_product(p.n, nodes);
    long lo, hi;
    mm_band(p.n, nodes, me, &lo, &hi);
    mm_init_rows(a, 0, p.n, lo, hi); /* own rows only: nothing moves */
    mm_init_rows(b, 1, p.n, lo, hi);
    tsr_barrier();
    mm_freeze_input(a, p.n, nodes);
    mm_freeze_input(b, p.n, nodes);

    double start = tsr_wtime();
    mm_multiply_rows(c, a, b, p.n, lo, hi);
    tsr_barrier();
    double seconds = tsr_wtime() - start;

    int status = 0;
    if (me == 0)
        status = app_report("mm", impl, nodes, p.size, seconds, mm_verify_parallel(c, p.n));
    tsr_finalize();
    return status;
}
