/*
 * water.c - the water simulation on Tessera; node 0 checks the result
 * against the sequential simulation computed with the same code (water.h).
 *
 *   tsrun -n NODES water MOLECULES STEPS
 *
 * Positions, velocities and forces have block homes, so the molecules a
 * node's workers own (its threads, tsr_app.h), whose positions and
 * velocities only they write, lie on its home pages. Every node reads all
 * positions once per step. The inter-molecular forces a worker computes go
 * to a private accumulator and are added to the shared forces afterwards,
 * one lock per page-sized group of molecules: a worker takes each lock once
 * per step rather than once per pair, and its node's diff for that page
 * goes home when it releases the lock.
 */
#include "tsr_app.h"
#include "water.h"

#define PAGE_BYTES 4096

static water_size size;
static water_sys sys;
static double **record; /* worker w's energies, on pages of its own */

/* The first molecule of worker `w`: contiguous blocks whose sizes differ
 * by at most one, in worker order, so in node order like the block homes. */
static long first_molecule(long n, int w)
{
    return n * w / app_workers();
}

/* Doubles from one worker's energy record to the next: whole pages, so
 * that each worker writes its record on a page of its own. */
static long energy_stride(long steps)
{
    long per_page = PAGE_BYTES / sizeof(double);
    return (steps * WATER_ENERGIES + per_page - 1) / per_page * per_page;
}

static void lock_group(long g)
{
    tsr_lock((int)(g % TSR_MAX_LOCKS));
}

static void unlock_group(long g)
{
    tsr_unlock((int)(g % TSR_MAX_LOCKS));
}

/* A worker takes each group's lock once per step (water_publish_grouped). */
static void publish_locked(const water_sys *s, const water_team *t)
{
    water_publish_grouped(s, t, WATER_LOCK_GROUP, lock_group, unlock_group);
}

static void water_worker(int w)
{
    long n = size.molecules;
    water_team team = {first_molecule(n, w), first_molecule(n, w + 1),
                       water_alloc(n * WATER_DOUBLES), record[w], app_barrier, publish_locked};
    water_init(&sys, team.lo, team.hi);
    app_barrier();

    double start = tsr_wtime();
    water_simulate(&sys, &team, size.steps);
    app_barrier();
    app_stop_clock(w, start);
    free(team.acc);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv);
    size = water_parse(argc, argv);
    long n = size.molecules, stride = energy_stride(size.steps);
    int workers = app_workers();

    water_geometry(&sys, n);
    size_t bytes = (size_t)n * WATER_DOUBLES * sizeof(double);
    sys.pos = tsr_alloc(bytes);
    sys.vel = tsr_alloc(bytes);
    sys.force = tsr_alloc(bytes);
    double *records = tsr_alloc((size_t)(workers * stride) * sizeof(double));
    record = app_calloc((size_t)workers, sizeof *record);
    for (int w = 0; w < workers; w++)
        record[w] = &records[w * stride];
    app_run_workers(water_worker);

    int status = 0;
    if (tsr_node() == 0) {
        double *energies = water_alloc(size.steps * WATER_ENERGIES);
        water_sum_energies(record, workers, size.steps, energies);
        char name[64];
        water_size_string(&size, name, sizeof name);
        status = app_report("water", APP_IMPL, tsr_nodes(), name, app_seconds,
                            water_verify(&sys, energies, size.steps));
        free(energies);
    }
    free(record);
    tsr_finalize();
    return status;
}
