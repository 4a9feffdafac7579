/* Fork/join costs 2(N-1) messages (issue 52), as in TreadMarks (Section
 * 2.2.1 of the OpenMP/NOW paper): the fork is one message from node 0 to
 * each other node, carrying what the protocol must send with it, and the
 * join one message from each other node to node 0. Every node zeroes its
 * counters inside a first fork; then node 0 forks ROUNDS times a function
 * that touches no shared memory, and a last fork reads the counters: since
 * the reset, node 0 sent the ROUNDS + 1 forks to each other node, and each
 * other node the ROUNDS + 1 joins (the first fork's included), nothing
 * else. A final round checks that the forks still carry consistency: each
 * node writes its slot, node 0 reads them after the join, and each node
 * reads what node 0 wrote before the next fork. */
/* tsr-test: hlrc -n 2,3,4 */
/* tsr-test: lrc -n 2,3,4 */
#include <stdint.h>
#include <stdio.h>

#include "tessera.h"

#define ROUNDS 5

static int bad;
static long *slots; /* collective: the same address on every node */

static void reset(void *arg) { tsr_stats_reset(); }

static void nothing(void *arg) {}

static void count(void *arg)
{
    int me = tsr_node(), n = tsr_nodes();
    tsr_stats st;
    tsr_stats_get(&st);
    uint64_t sent = st.messages_sent;
    uint64_t want = me == 0 ? (uint64_t)(ROUNDS + 1) * (uint64_t)(n - 1) : ROUNDS + 1;
    if (sent != want)
        bad = 1;
    printf("node %d: %llu messages sent for %d forks and joins at %d nodes (want %llu)\n", me,
           (unsigned long long)sent, ROUNDS + 1, n, (unsigned long long)want);
}

static void write_slot(void *arg) { slots[tsr_node()] = 100 + tsr_node(); }

static void read_total(void *arg)
{
    if (slots[tsr_nodes()] != (long)(intptr_t)arg) {
        printf("node %d: read %ld of node 0, want %ld\n", tsr_node(), slots[tsr_nodes()],
               (long)(intptr_t)arg);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int n = tsr_nodes();
    slots = tsr_alloc(((size_t)n + 1) * sizeof *slots);
    if (tsr_node() != 0) {
        tsr_serve();
        tsr_finalize();
        return bad;
    }
    tsr_fork(reset, NULL);
    tsr_join();
    for (int r = 0; r < ROUNDS; r++) {
        tsr_fork(nothing, NULL);
        tsr_join();
    }
    tsr_fork(count, NULL);
    tsr_join();

    tsr_fork(write_slot, NULL);
    tsr_join();
    long total = 0;
    for (int k = 0; k < n; k++) {
        if (slots[k] != 100 + k) {
            printf("node 0: slot %d holds %ld after the join, want %d\n", k, slots[k], 100 + k);
            bad = 1;
        }
        total += slots[k];
    }
    slots[n] = total;
    tsr_fork(read_total, (void *)(intptr_t)total);
    tsr_join();
    printf("node 0: %s\n", bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
