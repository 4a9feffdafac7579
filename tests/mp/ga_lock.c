/* Themis under locks, barriers and flags (the paper flushed and
 * invalidated its cache at every synchronization event): every node adds 1
 * to a counter in node 0's segment ROUNDS times under tsr_lock, reading it
 * and writing it back through the global address space, and the same to a
 * counter in the last node's segment under another lock with asynchronous
 * writes. A critical section that read a stale cached line, or whose write
 * stayed in the writer's cache past tsr_unlock, loses an increment. After
 * tsr_barrier (not tsr_ga_barrier) every node must read both totals; then
 * node 0 hands a value to each other node through a pause flag. */
/* tsr-test: ga */
#include <stdio.h>

#include "node_check.h"
#include "tessera_ga.h"

#define ROUNDS 100
#define HANDOFF 8 /* where node 0 puts the value it hands over by a flag */

static void add_under_lock(tsr_ga *ga, int owner, int lock, int async)
{
    tsr_lock(lock);
    uint64_t v = tsr_ga_read64(ga, owner, 0);
    if (async)
        tsr_ga_write64_async(ga, owner, 0, v + 1);
    else
        tsr_ga_write64(ga, owner, 0, v + 1);
    tsr_unlock(lock);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), last = n - 1;
    tsr_ga *ga = tsr_ga_alloc(16, NULL);
    /* Each node first caches the counters' lines, so a lock that does not
     * invalidate them shows at once. */
    tsr_ga_read64(ga, 0, 0);
    tsr_ga_read64(ga, last, 0);
    for (int i = 0; i < ROUNDS; i++) {
        add_under_lock(ga, 0, 1, 0);
        add_under_lock(ga, last, 2, 1);
    }
    tsr_barrier();
    uint64_t first = tsr_ga_read64(ga, 0, 0), second = tsr_ga_read64(ga, last, 0);
    CHECK(first == (uint64_t)ROUNDS * n, "counter at node 0 is %llu, expected %llu",
          (unsigned long long)first, (unsigned long long)ROUNDS * n);
    CHECK(second == (uint64_t)ROUNDS * n, "counter at node %d is %llu, expected %llu", last,
          (unsigned long long)second, (unsigned long long)ROUNDS * n);
    for (int j = 1; j < n; j++) {
        if (me == 0) {
            tsr_ga_write64_async(ga, last, HANDOFF, 1000 + j);
            tsr_flag_set(j);
        } else if (me == j) {
            tsr_flag_wait(j);
            uint64_t v = tsr_ga_read64(ga, last, HANDOFF);
            CHECK(v == 1000 + (uint64_t)j, "value handed over by flag %d is %llu", j,
                  (unsigned long long)v);
        }
        tsr_barrier();
    }
    tsr_ga_free(ga);
    int status = check_verdict(me, "ga_lock");
    tsr_finalize();
    return status;
}
