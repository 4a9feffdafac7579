/* A range check fetches its invalid pages from their home in runs of
 * TSR_FETCH_AHEAD pages, one exchange each, where faults would have grown
 * their readahead from one page (1, 2, 4, ... TSR_FETCH_AHEAD). Node 0
 * homes and writes P pages; after a barrier each other node checks them
 * for reading: exactly ceil(P / TSR_FETCH_AHEAD) requests, every page
 * fetched once, no fault while reading them. A node that shares a host
 * with the home under TSR_FETCH=direct copies all P pages from the home's
 * memory instead (pages_copied_direct), as a node over ucx reads them
 * one-sided (pages_got_onesided), and sends no request; any other mix is
 * wrong. */
/* tsr-test: hlrc */
#include <stdio.h>

#include "counter.h"
#include "tessera.h"
#include "util/config.h"

#define PAGE 4096
#define P 64

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    at.home_node = 0;
    char *a = tsr_alloc_attr((size_t)P * PAGE, &at);
    if (me == 0)
        for (size_t i = 0; i < P; i++)
            a[i * PAGE + 9] = (char)(i + 1);
    tsr_barrier();
    if (me) {
        tsr_stats s0, s1;
        uint64_t c0 = counter("pages_copied_direct") + counter("pages_got_onesided");
        tsr_stats_get(&s0);
        tsr_range_read(a, (size_t)P * PAGE);
        tsr_stats_get(&s1);
        uint64_t c1 = counter("pages_copied_direct") + counter("pages_got_onesided"), f0 = counter("faults_taken");
        for (size_t i = 0; i < P; i++)
            bad += a[i * PAGE + 9] != (char)(i + 1);
        uint64_t f1 = counter("faults_taken");
        uint64_t sent = s1.messages_sent - s0.messages_sent;
        uint64_t copied = c1 - c0;
        uint64_t want = copied == P ? 0 : (P + cfg.fetch_ahead - 1) / cfg.fetch_ahead;
        if ((copied != 0 && copied != P) || sent != want ||
            s1.page_fetches - s0.page_fetches != P || f1 != f0) {
            printf("node %d: %llu requests (expected %llu), %llu pages fetched (expected %d), "
                   "%llu copied from the home (expected 0 or %d), %llu faults (expected 0)\n",
                   me, (unsigned long long)sent, (unsigned long long)want,
                   (unsigned long long)(s1.page_fetches - s0.page_fetches), P,
                   (unsigned long long)copied, P, (unsigned long long)(f1 - f0));
            bad++;
        }
    }
    tsr_finalize();
    if (!bad && me == 0)
        printf("cas_exchange: ok\n");
    return bad != 0;
}
