/*
 * water.c - the water simulation on Tessera; node 0 checks the result
 * against the sequential simulation computed with the same code (water.h).
 *
 *   tsrun -n NODES water MOLECULES STEPS
 *
 * Positions, velocities and forces have block homes, so the molecules a
 * node owns, whose positions and velocities only it writes, lie on its home
 * pages. Every node reads all positions once per step. The inter-molecular
 * forces a node computes go to a private accumulator and are added to the
 * shared forces afterwards, one lock per page-sized group of molecules: a
 * node takes each lock once per step rather than once per pair, and its
 * diff for that page goes home when it releases the lock.
 */
#include "app.h"
#include "tessera.h"
#include "water.h"

#define PAGE_BYTES 4096

/* The first molecule of node `node`: contiguous blocks whose sizes differ
 * by at most one, in node order like the block homes. */
static long first_molecule(long n, int node, int nodes)
{
    return n * node / nodes;
}

/* Doubles from one node's energy record to the next: whole pages, so that
 * each node writes its record on a page of its own. */
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

/* A node takes each group's lock once per step (water_publish_grouped). */
static void publish_locked(const water_sys *s, const water_team *t)
{
    water_publish_grouped(s, t, WATER_LOCK_GROUP, lock_group, unlock_group);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), nodes = tsr_nodes();
    water_size size = water_parse(argc, argv);
    long n = size.molecules, stride = energy_stride(size.steps);

    water_sys sys;
    water_geometry(&sys, n);
    size_t bytes = (size_t)n * WATER_DOUBLES * sizeof(double);
    sys.pos = tsr_alloc(bytes);
    sys.vel = tsr_alloc(bytes);
    sys.force = tsr_alloc(bytes);
    double *records = tsr_alloc((size_t)(nodes * stride) * sizeof(double));
    double **record = app_calloc((size_t)nodes, sizeof *record);
    for (int k = 0; k < nodes; k++)
        record[k] = &records[k * stride];
    water_team team = {first_molecule(n, me, nodes), first_molecule(n, me + 1, nodes),
                       water_alloc(n * WATER_DOUBLES), record[me], tsr_barrier,
                       publish_locked};
    water_init(&sys, team.lo, team.hi);
    tsr_barrier();

    double start = tsr_wtime();
    water_simulate(&sys, &team, size.steps);
    tsr_barrier();
    double seconds = tsr_wtime() - start;

    int status = 0;
    if (me == 0) {
        double *energies = water_alloc(size.steps * WATER_ENERGIES);
        water_sum_energies(record, nodes, size.steps, energies);
        char name[64];
        water_size_string(&size, name, sizeof name);
        status = app_report("water", "tessera", nodes, name, seconds,
                            water_verify(&sys, energies, size.steps));
        free(energies);
    }
    free(team.acc);
    free(record);
    tsr_finalize();
    return status;
}
