/* producer_consumer: Jacobi relaxation of a grid, one band of rows per node,
 * with a private scratch array, as in the paper's SOR (Section 4.2). The
 * result must equal a sequential run's bit for bit. After the first
 * iteration the copysets are fixed: each node then sends exactly one update
 * message per neighbour and iteration, and nothing else but the barriers'
 * messages and the one-time copyset notices. */
/* tsr-test: munin */
#include <stdlib.h>
#include <string.h>

#include "munin_test.h"

#define COLS 512 /* one row = one 4 KiB page */
#define ROWS 24
#define ITERS 8

static void relax_rows(double (*dst)[COLS], double (*src)[COLS], long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        for (long j = 1; j < COLS - 1; j++)
            dst[i][j] = (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]) * 0.25;
}

/* A private array of the grid's shape; without memory the test stops,
 * saying so (tests/sh/out_of_memory fails allocations). */
static void *private_grid(void)
{
    void *g = calloc(ROWS + 2, sizeof(double[COLS]));
    if (!g) {
        fprintf(stderr, "node %d: out of memory for a private grid\n", tsr_node());
        exit(1);
    }
    return g;
}

static double initial(long i, long j) { return i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0; }

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    double (*grid)[COLS] = munin_alloc(sizeof(double[ROWS + 2][COLS]), TSR_PRODUCER_CONSUMER);
    double (*scratch)[COLS] = private_grid();
    long base = ROWS / n, extra = ROWS % n;
    long lo = 1 + me * base + (me < extra ? me : extra), hi = lo + base + (me < extra);
    for (long i = (me == 0 ? 0 : lo); i < (me == n - 1 ? ROWS + 2 : hi); i++)
        for (long j = 0; j < COLS; j++)
            grid[i][j] = initial(i, j);
    tsr_barrier();

    tsr_stats s0, s1;
    uint64_t u0 = 0, u1;
    for (int it = 0; it < ITERS; it++) {
        if (it == 2) {
            tsr_stats_get(&s0);
            u0 = munin_counter("updates_sent");
        }
        relax_rows(scratch, grid, lo, hi);
        tsr_barrier();
        for (long i = lo; i < hi; i++)
            memcpy(&grid[i][1], &scratch[i][1], (COLS - 2) * sizeof(double));
        tsr_barrier();
    }
    tsr_stats_get(&s1);
    u1 = munin_counter("updates_sent");
    long neighbours = (me > 0) + (me < n - 1);
    double per_iter = (double)(u1 - u0) / (ITERS - 2);
    CHECK(per_iter == (double)neighbours, "%.2f update messages per iteration, expected %ld",
          per_iter, neighbours);
    /* Two barriers: an arrival each from the other nodes, and node 0's
     * answer to each of them (messages to itself do not count). */
    double others = (double)(s1.messages_sent - s0.messages_sent - (u1 - u0)) /
                    (ITERS - 2);
    double barrier_msgs = 2.0 * (me == 0 ? n - 1 : 1);
    CHECK(others == barrier_msgs, "%.2f other messages per iteration, expected %.0f (barriers)",
          others, barrier_msgs);

    /* Node 0 now reads every row: a new sharing pattern. */
    tsr_hint_phase_change(grid);
    if (me == 0) {
        double (*ref)[COLS] = private_grid(), (*tmp)[COLS] = private_grid();
        for (long i = 0; i < ROWS + 2; i++)
            for (long j = 0; j < COLS; j++)
                ref[i][j] = initial(i, j);
        for (int it = 0; it < ITERS; it++) {
            relax_rows(tmp, ref, 1, ROWS + 1);
            for (long i = 1; i <= ROWS; i++)
                memcpy(&ref[i][1], &tmp[i][1], (COLS - 2) * sizeof(double));
        }
        long wrong = 0;
        for (long i = 0; i < ROWS + 2; i++)
            wrong += memcmp(ref[i], grid[i], sizeof ref[i]) != 0;
        CHECK(wrong == 0, "%ld rows differ from the sequential run", wrong);
        free(ref);
        free(tmp);
    }
    free(scratch);
    return munin_finish("producer_consumer");
}
