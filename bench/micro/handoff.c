/*
 * tsr_micro's hand-off ablation: a contended lock under TSR_LOCK_HANDOFF=direct
 * (TreadMarks' hand-off) and manager, in time and in messages.
 */
#include <stdio.h>

#include "micro.h"
#include "tessera.h"
#include "util/cpu.h"

/* Contended lock `lock`, taken ACQUIRES times by each of nodes 0 and 1:
 * the time per acquire, the messages every node sent per acquire, and the
 * messages the lock's manager received per acquire. The loop is measured
 * from barrier to barrier (the comm threads' forwards and grants are sent
 * by then), less what one barrier costs, measured first. */
void bench_handoff(const char *name, int lock)
{
    enum { ACQUIRES = 2000 };
    int me = tsr_node(), n = tsr_nodes();
    volatile uint64_t *sent = tsr_alloc((size_t)n * sizeof *sent), *got = tsr_alloc(sizeof *got);
    tsr_stats s0, s1, s2;
    tsr_barrier();
    tsr_stats_get(&s0);
    tsr_barrier();
    tsr_stats_get(&s1);
    double t0 = now_s();
    if (me < 2)
        lock_loop(lock, ACQUIRES);
    tsr_barrier();
    double t = now_s() - t0;
    tsr_stats_get(&s2);
    sent[me] = s2.messages_sent - 2 * s1.messages_sent + s0.messages_sent;
    if (me == lock % n)
        *got = s2.messages_received - 2 * s1.messages_received + s0.messages_received;
    tsr_barrier();
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += sent[i];
    report(name, t, 2 * ACQUIRES);
    if (me == 0)
        printf("M %s_msgs %.3f\nM %s_mgr %.3f\n", name, (double)total / (2 * ACQUIRES), name,
               (double)*got / (2 * ACQUIRES));
    tsr_barrier();
    tsr_free((void *)got);
    tsr_free((void *)sent);
}
