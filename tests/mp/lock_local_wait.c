/* A free lock that this node manages is granted inside tsr_lock, before
 * any wait begins: taking it must not announce a wait, which would make
 * the comm thread poll for TSR_SPIN_US for an answer that never comes (at
 * one node, BARNES' 2.1 million acquires kept the comm thread polling the
 * whole run, and took 4.0-4.3 s where 2.0-2.7 s now). Each node takes
 * the locks it manages (id mod N) and counts reply_waits: none. A lock
 * managed by another node must wait for the grant's message: the same
 * count grows there, so the counter is shown to count. */
/* tsr-test: suite */
#include <stdio.h>

#include "tessera.h"

#define ROUNDS 200

static uint64_t waits(void)
{
    uint64_t v = 0;
    if (tsr_counter_get("reply_waits", &v))
        fprintf(stderr, "node %d: no counter reply_waits\n", tsr_node());
    return v;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    tsr_barrier();
    uint64_t w0 = waits();
    for (int r = 0; r < ROUNDS; r++) {
        int id = (r % 8) * n + me; /* managed here */
        tsr_lock(id);
        tsr_unlock(id);
    }
    uint64_t local = waits() - w0;
    bad |= local != 0;
    tsr_barrier();
    uint64_t remote = 0;
    if (n > 1) {
        uint64_t w1 = waits();
        for (int r = 0; r < ROUNDS; r++) {
            int id = (r % 8) * n + (me + 1) % n; /* managed by the next node */
            tsr_lock(id);
            tsr_unlock(id);
        }
        remote = waits() - w1;
        bad |= remote == 0;
    }
    printf("node %d: %d free locks managed here: %llu waits (want 0); managed elsewhere: %llu "
           "waits (want some if n > 1) %s\n", me, ROUNDS, (unsigned long long)local,
           (unsigned long long)remote, bad ? "FAIL" : "PASS");
    tsr_barrier();
    tsr_finalize();
    return bad != 0;
}
