/*
 * What every tsr_micro node run shares: timing a burst, printing a figure,
 * counting comm-thread wake-ups.
 */
#include <stdio.h>
#include <string.h>

#include "micro.h"
#include "tessera.h"
#include "transport/core.h"
#include "util/cpu.h"

const size_t round_trip_sizes[2] = {64, 4096};

/* Seconds of the fastest of BURSTS bursts. Every node taking part runs it,
 * in step. */
double fastest_burst(burst_fn burst, const void *arg)
{
    double best = 0;
    for (int b = 0; b < BURSTS; b++) {
        double t0 = now_s();
        burst(arg, (long)b * BURST + 1, BURST);
        double t = now_s() - t0;
        if (!b || t < best)
            best = t;
    }
    return best;
}

/* After the raw rows, whose two processes spun on both cores, the waiting
 * thread and the peer's comm thread can share one core for tens of
 * milliseconds, taking turns at each sched_yield while the other core
 * idles, until the scheduler moves one: every burst of a row that starts
 * then reads 8-12 us. Bursts run untimed first outlast that; counted, not
 * timed, a slow start only makes them longer. Only a row that node 0 runs
 * alone takes them: a raw ping-pong's two ends would both have to, and
 * under TSR_PROGRESS=spin, four spinning threads on two cores, that many
 * lockstep round trips take minutes. */
void warm_up(burst_fn burst, const void *arg)
{
    for (int b = 0; b < WARMUP_BURSTS; b++)
        burst(arg, (long)b * BURST + 1, BURST);
}

void report(const char *name, double seconds, long count)
{
    if (tsr_node() == 0)
        printf("M %s %.3f\n", name, seconds / (double)count * 1e6);
}

/* Sleeping comm threads woken (the comm_wakeups counter: shm's doorbells;
 * tcp has none), summed over the nodes: each costs more than the rest of a
 * round trip here, and unlike a time it does not depend on the machine's
 * load. */
static uint64_t *wakeups_per_node; /* in shared memory, one per node */

/* Collective, right after tsr_init. */
void wakeups_init(void)
{
    wakeups_per_node = tsr_alloc((size_t)tsr_nodes() * sizeof *wakeups_per_node);
}

uint64_t wakeups(void)
{
    uint64_t v = 0;
    tsr_counter_get("comm_wakeups", &v);
    return v;
}

/* Collective, after the operations' last barrier: node 0 reports the
 * wake-ups of every node since each read `since`, per 1,000 operations. */
void report_wakeups(const char *name, uint64_t since, long ops)
{
    if (strcmp(transport_name(), "shm"))
        return;
    wakeups_per_node[tsr_node()] = wakeups() - since;
    tsr_barrier();
    uint64_t sum = 0;
    for (int i = 0; i < tsr_nodes(); i++)
        sum += wakeups_per_node[i];
    if (tsr_node() == 0)
        printf("M wake_%s %.3f\n", name, (double)sum * 1000 / (double)ops);
    tsr_barrier();
}

void lock_loop(int lock, int times)
{
    for (int i = 0; i < times; i++) {
        tsr_lock(lock);
        tsr_unlock(lock);
    }
}

void *alloc_homed_at(size_t size, int home)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = home;
    return tsr_alloc_attr(size, &attr);
}
