/* Threads of a node fault together on the same invalid pages: each page is
 * fetched once, however their faults interleave (the second thread's fault
 * waits for the first one's fetch and finds the page readable). Node 0,
 * the home of every page, writes them all; every other node then reads
 * them with 2, then 4 threads that start together, and counts what
 * brought the pages: exactly one page fetch (home-based protocol) or one
 * diff request (lazy protocol: node 0 is each page's one writer) per
 * page. Prefetching at barriers is off: it would bring the second round's
 * pages before any thread faults on them. */
/* tsr-test: threads */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "counter.h"
#include "tessera.h"
#include "thr.h"

#define PAGES 32
#define LONGS (PAGES * 4096 / sizeof(long))

static long *mem;
static long want;
static int errors[THR_MAX];
static pthread_barrier_t start;

static void reader(int i, int n)
{
    pthread_barrier_wait(&start); /* all threads fault on page 0 at once */
    long sum = 0;
    for (size_t k = 0; k < LONGS; k += 512)
        sum += mem[k];
    errors[i] = sum != want;
}

static uint64_t fetches(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.page_fetches + counter("diff_requests");
}

int main(int argc, char **argv)
{
    setenv("TSR_PREFETCH", "off", 1);
    tsr_init(&argc, &argv);
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE; /* the lazy protocol ignores homes */
    attr.home_node = 0;
    mem = tsr_alloc_attr(PAGES * 4096, &attr);
    int bad = 0;
    for (int n = 2; n <= 4; n += 2) {
        want = 0;
        for (size_t k = 0; k < LONGS; k += 512)
            want += (long)(k * n + 1);
        if (tsr_node() == 0)
            for (size_t k = 0; k < LONGS; k += 512)
                mem[k] = (long)(k * n + 1);
        tsr_barrier();
        uint64_t f0 = fetches();
        pthread_barrier_init(&start, NULL, (unsigned)n);
        thr_team(n, reader);
        pthread_barrier_destroy(&start);
        uint64_t got = fetches() - f0, expect = tsr_node() ? PAGES : 0;
        for (int i = 0; i < n; i++)
            bad += errors[i];
        if (got != expect) {
            printf("node %d: %d threads: %llu page fetches and diff requests, want %llu\n", tsr_node(), n,
                   (unsigned long long)got, (unsigned long long)expect);
            bad++;
        }
        tsr_barrier();
    }
    printf("node %d: %s\n", tsr_node(), bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
