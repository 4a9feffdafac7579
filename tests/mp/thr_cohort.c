/* Locks held by threads (sync/cohort.c). First, on every node, thread 0
 * holds a lock managed by another node; thread 1 asks for it and waits
 * (lock_local_waits says so); thread 0's release then hands it to thread 1
 * with no message: lock_local_handoffs counts one more, messages_sent (of
 * all the node's threads, the comm thread's too) none between the release
 * and thread 1 holding it. Then 2, and 4, threads of
 * every node increment two counters under two locks: the totals are exact,
 * and each tsr_lock was either a node's acquire or a local hand-off. */
/* tsr-test: threads */
#include <stdio.h>

#include "counter.h"
#include "tessera.h"
#include "thr.h"

#define ROUNDS 300

static long *count;
static int lock_id, bad;
static uint64_t sent_at_release, waits_before;

static uint64_t sent(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.messages_sent;
}

static void handoff(int i, int n)
{
    if (i == 0) {
        /* thread 0 holds the lock (main, before the team) */
        while (counter("lock_local_waits") == waits_before)
            ; /* until thread 1 waits for it */
        sent_at_release = sent();
        tsr_unlock(lock_id);
        return;
    }
    tsr_lock(lock_id);
    uint64_t now = sent();
    if (now != sent_at_release) {
        printf("node %d: a local hand-off sent %llu message(s)\n", tsr_node(),
               (unsigned long long)(now - sent_at_release));
        bad++;
    }
    tsr_unlock(lock_id);
}

static void increments(int i, int n)
{
    for (int r = 0; r < ROUNDS; r++) {
        tsr_lock(1);
        count[0]++;
        tsr_unlock(1);
        tsr_lock(2);
        count[512] += 2; /* another page */
        tsr_unlock(2);
    }
    tsr_barrier_threads(n);
}

static int check_totals(int n, uint64_t acquires0, uint64_t handoffs0)
{
    long want = (long)ROUNDS * n * tsr_nodes();
    tsr_stats s;
    tsr_stats_get(&s);
    uint64_t takes = s.lock_acquires - acquires0 + counter("lock_local_handoffs") - handoffs0;
    int ok = count[0] == want && count[512] == 2 * want && takes == 2ull * ROUNDS * n;
    if (!ok)
        printf("node %d: %d threads: counts %ld %ld want %ld %ld; %llu takes want %d\n",
               tsr_node(), n, count[0], count[512], want, 2 * want, (unsigned long long)takes,
               2 * ROUNDS * n);
    return !ok;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    count = tsr_alloc(2 * 4096);
    lock_id = 16 * tsr_nodes() + (tsr_node() + 1) % tsr_nodes(); /* managed elsewhere */
    uint64_t h0 = counter("lock_local_handoffs");
    waits_before = counter("lock_local_waits"); /* before thread 1 can wait */
    tsr_lock(lock_id);
    /* Every node holds its lock: no manager of this node has a grant to
     * send while its threads hand theirs over. */
    tsr_barrier();
    thr_team(2, handoff);
    if (counter("lock_local_handoffs") != h0 + 1) {
        printf("node %d: %llu local hand-offs, want 1\n", tsr_node(),
               (unsigned long long)(counter("lock_local_handoffs") - h0));
        bad++;
    }
    for (int n = 2; n <= 4; n += 2) {
        if (tsr_node() == 0)
            count[0] = count[512] = 0;
        tsr_barrier();
        tsr_stats s;
        tsr_stats_get(&s);
        uint64_t handoffs = counter("lock_local_handoffs");
        thr_team(n, increments);
        bad += check_totals(n, s.lock_acquires, handoffs);
        tsr_barrier();
    }
    printf("node %d: %s\n", tsr_node(), bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
