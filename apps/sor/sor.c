/*
 * sor.c - red-black SOR on Tessera.
 *
 * Each worker (a node's threads are its workers, tsr_app.h) updates a
 * contiguous band of rows of both colour matrices, and each band is a
 * separate allocation homed on the node that writes it, so the only pages
 * that move are the boundary rows a node reads from its two neighbours
 * after each half-iteration's barrier.
 */
#include "sor.h"
#include "tsr_app.h"

static sor_params p;
static double **red, **black;

/* One colour matrix in shared memory: worker w's rows (sor_owned_rows) are
 * an allocation of their own homed on w's node (with --munin,
 * producer_consumer: a node's boundary rows go straight to its neighbours
 * at each barrier). Every node makes the same calls in the same order, so
 * the row table is the same everywhere. */
static double **sor_alloc_shared(void)
{
    double **row = app_calloc((size_t)(p.rows + 2), sizeof *row);
    for (int w = 0; w < app_workers(); w++) {
        long first, end;
        sor_owned_rows(&p, app_workers(), w, &first, &end);
        app_alloc_rows(row, first, end, p.width, app_worker_node(w), TSR_PRODUCER_CONSUMER);
    }
    return row;
}

/* Collective: tells Munin that each band's producer_consumer pattern ends. */
static void sor_phase_change(void)
{
    for (int w = 0; w < app_workers(); w++) {
        long first, end;
        sor_owned_rows(&p, app_workers(), w, &first, &end);
        tsr_hint_phase_change(red[first]);
        tsr_hint_phase_change(black[first]);
    }
}

static void sor_worker(int w)
{
    long first, end, lo, hi;
    sor_owned_rows(&p, app_workers(), w, &first, &end);
    sor_band(&p, app_workers(), w, &lo, &hi);
    sor_init_rows(red, black, &p, first, end); /* own rows only: nothing moves */
    app_barrier();

    double start = tsr_wtime();
    for (long it = 0; it < p.iterations; it++) {
        sor_sweep(red, black, SOR_RED, &p, lo, hi);
        app_barrier(); /* neighbours' red boundary rows are now visible */
        sor_sweep(black, red, SOR_BLACK, &p, lo, hi);
        app_barrier();
    }
    app_stop_clock(w, start);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv);
    const char *impl = app_impl(&argc, &argv);
    sor_parse(argc, argv, &p);
    app_need_rows(argv[0], p.rows);
    red = sor_alloc_shared();
    black = sor_alloc_shared();
    app_run_workers(sor_worker);
    if (app_munin) /* node 0 is about to read every row: a new sharing pattern */
        sor_phase_change();

    int status = 0;
    if (tsr_node() == 0)
        status = app_report("sor", impl, tsr_nodes(), p.size, app_seconds,
                            sor_verify_parallel(red, black, &p));
    tsr_finalize();
    return status;
}
