/* What scope consistency changes (docs/ARCHITECTURE.md, "Memory models"):
 * node 0 writes X under lock 1, then Y under lock 2; node 2, which holds
 * valid copies of both pages, takes lock 2 until it sees Y. Under release
 * consistency (hlrc) that grant brings both notices: 2 invalidations, and
 * X reads 1 at once. Under scope consistency it brings Y's alone: 1
 * invalidation, and X keeps its old value until node 2 takes lock 1.
 * X and Y are on pages of their own, homed at node 1, so that node 0's
 * writes are diffs and neither node 0 nor node 2 is a home.
 *
 * Run twice: with the default protocol (scope consistency if TSR_PROTO is
 * scope) and with TSR_PROTO_SCOPE named in the attributes. */
/* tsr-test: hlrc -n 3 */
#include <stdlib.h>
#include <string.h>

#include "node_check.h"
#include "tessera.h"

#define PAGE_LONGS (4096 / sizeof(long))

static uint64_t invalidations(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.invalidations;
}

/* One round on a fresh allocation kept by `proto`, with locks lx and ly. */
static void round_of(const char *name, tsr_proto_t proto, int scoped, int lx, int ly)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 1;
    attr.proto = proto;
    volatile long *x = tsr_alloc_attr(2 * 4096, &attr), *y = x + PAGE_LONGS;
    if (tsr_node() == 0) {
        tsr_lock(lx);
        *x = 1;
        tsr_unlock(lx);
        tsr_lock(ly);
        *y = 1;
        tsr_unlock(ly);
    } else if (tsr_node() == 2) {
        uint64_t before = invalidations();
        for (long seen = 0; !seen;) {
            tsr_lock(ly);
            seen = *y;
            tsr_unlock(ly);
        }
        uint64_t got = invalidations() - before;
        CHECK(got == (scoped ? 1u : 2u), "%s: lock %d's grant made %llu invalidations, "
              "expected %d", name, ly, (unsigned long long)got, scoped ? 1 : 2);
        long early = *x;
        CHECK(early == (scoped ? 0 : 1), "%s: X outside lock %d reads %ld, expected %d", name,
              lx, early, scoped ? 0 : 1);
        tsr_lock(lx);
        CHECK(*x == 1, "%s: X under lock %d reads %ld, expected 1", name, lx, *x);
        tsr_unlock(lx);
    }
    tsr_barrier();
    CHECK(*x == 1 && *y == 1, "%s: after the barrier X, Y read %ld, %ld", name, *x, *y);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (tsr_nodes() != 3) {
        printf("scope_locks: needs 3 nodes, not %d\n", tsr_nodes());
        tsr_finalize();
        return 1;
    }
    const char *env = getenv("TSR_PROTO");
    int me = tsr_node();
    round_of("default protocol", TSR_PROTO_JOB, env && !strcmp(env, "scope"), 1, 2);
    round_of("TSR_PROTO_SCOPE", TSR_PROTO_SCOPE, 1, 3, 4);
    tsr_finalize();
    return check_verdict(me, "scope_locks");
}
