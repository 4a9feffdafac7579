/* A multi-page buffer handed from node to node through a lock: each node in
 * turn (ordered by a turn counter protected by the same lock) checks the
 * previous writer's contents and overwrites the buffer with its own. Only
 * the lock orders the accesses: no barrier between hand-offs. */
/* tsr-test: suite */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "tessera.h"

#define WORDS (5 * 1024 + 17) /* a little over 5 pages of uint32_t */
#define HANDOFFS_PER_NODE 20

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    long *turn = tsr_alloc(sizeof(long));
    uint32_t *buf = tsr_alloc(WORDS * sizeof(uint32_t));
    int bad = 0, done = 0;
    while (done < HANDOFFS_PER_NODE) {
        tsr_lock(7);
        long t = *turn;
        if (t % n == me) {
            for (int i = 0; i < WORDS; i++)
                bad += buf[i] != (uint32_t)(t ? (t - 1) * 7919 + i : 0);
            for (int i = 0; i < WORDS; i++)
                buf[i] = (uint32_t)(t * 7919 + i);
            *turn = t + 1;
            done++;
        }
        tsr_unlock(7);
    }
    tsr_barrier();
    printf("node %d: %d hand-offs, %d wrong values %s\n", me, done, bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
