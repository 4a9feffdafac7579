/* A release costs what changed since the previous one, not all the memory
 * the node has ever written (counted with release_pages and write_notices).
 *
 * Node 0 homes N pages and writes them all; every other node reads them
 * all. After one release that announces what they copied, node 0 takes
 * and releases a lock L times, writing one of the pages each time, while
 * the others wait:
 *   TSR_WRITE_DETECT=all: each pair's write faults, so each pair examines
 *     one page, and announces it where another node holds a copy;
 *   cache-only detection: as `all`, since the others' copies made the
 *     pages write-protected again (a home page stays sticky only while no
 *     other node copies it; hlrc_protect_sticky); alone, node 0 keeps them
 *     sticky, and its releases examine nothing;
 *   exact detection (TSR_DETECT=uffd, home pages HOME_EXACT): the kernel
 *     reports each pair's one written page, with no fault: as `all`.
 * Either way at most 2 pages a pair (an acquire also ends an interval),
 * with N far above that, and the lock's grants carry no notice node 0
 * already has. Then node 1 re-reads R pages: the home announces none,
 * since none is written. A sticky page's release cost, the copied ring, is
 * counted by tests/mp/exact_home.c's and SOR's runs under segv. */
#include <stdio.h>

#include "coherence/hlrc/hlrc.h"
#include "memory/region.h"
#include "tessera.h"
#include "counter.h"
#include "util/config.h"

#define PAGE 4096
#define N 2048
#define L 200
#define R 10

static int bad;

/* What the release path does, as counted: pages examined, notices made,
 * bytes received. */
typedef struct work {
    uint64_t walked, notices, bytes;
} work;

static work work_now(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return (work){counter("release_pages"), counter("write_notices"), s.bytes_received};
}

static void check(const char *what, uint64_t got, uint64_t lo, uint64_t hi)
{
    if (got < lo || got > hi) {
        printf("node %d: %s: %llu, expected %llu..%llu\n", tsr_node(), what,
               (unsigned long long)got, (unsigned long long)lo, (unsigned long long)hi);
        bad++;
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), others = tsr_nodes() > 1;
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    volatile char *mem = tsr_alloc_attr((size_t)N * PAGE, &attr);
    /* Alone, node 0 keeps its pages sticky under cache-only detection. */
    int sticky = cfg.cache_only && !others &&
                 region.meta[page_of((const void *)mem)].state != HOME_EXACT;
    if (me == 0)
        for (int p = 0; p < N; p++)
            mem[(size_t)p * PAGE] = 1;
    tsr_barrier();
    long sum = 0;
    if (me != 0)
        for (int p = 0; p < N; p++)
            sum += mem[(size_t)p * PAGE];
    tsr_barrier();

    work w0, w1;
    if (me == 0) {
        /* Node 0 may have left the barrier's release before the others
         * fetched: one release now announces what they copied. */
        tsr_lock(0);
        tsr_unlock(0);
        w0 = work_now();
        for (int i = 0; i < L; i++) {
            tsr_lock(tsr_nodes() - 1);
            mem[(size_t)i * PAGE] = 2;
            tsr_unlock(tsr_nodes() - 1);
        }
        w1 = work_now();
        check("pages examined by the loop's releases", w1.walked - w0.walked, sticky ? 0 : L,
              sticky ? 0 : 2 * L);
        check("notices made by the loop's releases", w1.notices - w0.notices,
              others ? L : 0, others ? L : 0);
        /* A grant carries what the acquirer was not given yet, not every
         * notice the lock has gathered (N of them after the first pair). */
        check("bytes received by the loop", w1.bytes - w0.bytes, 0, L * 128);
    }
    tsr_barrier();
    if (me == 0)
        w0 = work_now();
    if (me == 1)
        for (int p = 0; p < R; p++)
            sum += mem[(size_t)p * PAGE];
    tsr_barrier();
    if (me == 0) {
        tsr_lock(0); /* a release after every fetch of the interval */
        tsr_unlock(0);
        w1 = work_now();
        check("notices made for re-read pages", w1.notices - w0.notices, 0, 0);
    }
    long want = me == 0 ? 0 : me == 1 ? N + 2 * R : N;
    if (sum != want) {
        printf("node %d: read sum %ld, expected %ld\n", me, sum, want);
        bad++;
    }
    tsr_finalize();
    if (!bad)
        printf("node %d: PASS\n", me);
    return bad != 0;
}
