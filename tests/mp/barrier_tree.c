/* Counts the messages of ROUNDS barriers (tests/sh/barrier_tree.sh): the
 * arrivals climb the tree (sync/tree.h, sync/gather.c), each node sending
 * its parent one for its part, and the departure comes down it, each node
 * passing it to its children; so the job sends N - 1 of each a barrier as
 * with a central barrier, but node 0 reads min(N - 1, 8) arrivals and
 * sends as many departures (it read and sent N - 1), and no node more
 * than 8. Node 0 checks this from every node's counts (departures_sent,
 * arrivals_sent, arrivals_received, which only the barrier counts: on a
 * loaded machine one run's messages_sent held N - 1 more at node 0, not
 * yet explained). Each node but node 0 sends exactly one arrival a
 * barrier, so each gathers its part into one. What a node reads is
 * counted by its comm thread, which may read a child's arrival at the
 * barrier after the window, or before it, before the application thread
 * reads the counter (its children leave first): the reads may be off by
 * a node's children at each end of the window (8 in 80 runs at 80 nodes,
 * node 20 reading 81 in 10 barriers). */
#include <stdio.h>
#include <stdlib.h>

#include "counter.h"
#include "tessera.h"

#define MOST_CHILDREN 8

static const char *const names[] = {"departures_sent", "arrivals_sent", "arrivals_received"};
#define KINDS 3

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 10, n = tsr_nodes(), me = tsr_node();
    long *count = tsr_alloc((size_t)n * KINDS * sizeof *count);
    tsr_barrier();
    uint64_t before[KINDS];
    for (int k = 0; k < KINDS; k++)
        before[k] = counter(names[k]);
    for (int r = 0; r < rounds; r++)
        tsr_barrier();
    for (int k = 0; k < KINDS; k++)
        count[k * n + me] = (long)(counter(names[k]) - before[k]);
    tsr_barrier();
    int pass = 1;
    if (me == 0) {
        long down = n - 1 < MOST_CHILDREN ? n - 1 : MOST_CHILDREN;
        printf("barrier_tree %d nodes:", n);
        for (int k = 0; k < KINDS; k++) {
            long sum = 0, most = 0, *c = count + k * n;
            int busiest = 0;
            for (int j = 0; j < n; j++) {
                sum += c[j];
                if (c[j] > most)
                    most = c[j], busiest = j;
            }
            /* Node 0 sends no arrival; each other node sends one. */
            long at0 = k == 1 ? 0 : down * rounds;
            /* Reads may be off by a node's children (above). */
            int reads = k == 2;
            long off = reads ? n - 1 : 0, off0 = reads ? down : 0;
            pass &= labs(sum - (n - 1L) * rounds) <= off && labs(c[0] - at0) <= off0 &&
                    most <= (long)MOST_CHILDREN * (rounds + reads);
            printf("%s %.1f %s a barrier in all, node 0 %.1f, node %d the most %.1f", k ? ";" : "",
                   (double)sum / rounds, names[k], (double)c[0] / rounds, busiest,
                   (double)most / rounds);
        }
        printf(": %s\n", pass ? "PASS" : "FAIL");
    }
    tsr_barrier();
    tsr_finalize();
    return !pass;
}
