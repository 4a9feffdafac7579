/* producer_consumer: Jacobi relaxation of a grid, one band of rows per node,
 * with a private scratch array, as in the paper's SOR (Section 4.2). The
 * result must equal a sequential run's bit for bit. From the third
 * iteration the copysets are fixed (pages only their writer and manager
 * hold take three update epochs): each node then sends exactly one update
 * message per neighbour and iteration, and nothing else but the barriers'
 * messages. */
/* tsr-test: munin */
#include "munin_sor.h"

#define ITERS 8

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    sor_row *grid = munin_alloc(sizeof(sor_row[ROWS + 2]), TSR_PRODUCER_CONSUMER);
    sor_row *scratch = sor_private_grid();
    long lo, hi;
    sor_band(me, n, &lo, &hi);
    for (long i = (me == 0 ? 0 : lo); i < (me == n - 1 ? ROWS + 2 : hi); i++)
        for (long j = 0; j < COLS; j++)
            grid[i][j] = sor_initial(i, j);
    tsr_barrier();

    uint64_t updates, others;
    sor_iterate(grid, scratch, lo, hi, ITERS, 2, &updates, &others);
    long neighbours = (me > 0) + (me < n - 1);
    double per_iter = (double)updates / (ITERS - 2);
    CHECK(per_iter == (double)neighbours, "%.2f update messages per iteration, expected %ld",
          per_iter, neighbours);
    /* Two barriers: an arrival each from the other nodes, and node 0's
     * answer to each of them (messages to itself do not count). */
    double barrier_msgs = 2.0 * (me == 0 ? n - 1 : 1);
    CHECK((double)others / (ITERS - 2) == barrier_msgs,
          "%.2f other messages per iteration, expected %.0f (barriers)",
          (double)others / (ITERS - 2), barrier_msgs);

    /* Node 0 now reads every row: a new sharing pattern. */
    tsr_hint_phase_change(grid);
    if (me == 0) {
        sor_row *ref = sor_sequential(ITERS);
        long wrong = 0;
        for (long i = 0; i < ROWS + 2; i++)
            wrong += memcmp(ref[i], grid[i], sizeof ref[i]) != 0;
        CHECK(wrong == 0, "%ld rows differ from the sequential run", wrong);
        free(ref);
    }
    free(scratch);
    return munin_finish("producer_consumer");
}
