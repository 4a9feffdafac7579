/* A release's diffs written one-sided into their home's memory
 * (coherence/hlrc/hlrc_onesided.c). Every node, the home among them,
 * writes its own bytes of P pages homed at node 0 each round, the nodes'
 * bytes interleaved one by one so that every word of every page is written
 * by several nodes at once; after a barrier every node checks every byte
 * of the round. Then the nodes add to a counter on one of the home's
 * pages under a lock, each reading the others' sums. Over ucx with
 * TSR_DIFF_PUT=onesided every diff is written one-sided and the home
 * applies no diff message at all; under any other transport, or by
 * message, nothing is. */
/* tsr-test: hlrc */
#include <stdio.h>
#include <string.h>

#include "counter.h"
#include "tessera.h"
#include "transport/core.h"
#include "util/config.h"

#define PAGE 4096
#define P 6
#define ROUNDS 10
#define ADDS 40

static unsigned char value(long r, size_t i) { return (unsigned char)(r * 31 + i * 7 + i / 251); }

static int check_round(const unsigned char *a, long r)
{
    int bad = 0;
    for (size_t i = 0; i < (size_t)P * PAGE; i++)
        if (a[i] != value(r, i) && bad++ < 5)
            printf("node %d, round %ld: byte %zu is %u, want %u\n", tsr_node(), r, i, a[i],
                   value(r, i));
    return bad;
}

/* Under the lock each node adds 1 to the counter and checks the others'
 * adds are all there (the lock's notices invalidate its copy). */
static int add_under_lock(long *sum, long *mine)
{
    int bad = 0;
    for (int k = 0; k < ADDS; k++) {
        tsr_lock(1);
        long others = 0;
        for (int n = 0; n < tsr_nodes(); n++)
            others += n == tsr_node() ? 0 : mine[n];
        if (*sum != others + mine[tsr_node()] && bad++ < 3)
            printf("node %d: sum %ld under the lock, want %ld\n", tsr_node(), *sum,
                   others + mine[tsr_node()]);
        (*sum)++;
        mine[tsr_node()]++;
        tsr_unlock(1);
    }
    return bad;
}

/* A count that must hold, printed when it does not; 1 then. */
static int count_ok(int holds, const char *what, uint64_t n)
{
    if (!holds)
        printf("node %d: %llu %s\n", tsr_node(), (unsigned long long)n, what);
    return !holds;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), nodes = tsr_nodes(), bad = 0;
    /* What the configuration promises, not what the runtime did. */
    int onesided = cfg.diff_put && cfg.proto != PROTO_LRC && nodes > 1 &&
                   !strcmp(transport_name(), "ucx");
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    at.home_node = 0;
    unsigned char *a = tsr_alloc_attr((size_t)P * PAGE, &at);
    long *sum = tsr_alloc_attr(PAGE, &at);
    long *mine = sum + 8; /* each node's adds, on the counter's page */
    tsr_stats st;
    tsr_stats_get(&st);
    uint64_t put0 = counter("diffs_put_onesided"), applied0 = st.diffs_applied;
    for (long r = 1; r <= ROUNDS; r++) {
        for (size_t i = (size_t)me; i < (size_t)P * PAGE; i += (size_t)nodes)
            a[i] = value(r, i);
        tsr_barrier();
        bad += check_round(a, r);
        tsr_barrier();
    }
    bad += add_under_lock(sum, mine);
    tsr_barrier();
    if (*sum != (long)nodes * ADDS) {
        printf("node %d: sum %ld after the adds, want %ld\n", me, *sum, (long)nodes * ADDS);
        bad++;
    }
    uint64_t put = counter("diffs_put_onesided") - put0;
    tsr_stats_get(&st);
    uint64_t applied = st.diffs_applied - applied0;
    bad += count_ok(!(me && onesided) || put >= (uint64_t)P * ROUNDS + ADDS,
                    "diffs put one-sided, fewer than the releases wrote", put);
    bad += count_ok(!(me == 0 && onesided) || !applied, "diffs applied by message at the home",
                    applied);
    bad += count_ok(onesided || !put, "diffs put one-sided where none can be", put);
    tsr_finalize();
    if (!bad)
        printf("diff_onesided: node %d ok (%s)\n", me,
               me == 0 ? "home" : onesided ? "one-sided diffs" : "diffs by message");
    return bad != 0;
}
