/* Counts this node's heartbeats (tests/sh/heartbeat_ring.sh): once its comm
 * thread has sent ROUNDS rounds of them, each round must have gone to this
 * node's watchers alone, min(N - 1, 2) of them, whatever N: a beat to
 * every peer would send N - 1 a round. Prints the count per TSR_HEARTBEAT
 * period (four rounds). The wait polls the counter; nothing is ordered by
 * the pauses between looks. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "counter.h"
#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 10) : 8;
    uint64_t watchers = tsr_nodes() - 1 < 2 ? (uint64_t)tsr_nodes() - 1 : 2;
    tsr_barrier();
    while (counter("heartbeat_rounds") < rounds)
        usleep(20000);
    /* The comm thread counts a round's beats before the round: read the
     * rounds on both sides of the beats. */
    uint64_t before = counter("heartbeat_rounds");
    uint64_t sent = counter("heartbeats_sent");
    uint64_t after = counter("heartbeat_rounds");
    int pass = sent >= watchers * before && sent <= watchers * (after + 1);
    printf("node %d: %llu heartbeats in %llu-%llu rounds, %.1f per period: %s\n", tsr_node(),
           (unsigned long long)sent, (unsigned long long)before, (unsigned long long)after,
           4.0 * (double)sent / (double)after, pass ? "PASS" : "FAIL");
    tsr_barrier();
    tsr_finalize();
    return !pass;
}
