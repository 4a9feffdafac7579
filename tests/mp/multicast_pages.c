/* Multicast in replicated sections (OpenMP/NOW, Section 5.4), counted.
 * Each node writes the pages it homes, so after the barrier every other
 * node holds them invalid; then every node reads every page in a
 * replicated section. With multicast on (TSR_MULTICAST tree or ip) and
 * more than two nodes, each home must multicast each of its pages once,
 * offered at its own first read or asked for, and copy it into messages
 * once more than the requests that crossed the multicast (answered all
 * the same, requests_crossed); with TSR_MULTICAST=off, once per other
 * node. Under the lazy protocol (TSR_PROTO=lrc) the same holds for each
 * writer's diffs of its pages, except that diffs_served counts only the
 * requests answered, not the offers (off: once per other node). The sums
 * check the bytes every node got. */
/* tsr-test: ompnow */
/* tsr-test: lrc */
#include <stdio.h>

#include "counter.h"
#include "tessera.h"
#include "util/config.h"

#define PAGES 24
#define PER_PAGE (4096 / sizeof(long))

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    size_t count = PER_PAGE * PAGES * (size_t)n;
    long *a = tsr_alloc(count * sizeof *a);
    for (size_t k = PER_PAGE * PAGES * (size_t)me; k < PER_PAGE * PAGES * (size_t)(me + 1); k++)
        a[k] = (long)k;
    tsr_barrier();
    tsr_stats_reset();

    tsr_replicate_begin();
    long sum = 0;
    for (size_t k = 0; k < count; k++)
        sum += a[k];
    tsr_replicate_end(); /* after its barrier, every node's requests are served */
    int lazy = cfg.proto == PROTO_LRC;
    uint64_t served = counter(lazy ? "diffs_served" : "pages_served");
    uint64_t multicast = counter(lazy ? "diffs_multicast" : "pages_multicast");
    uint64_t taken = counter(lazy ? "diffs_taken" : "pages_taken");
    uint64_t crossed = counter(lazy ? "diff_requests_crossed" : "requests_crossed");
    uint64_t offered = counter(lazy ? "diffs_offered" : "pages_offered");

    long want = (long)(count * (count - 1) / 2);
    int on = cfg.multicast != MULTICAST_OFF && n > 2;
    uint64_t want_served = on ? PAGES + crossed - (lazy ? offered : 0)
                              : (uint64_t)PAGES * (uint64_t)(n - 1);
    if (sum != want || served != want_served || multicast != (on ? PAGES : 0)) {
        printf("node %d: sum %ld (want %ld), pages served %llu (want %llu), multicast %llu\n", me,
               sum, want, (unsigned long long)served, (unsigned long long)want_served,
               (unsigned long long)multicast);
        bad = 1;
    }
    printf("node %d: %d pages %s here, %s %llu times (%llu requests crossed a multicast), "
           "multicast %llu (%llu offered), %llu taken from others' multicasts, at %d nodes %s\n",
           me, PAGES, lazy ? "written" : "homed", lazy ? "their diffs served" : "served",
           (unsigned long long)served, (unsigned long long)crossed,
           (unsigned long long)multicast, (unsigned long long)offered, (unsigned long long)taken,
           n, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
