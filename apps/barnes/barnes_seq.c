/*
 * barnes_seq.c - the Barnes-Hut simulation as plain sequential C: one
 * worker that builds the tree, moves every body and never waits.
 *
 *   barnes_seq BODIES STEPS
 */
#include "app.h"
#include "barnes.h"

int main(int argc, char **argv)
{
    barnes_size size = barnes_parse(argc, argv);
    long n = size.bodies;
    barnes_sys sys = barnes_sys_malloc(n);
    barnes_init(&sys, 0, n);
    barnes_team alone = {0, n, 1, barnes_no_sync};

    double start = app_now();
    barnes_simulate(&sys, &alone, size.steps);
    double seconds = app_now() - start;

    char name[64];
    barnes_size_string(&size, name, sizeof name);
    return app_report("barnes", "seq", 1, name, seconds, barnes_check(&sys));
}
