/*
 * barnes.c - the Barnes-Hut simulation on Tessera; node 0 checks the result
 * against the sequential simulation computed with the same code (barnes.h).
 *
 *   tsrun -n NODES barnes BODIES STEPS
 *
 * Worker 0 (node 0's first thread; a node's threads are its workers,
 * tsr_app.h) rebuilds the octree each step (the sequential section) while
 * the others wait at the barrier; then every worker walks the tree for its
 * own bodies and moves them. The tree is homed at node 0, its only writer,
 * so building it creates no twins or diffs and the other nodes fetch the
 * pages they walk straight from their home: the contention after a
 * sequential section that replicated execution is meant to remove.
 * Positions and velocities have block homes: a node's workers move the
 * bodies on its home pages, and node 0 fetches the others' positions once
 * per step to build the tree.
 */
#include <string.h>

#include "barnes_dsm.h"
#include "tsr_app.h"

static void *alloc_private(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (!p) {
        fprintf(stderr, "barnes: out of memory\n");
        exit(2);
    }
    return p;
}

static barnes_size size;
static barnes_sys sys;

/* The first body of worker `w`: contiguous blocks whose sizes differ by at
 * most one, in worker order, so in node order like the block homes. */
static long first_body(long n, int w)
{
    return n * w / app_workers();
}

/* Node 0, after the run: the parallel positions and velocities must equal
 * the sequential ones bit for bit, since tree and walks are the same, and
 * the final tree must pass the sequential version's check. */
static int verify(const barnes_sys *par, long steps)
{
    long n = par->n;
    barnes_sys seq = {n, alloc_private((size_t)n * 3, sizeof(double)),
                      alloc_private((size_t)n * 3, sizeof(double)),
                      alloc_private((size_t)par->capacity, sizeof(bh_node)), par->capacity};
    barnes_init(&seq, 0, n);
    barnes_team alone = {0, n, 1, barnes_no_sync};
    barnes_simulate(&seq, &alone, steps);

    size_t bytes = (size_t)n * 3 * sizeof(double);
    int same = memcmp(par->pos, seq.pos, bytes) == 0 && memcmp(par->vel, seq.vel, bytes) == 0;
    if (!same)
        fprintf(stderr, "barnes: bodies differ from the sequential run\n");
    int ok = barnes_check(&seq) && same;
    free(seq.pos);
    free(seq.vel);
    free(seq.tree);
    return ok;
}

/* Worker 0 builds the tree (the sequential section); every worker moves
 * its own bodies. */
static void barnes_worker(int w)
{
    long n = size.bodies;
    barnes_team team = {first_body(n, w), first_body(n, w + 1), w == 0, app_barrier};
    barnes_init(&sys, team.lo, team.hi);
    app_barrier();

    double start = tsr_wtime();
    barnes_simulate(&sys, &team, size.steps); /* ends with a barrier */
    app_stop_clock(w, start);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv);
    size = barnes_parse(argc, argv);
    sys = barnes_sys_shared(size.bodies);
    app_run_workers(barnes_worker);

    int status = 0;
    if (tsr_node() == 0) {
        char name[64];
        barnes_size_string(&size, name, sizeof name);
        status = app_report("barnes", APP_IMPL, tsr_nodes(), name, app_seconds,
                            verify(&sys, size.steps));
    }
    tsr_finalize();
    return status;
}
