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

/* Molecules whose forces one lock protects: about a page of forces. */
#define LOCK_GROUP ((long)(PAGE_BYTES / (WATER_DOUBLES * sizeof(double))))

static double *alloc_private(long count)
{
    double *a = calloc((size_t)count, sizeof *a);
    if (!a) {
        fprintf(stderr, "water: out of memory\n");
        exit(2);
    }
    return a;
}

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

static int has_forces(const double *acc, long lo, long hi)
{
    for (long k = lo * WATER_DOUBLES; k < hi * WATER_DOUBLES; k++)
        if (acc[k] != 0.0)
            return 1;
    return 0;
}

/* Adds the accumulator into the shared forces, group by group under the
 * group's lock. Groups without contributions (partners of other nodes'
 * molecules only) are skipped, and each node starts at its own first group
 * so that the nodes do not all queue for the same lock. */
static void publish_locked(const water_sys *s, const water_team *t)
{
    long groups = (s->n + LOCK_GROUP - 1) / LOCK_GROUP, first = t->lo / LOCK_GROUP;
    for (long k = 0; k < groups; k++) {
        long g = (first + k) % groups;
        long lo = g * LOCK_GROUP, hi = lo + LOCK_GROUP < s->n ? lo + LOCK_GROUP : s->n;
        if (!has_forces(t->acc, lo, hi))
            continue;
        tsr_lock((int)(g % TSR_MAX_LOCKS));
        water_add_forces(s, t->acc, lo, hi);
        tsr_unlock((int)(g % TSR_MAX_LOCKS));
    }
}

/* The energies of the whole system: the sum of the nodes' records. */
static void sum_energies(const double *records, long stride, int nodes, long steps, double *total)
{
    for (long k = 0; k < steps * WATER_ENERGIES; k++) {
        total[k] = 0.0;
        for (int node = 0; node < nodes; node++)
            total[k] += records[node * stride + k];
    }
}

/* Largest |a[k] - b[k]| over count values. */
static double max_difference(const double *a, const double *b, long count)
{
    double worst = 0.0;
    for (long k = 0; k < count; k++) {
        double d = fabs(a[k] - b[k]);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* Node 0, after the run: the energy check the sequential version makes,
 * and positions and energies must match the sequential run's. They match
 * only approximately because the forces on a molecule are summed in a
 * different order, and the gap grows with the steps; the tolerances leave
 * room for that and nothing like a lost contribution. */
static int verify(const water_sys *par, const double *energies, long steps)
{
    long n = par->n;
    water_sys seq = *par;
    seq.pos = alloc_private(n * WATER_DOUBLES);
    seq.vel = alloc_private(n * WATER_DOUBLES);
    seq.force = alloc_private(n * WATER_DOUBLES);
    water_init(&seq, 0, n);
    water_team alone = {0, n, alloc_private(n * WATER_DOUBLES),
                        alloc_private(steps * WATER_ENERGIES), water_no_sync,
                        water_publish_alone};
    water_simulate(&seq, &alone, steps);

    double pos_err = max_difference(par->pos, seq.pos, n * WATER_DOUBLES);
    double energy_scale = fabs(alone.energy[WATER_POTENTIAL]) + fabs(alone.energy[WATER_KINETIC]);
    double energy_err = max_difference(energies, alone.energy, steps * WATER_ENERGIES) / energy_scale;
    int same = pos_err < 1e-8 * par->box && energy_err < 1e-9;
    if (!same)
        fprintf(stderr, "water: differs from the sequential run: positions by %g, energies by %g\n",
                pos_err, energy_err);
    int ok = water_check_energy(energies, steps) && same;
    free(seq.pos);
    free(seq.vel);
    free(seq.force);
    free(alone.acc);
    free(alone.energy);
    return ok;
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
    water_team team = {first_molecule(n, me, nodes), first_molecule(n, me + 1, nodes),
                       alloc_private(n * WATER_DOUBLES), &records[me * stride], tsr_barrier,
                       publish_locked};
    water_init(&sys, team.lo, team.hi);
    tsr_barrier();

    double start = tsr_wtime();
    water_simulate(&sys, &team, size.steps);
    tsr_barrier();
    double seconds = tsr_wtime() - start;

    int status = 0;
    if (me == 0) {
        double *energies = alloc_private(size.steps * WATER_ENERGIES);
        sum_energies(records, stride, nodes, size.steps, energies);
        char name[64];
        water_size_string(&size, name, sizeof name);
        status = app_report("water", "tessera", nodes, name, seconds,
                            verify(&sys, energies, size.steps));
        free(energies);
    }
    free(team.acc);
    tsr_finalize();
    return status;
}
