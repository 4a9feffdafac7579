/*
 * water_seq.c - the water simulation as plain sequential C: one worker that
 * owns every molecule and never waits.
 *
 *   water_seq MOLECULES STEPS
 */
#include "app.h"
#include "water.h"

int main(int argc, char **argv)
{
    water_size size = water_parse(argc, argv);
    long n = size.molecules;
    water_sys sys;
    water_geometry(&sys, n);
    sys.pos = water_alloc(n * WATER_DOUBLES);
    sys.vel = water_alloc(n * WATER_DOUBLES);
    sys.force = water_alloc(n * WATER_DOUBLES);
    water_init(&sys, 0, n);
    water_team alone = {0, n, water_alloc(n * WATER_DOUBLES),
                        water_alloc(size.steps * WATER_ENERGIES), water_no_sync,
                        water_publish_alone};

    double start = app_now();
    water_simulate(&sys, &alone, size.steps);
    double seconds = app_now() - start;

    char name[64];
    water_size_string(&size, name, sizeof name);
    int ok = water_check_energy(alone.energy, size.steps);
    return app_report("water", "seq", 1, name, seconds, ok);
}
