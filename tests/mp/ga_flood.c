/* Themis, many requests in flight: each node issues 20,000 asynchronous
 * reads with one signal, then 20,000 asynchronous writes, to distinct words
 * of the next node's segment, without waiting in between. An allocation
 * keeps at most 2,048 requests in flight (wire.c), so the engines must wait
 * for replies mid-stream, while the replies' handlers take the engine's
 * lock: a wait under that lock would hang here. Every value is checked. */
/* tsr-test: ga */
#include <stdio.h>
#include <stdlib.h>

#include "tessera_ga.h"

#define WORDS 20000

static uint64_t pattern(int node, int i, int round)
{
    return (uint64_t)node << 40 | (uint64_t)round << 32 | (uint64_t)i;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), next = (me + 1) % n;
    tsr_ga *ga = tsr_ga_alloc(WORDS * 8, NULL);
    uint64_t *mine = tsr_ga_local(ga);
    for (int i = 0; i < WORDS; i++)
        mine[i] = pattern(me, i, 0);
    tsr_ga_barrier();
    uint64_t *got = calloc(WORDS, 8);
    tsr_ga_signal sig;
    tsr_ga_signal_init(&sig);
    for (int i = 0; i < WORDS; i++)
        tsr_ga_read64_async(ga, next, (size_t)i * 8, &got[i], &sig);
    tsr_ga_signal_wait(&sig);
    long bad = 0;
    for (int i = 0; i < WORDS; i++)
        bad += got[i] != pattern(next, i, 0);
    tsr_ga_barrier();
    for (int i = 0; i < WORDS; i++)
        tsr_ga_write64_async(ga, next, (size_t)i * 8, pattern(me, i, 1));
    tsr_ga_barrier();
    int prev = (me + n - 1) % n;
    for (int i = 0; i < WORDS; i++)
        bad += mine[i] != pattern(prev, i, 1);
    printf("node %d: %ld of %d words wrong after the floods %s\n", me, bad, 2 * WORDS,
           bad ? "FAIL" : "PASS");
    free(got);
    tsr_ga_free(ga);
    tsr_finalize();
    return bad != 0;
}
