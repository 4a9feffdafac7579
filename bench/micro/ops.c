/*
 * tsr_micro's rows of Tessera's own operations: the active-message round
 * trip, page fetches, locks, barriers, and (local) diffs.
 */
#include <stdio.h>

#include "coherence/diff.h"
#include "micro.h"
#include "tessera.h"
#include "transport/transport.h"
#include "util/cpu.h"

void echo_burst(const void *arg, long first, long rounds)
{
    static char out[4096], back[4096];
    for (long i = 0; i < rounds; i++)
        am_echo(1, out, *(const size_t *)arg, back);
}

/* The wake-ups of both sizes, and the page-sized round trip's time; the
 * small one's is paired.c's, beside the raw figure it is compared with. */
void bench_am_echo(void)
{
    for (int s = 0; s < 2; s++) {
        char name[32];
        snprintf(name, sizeof name, "am_echo_%zu", round_trip_sizes[s]);
        tsr_barrier();
        if (tsr_node() == 0)
            warm_up(echo_burst, &round_trip_sizes[s]);
        tsr_barrier();
        uint64_t since = wakeups();
        double t = tsr_node() == 0 ? fastest_burst(echo_burst, &round_trip_sizes[s]) : 0;
        if (s)
            report(name, t, BURST);
        tsr_barrier();
        report_wakeups(name, since, ROUND_TRIPS);
    }
}

/* Node 1 homes and rewrites the pages, so node 0's copies go stale at every
 * barrier; node 0 then times one read per page, each a fault and a fetch.
 * Visited in a scattered order (steps of 101 pages, modulo 256), every fault
 * is a single-page fetch, as readahead only follows runs and short strides;
 * visited in order, readahead batches them. Checked first (tsr_range_read,
 * docs/CAS.md), the pages come in runs of TSR_FETCH_AHEAD and no read faults. */
void bench_page_fetch(int step, int checked, const char *name)
{
    enum { PAGES = 256, ROUNDS = 8 };
    volatile char *a = alloc_homed_at(PAGES * 4096, 1);
    double total = 0;
    uint64_t since = wakeups(), served0 = 0, served1 = 0;
    tsr_counter_get("pages_served", &served0);
    for (int r = 0; r < ROUNDS; r++) {
        if (tsr_node() == 1)
            for (int p = 0; p < PAGES; p++)
                a[p * 4096] = (char)(r + 1);
        tsr_barrier();
        if (tsr_node() == 0) {
            double t0 = now_s();
            if (checked)
                tsr_range_read((const void *)a, PAGES * 4096);
            for (int i = 0; i < PAGES; i++)
                (void)a[(i * step) % PAGES * 4096];
            total += now_s() - t0;
        }
        tsr_barrier();
    }
    report(name, total, PAGES * ROUNDS);
    report_wakeups(name, since, PAGES * ROUNDS);
    /* The pages the home (node 1) served by message: none where they are
     * copied from its memory or read one-sided. */
    tsr_counter_get("pages_served", &served1);
    if (tsr_node() == 1)
        printf("M served_%s %.3f\n", name, (double)(served1 - served0) * 1000 / (PAGES * ROUNDS));
    tsr_free((void *)a);
}

/* Uncontended: node 1 alone takes and returns a lock that node 0 manages
 * (one request/grant round trip plus the release message). Contended: both
 * nodes loop on the lock, and the manager's FIFO queue makes it alternate,
 * so each acquire waits for a hand-off from the other node. */
void bench_lock(void)
{
    enum { ACQUIRES = 2000 };
    tsr_barrier();
    double t0 = now_s();
    if (tsr_node() == 1)
        lock_loop(0, ACQUIRES);
    double alone = now_s() - t0;
    tsr_barrier();
    uint64_t since = wakeups();
    t0 = now_s();
    lock_loop(0, ACQUIRES);
    tsr_barrier();
    double both = now_s() - t0;
    if (tsr_node() == 1)
        printf("M lock_remote %.3f\n", alone / ACQUIRES * 1e6);
    report("lock_handoff", both, 2 * ACQUIRES);
    report_wakeups("lock_handoff", since, 2 * ACQUIRES);
}

/* Contended, with a manager that takes no part (4-node run): nodes 0 and 1
 * loop on a lock that node 2 manages, so a hand-off goes through a third
 * node unless the releaser grants the next holder directly. */
void bench_lock_third(void)
{
    enum { ACQUIRES = 2000, LOCK = 2 };
    tsr_barrier();
    double t0 = now_s();
    if (tsr_node() < 2)
        lock_loop(LOCK, ACQUIRES);
    tsr_barrier();
    report("lock_handoff_3rd", now_s() - t0, 2 * ACQUIRES);
}

void bench_barrier(void)
{
    enum { BARRIERS = 2000 };
    tsr_barrier();
    uint64_t since = wakeups();
    double t0 = now_s();
    for (int i = 0; i < BARRIERS; i++)
        tsr_barrier();
    char name[32];
    snprintf(name, sizeof name, "barrier_%d", tsr_nodes());
    report(name, now_s() - t0, BARRIERS);
    report_wakeups(name, since, BARRIERS);
}

void bench_diff(const char *name, int stride_words, int words_changed)
{
    enum { REPS = 20000 };
    static uint32_t twin[1024], cur[1024];
    static uint8_t diff[DIFF_MAX], page[4096];
    for (int i = 0; i < 1024; i++)
        twin[i] = cur[i] = (uint32_t)i;
    for (int i = 0, n = 0; i < 1024 && n < words_changed; i += stride_words, n++)
        cur[i] = ~cur[i];
    size_t len = 0;
    double t0 = now_s();
    for (int r = 0; r < REPS; r++)
        len = diff_encode((uint8_t *)twin, (uint8_t *)cur, diff);
    double enc = now_s() - t0;
    t0 = now_s();
    for (int r = 0; r < REPS; r++)
        diff_apply(page, diff, len);
    double dec = now_s() - t0;
    char key[64];
    snprintf(key, sizeof key, "diff_encode_%s", name);
    report(key, enc, REPS);
    snprintf(key, sizeof key, "diff_decode_%s", name);
    report(key, dec, REPS);
    if (tsr_node() == 0)
        printf("B %s %zu\n", name, len);
}
