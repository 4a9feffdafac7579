/* Counts the departures of ROUNDS barriers (tests/sh/barrier_tree.sh):
 * each node passes the departure to its children in the tree (sync/tree.h),
 * so the job sends N - 1 departures a barrier as with a central barrier,
 * but no node more than 8 (node 0 sent N - 1); node 0 checks both from
 * every node's count (departures_sent, which only the barrier counts: on
 * a loaded machine one run's messages_sent held N - 1 more at node 0,
 * not yet explained). */
#include <stdio.h>
#include <stdlib.h>

#include "counter.h"
#include "tessera.h"

#define MOST_CHILDREN 8

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 10, n = tsr_nodes(), me = tsr_node();
    long *sent = tsr_alloc((size_t)n * sizeof *sent);
    tsr_barrier();
    uint64_t before = counter("departures_sent");
    for (int r = 0; r < rounds; r++)
        tsr_barrier();
    sent[me] = (long)(counter("departures_sent") - before);
    tsr_barrier();
    int pass = 1;
    if (me == 0) {
        long sum = 0, most = 0;
        int busiest = 0;
        for (int j = 0; j < n; j++) {
            sum += sent[j];
            if (sent[j] > most)
                most = sent[j], busiest = j;
        }
        long down = n - 1 < MOST_CHILDREN ? n - 1 : MOST_CHILDREN;
        pass = sum == (n - 1L) * rounds && most <= (long)MOST_CHILDREN * rounds &&
               sent[0] == down * rounds;
        printf("barrier_tree %d nodes: %.1f departures a barrier in all, node 0 sends %.1f, "
               "node %d the most: %.1f: %s\n", n, (double)sum / rounds, (double)sent[0] / rounds,
               busiest, (double)most / rounds, pass ? "PASS" : "FAIL");
    }
    tsr_barrier();
    tsr_finalize();
    return !pass;
}
