/*
 * mm.c - matrix multiply on Tessera.
 *
 * Worker w (tsr_app.h: a node's threads are its workers) computes band w
 * of the rows of C. Every matrix is split into the same row bands, each
 * band an allocation homed on its worker's node: a node's rows of A and C
 * never leave it, A and B are written only by their home nodes at
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

static mm_params p;
static double **a, **b, **c;

/* An n x n shared matrix whose band of rows w (mm_band) is homed on the
 * node of worker w. Every node makes the same calls in the same order, so
 * the row table is the same everywhere. */
static double **mm_alloc_shared(long n)
{
    double **row = app_calloc((size_t)n, sizeof *row);
    for (int w = 0; w < app_workers(); w++) {
        long lo, hi;
        mm_band(n, app_workers(), w, &lo, &hi);
        app_alloc_rows(row, lo, hi, n, app_worker_node(w), TSR_CONVENTIONAL);
    }
    return row;
}

/* Collective: with --munin, each band of an initialised input becomes
 * read_only (Munin initialises then freezes read-only data). */
static void mm_freeze_input(double **m, long n)
{
    for (int w = 0; app_munin && w < app_workers(); w++) {
        long lo, hi;
        mm_band(n, app_workers(), w, &lo, &hi);
        tsr_hint_change_annotation(m[lo], TSR_READ_ONLY);
    }
}

/* The product: banded like the inputs, or with --munin one `result` object
 * owned by node 0. */
static double **mm_alloc_product(long n)
{
    if (!app_munin)
        return mm_alloc_shared(n);
    double **row = app_calloc((size_t)n, sizeof *row);
    app_alloc_rows(row, 0, n, n, 0, TSR_RESULT);
    return row;
}

/* Worker w initialises and computes band w of the rows. */
static void mm_worker(int w)
{
    long lo, hi;
    mm_band(p.n, app_workers(), w, &lo, &hi);
    mm_init_rows(a, 0, p.n, lo, hi); /* own rows only: nothing moves */
    mm_init_rows(b, 1, p.n, lo, hi);
    app_barrier();
    if (app_leads(w)) { /* Munin serves one thread per node: no other waits here */
        mm_freeze_input(a, p.n);
        mm_freeze_input(b, p.n);
    }

    double start = tsr_wtime();
    mm_multiply_rows(c, a, b, p.n, lo, hi);
    app_barrier();
    app_stop_clock(w, start);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv);
    const char *impl = app_impl(&argc, &argv);
    mm_parse(argc, argv, &p);
    app_need_rows(argv[0], p.n);
    a = mm_alloc_shared(p.n);
    b = mm_alloc_shared(p.n);
    c = mm_alloc_product(p.n);
    app_run_workers(mm_worker);

    int status = 0;
    if (tsr_node() == 0)
        status = app_report("mm", impl, tsr_nodes(), p.size, app_seconds, mm_verify_parallel(c, p.n));
    tsr_finalize();
    return status;
}
