/*
 * water_omp.c - the water simulation in plain OpenMP: one source for libomp
 * on one host (clang-16 -fopenmp) and for Tessera across nodes (tsrcc
 * -fopenmp, docs/OPENMP.md).
 *
 * Thread t owns water.c's block t of molecules and runs the same steps:
 * a barrier where water.c has one, and its accumulated forces added under
 * one OpenMP lock per page-sized group of molecules. Positions and forces,
 * which every thread reads or adds to, are indexed by molecule, so they
 * are the master's allocations (under Tessera homed on node 0, where
 * water.c spreads them in blocks), on pages of their own (app_omp_pages)
 * as water.c's are: a group is then one page, as the locks assume, where
 * malloc's header would shift every group across two pages, each written
 * under two locks by two threads (a quarter to a third more page fetches). Velocities are read and written by
 * their owner only: each thread has its own whole-length copy (homed on
 * its node), as it has its own accumulator and energy record.
 */
#include "app_omp.h"
#include "water.h"

/* One lock per group of WATER_LOCK_GROUP molecules. */
static omp_lock_t *group_lock;

static void lock_group(long g)
{
    omp_set_lock(&group_lock[g]);
}

static void unlock_group(long g)
{
    omp_unset_lock(&group_lock[g]);
}

static void publish_locked(const water_sys *s, const water_team *t)
{
    water_publish_grouped(s, t, WATER_LOCK_GROUP, lock_group, unlock_group);
}

static double *molecule_pages(long n)
{
    size_t bytes = (size_t)n * WATER_DOUBLES * sizeof(double);
    return memset(app_omp_pages(bytes), 0, bytes);
}

static void team_barrier(void)
{
#pragma omp barrier
}

int main(int argc, char **argv)
{
    water_size size = water_parse(argc, argv);
    long n = size.molecules, groups = (n + WATER_LOCK_GROUP - 1) / WATER_LOCK_GROUP;
    int threads = omp_get_max_threads();
    water_sys sys;
    water_geometry(&sys, n);
    sys.pos = molecule_pages(n);
    sys.force = molecule_pages(n);
    group_lock = app_calloc((size_t)groups, sizeof *group_lock);
    for (long g = 0; g < groups; g++)
        omp_init_lock(&group_lock[g]);
    double **record = app_calloc((size_t)threads, sizeof *record), seconds = 0.0;
#pragma omp parallel
    {
        int me = omp_get_thread_num(), team_size = omp_get_num_threads();
        water_team team = {n * me / team_size, n * (me + 1) / team_size,
                           water_alloc(n * WATER_DOUBLES), water_alloc(size.steps * WATER_ENERGIES),
                           team_barrier, publish_locked};
        record[me] = team.energy;
        water_sys mine = sys;
        mine.vel = water_alloc(n * WATER_DOUBLES);
        water_init(&mine, team.lo, team.hi);
#pragma omp barrier
        double start = omp_get_wtime();
        water_simulate(&mine, &team, size.steps);
#pragma omp barrier
#pragma omp master
        seconds = omp_get_wtime() - start;
        free(team.acc);
        free(mine.vel);
    }

    double *energies = water_alloc(size.steps * WATER_ENERGIES);
    water_sum_energies(record, threads, size.steps, energies);
    char name[64];
    water_size_string(&size, name, sizeof name);
    return app_report("water", "omp", threads, name, seconds,
                      water_verify(&sys, energies, size.steps));
}
