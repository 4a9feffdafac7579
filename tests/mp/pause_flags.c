/* Pause flags pass data along a chain of nodes with no barrier: in each
 * round node i waits for its flag, checks that it sees what every node
 * before it wrote (in pages homed anywhere), writes its own slot and
 * raises the next node's flag; node 0 closes the ring. A set that did not
 * act as a release, or a wait that did not act as an acquire, shows a
 * stale slot; a lost set hangs (the test's time limit). A flag raised,
 * lowered and raised again must still wake its waiter. And a clear must
 * have taken effect when it returns: node 1 lowers a flag and tells
 * another node by a second flag, which raises the first again; were the
 * clear still on its way to the manager (it once was: no answer), the
 * set could arrive first and be undone, and the waiters would hang.
 * Release consistency only (set rc): under scope consistency a flag, a
 * lock underneath, carries only the writes made while it is held. */
/* tsr-test: rc */
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

#define ROUNDS 5
#define STRIDE 1024 /* longs: one slot per 8 KiB, so slots lie on different pages */

static long value(int round, int node) { return 1000L * round + node + 1; }

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    long *slot = tsr_alloc(sizeof(long) * STRIDE * (size_t)n);
    for (int r = 0; r < ROUNDS; r++) {
        int base = r * (n + 1);
        if (me != 0)
            tsr_flag_wait(base + me);
        for (int i = 0; i < me; i++)
            if (slot[i * STRIDE] != value(r, i)) {
                printf("node %d, round %d: slot %d holds %ld, want %ld\n", me, r, i,
                       slot[i * STRIDE], value(r, i));
                bad = 1;
            }
        slot[me * STRIDE] = value(r, me);
        tsr_flag_set(base + me + 1);
        if (me == 0) {
            tsr_flag_wait(base + n);
            for (int i = 0; i < n; i++)
                if (slot[i * STRIDE] != value(r, i)) {
                    printf("node 0, end of round %d: slot %d holds %ld, want %ld\n", r, i,
                           slot[i * STRIDE], value(r, i));
                    bad = 1;
                }
        }
    }
    /* Raised, lowered, raised: the waiter is woken (and nobody hangs). */
    int last = ROUNDS * (n + 1);
    if (me == 0) {
        tsr_flag_set(last);
        tsr_flag_clear(last);
        tsr_flag_set(last);
    } else {
        tsr_flag_wait(last);
    }
    for (int k = 0; n > 1 && k < ROUNDS; k++) {
        int flag = last + 1 + 2 * k, told = flag + 1, setter = n > 2 ? 2 : 0;
        if (me == 0)
            tsr_flag_set(flag);
        tsr_barrier();
        if (me == 1) {
            tsr_flag_clear(flag);
            tsr_flag_set(told);
        } else if (me == setter) {
            tsr_flag_wait(told);
            tsr_flag_set(flag);
        }
        tsr_flag_wait(flag);
    }
    printf("node %d: pause flags, %d rounds at %d nodes %s\n", me, ROUNDS, n,
           bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
