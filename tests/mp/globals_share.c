/* The program's ordinary globals are shared (TSR_SHARE_GLOBALS=1, set here
 * before tsr_init as a program may): a worker node sets a global pointer
 * (to memory it allocated alone), a global struct and a global function
 * pointer, and node 0 reads them after a barrier; every node adds to a
 * global counter under a lock and writes its own page of a global array;
 * a TSR_PRIVATE global stays each node's own; after tsr_finalize the
 * globals hold the job's final values. */
/* tsr-test: suite */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node_check.h"
#include "tessera.h"
#include "test_env.h"

#define SLOTS 4096 /* longs: 8 pages, one or more per node */

struct params {
    int rows;
    double scale;
    char label[24];
};

static double twice(double x) { return 2 * x; }
static double thrice(double x) { return 3 * x; }

double *grid;             /* .bss: set by the worker */
struct params params;     /* .bss: set by the worker */
double (*op)(double);     /* .bss: a function pointer set by the worker */
long counter;             /* .bss: every node adds under a lock */
long slots[SLOTS];        /* .bss, several pages: each node fills its part */
int ready = -1;           /* .data: initialised, set by node 0 before tsr_init */
static TSR_PRIVATE int mine;

int main(int argc, char **argv)
{
    test_setenv("TSR_SHARE_GLOBALS", "1");
    /* Before tsr_init, each node's globals are its own: node 0's win. */
    const char *node = getenv("TSR_NODE");
    ready = node ? atoi(node) * 10 : 0;
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), worker = n > 2 ? 2 : n - 1;
    mine = me;
    CHECK(ready == 0, "ready=%d, want node 0's value 0", ready);
    tsr_barrier();

    if (me == worker) {
        grid = tsr_malloc(64 * sizeof *grid);
        for (int i = 0; i < 64; i++)
            grid[i] = i;
        params = (struct params){64, 1.5, "set by the worker"};
        op = worker % 2 ? thrice : twice;
    }
    tsr_lock(1);
    counter += me + 1;
    tsr_unlock(1);
    for (int i = me; i < SLOTS; i += n)
        slots[i] = 1000L * me + i;
    tsr_barrier();

    CHECK(grid && params.rows == 64 && params.scale == 1.5 &&
              !strcmp(params.label, "set by the worker"),
          "grid %p rows %d scale %g label '%s'", (void *)grid, params.rows, params.scale,
          params.label);
    if (grid)
        CHECK(grid[63] == 63, "grid[63] = %g", grid[63]);
    CHECK(op == (worker % 2 ? thrice : twice) && op(params.scale) == (worker % 2 ? 4.5 : 3.0),
          "the worker's function pointer %p", (void *)op);
    CHECK(counter == (long)n * (n + 1) / 2, "counter %ld", counter);
    for (int i = 0; i < SLOTS; i++)
        if (slots[i] != 1000L * (i % n) + i) {
            CHECK(0, "slots[%d] = %ld", i, slots[i]);
            break;
        }
    CHECK(mine == me, "TSR_PRIVATE global %d, want %d", mine, me);
    tsr_barrier();
    if (me == 0)
        counter = -1;
    tsr_finalize();
    /* Private again, with the last values (CHECK names the node through
     * the runtime, which is gone now). */
    if (counter != -1) {
        printf("node %d: check failed: after tsr_finalize: counter %ld\n", me, counter);
        check_failures++;
    }
    counter = me;
    return check_verdict(me, "globals_share");
}
