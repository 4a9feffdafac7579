/* A contended lock goes straight from its releaser to the next holder:
 * lock 2's manager, node 2, takes no part but counts what it receives.
 * Node 0 takes the lock; node 1 asks for it (its request goes to node 2,
 * which forwards it to node 0) and waits; node 0 releases: its grant goes
 * to node 1 directly, no release reaches node 2. Node 1 releases with
 * nobody waiting: that release goes to node 2. So node 2 receives two
 * requests, one release and three barrier departures: 6 messages (7 if the
 * hand-off went through it, as under TSR_LOCK_HANDOFF=manager, which this
 * test then expects). */
/* tsr-test: suite -n 3 */
#include <sched.h>
#include <stdio.h>

#include "sync/sync.h"
#include "tessera.h"
#include "util/config.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    tsr_stats s0, s1;
    tsr_barrier();
    tsr_stats_get(&s0);
    tsr_barrier(); /* every node has its first figures before any request */
    if (me == 0)
        tsr_lock(2);
    tsr_barrier();
    if (me == 0) {
        /* Release only once node 1's request, forwarded by node 2, is
         * here: released earlier, the lock would go back to node 2. Under
         * the manager's hand-off every release goes there anyway, and no
         * request is forwarded. */
        while (!cfg.handoff_via_manager && lock_successor(2) != 1)
            sched_yield();
        tsr_unlock(2);
    } else if (me == 1) {
        tsr_lock(2);
        tsr_unlock(2);
    }
    tsr_barrier();
    tsr_stats_get(&s1);
    int releases = cfg.handoff_via_manager ? 2 : 1;
    if (me == 2 && s1.messages_received - s0.messages_received != 5 + (unsigned)releases) {
        printf("node 2: received %llu messages, expected %d (2 requests, %d release(s), 3 "
               "barriers)\n", (unsigned long long)(s1.messages_received - s0.messages_received),
               5 + releases, releases);
        bad = 1;
    }
    printf("node %d: lock_handoff: %s\n", me, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
