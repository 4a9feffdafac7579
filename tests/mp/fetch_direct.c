/* A home rewrites its pages every round while the other nodes read them
 * between barriers: each round's read must see that round's values, never
 * the copy an earlier round left. The home writes sticky pages (cache-only
 * detection: no fault tells it), so only its knowing that they were copied
 * makes its release announce their new versions. Under TSR_FETCH=direct
 * (memory/peers.h) the copies are taken straight from the home's memory on
 * this host: the readers then send no message while they read, and copy
 * every page once a round; under messages the home learns it from the
 * requests. Copies are direct only from a home on this host over a
 * transport that shares memory (tests/sh/fetch_direct.sh runs the rest). */
/* tsr-test: suite */
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "counter.h"
#include "tessera.h"
#include "transport/core.h"
#include "util/config.h"

#define PAGE 4096
#define P 8
#define ROUNDS 20
#define WORDS (PAGE / sizeof(long))

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    /* What the configuration promises, not what the runtime did: a node
     * that failed to map its home's memory must fail here. */
    int direct = cfg.fetch_direct && cfg.proto != PROTO_LRC && tsr_nodes() > 1 &&
                 !strcmp(transport_name(), "shm") && boot.host[me] == boot.host[0];
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    at.home_node = 0;
    long *a = tsr_alloc_attr((size_t)P * PAGE, &at);
    uint64_t copied0 = counter("pages_copied_direct"), messages = 0;
    for (long r = 1; r <= ROUNDS; r++) {
        if (me == 0)
            for (size_t w = 0; w < P * WORDS; w += 61)
                a[w] = r * 100000 + (long)w;
        tsr_barrier();
        if (me) {
            tsr_stats s0, s1;
            tsr_stats_get(&s0);
            for (size_t w = 0; w < P * WORDS; w += 61)
                if (a[w] != r * 100000 + (long)w && bad++ < 5)
                    printf("node %d, round %ld: word %zu is %ld, want %ld\n", me, r, w, a[w],
                           r * 100000 + (long)w);
            tsr_stats_get(&s1);
            messages += s1.messages_sent - s0.messages_sent;
        }
        tsr_barrier();
    }
    uint64_t copied = counter("pages_copied_direct") - copied0;
    if (me && direct && (copied != (uint64_t)P * ROUNDS || messages)) {
        printf("node %d: %llu pages copied directly (want %d), %llu messages sent while reading "
               "(want 0)\n", me, (unsigned long long)copied, P * ROUNDS,
               (unsigned long long)messages);
        bad++;
    }
    if (!direct && copied) {
        printf("node %d: %llu pages copied directly where no copy can be\n", me,
               (unsigned long long)copied);
        bad++;
    }
    tsr_finalize();
    if (!bad)
        printf("fetch_direct: node %d ok (%s)\n", me, me == 0 ? "home" : direct ? "direct copies" : "messages");
    return bad != 0;
}
