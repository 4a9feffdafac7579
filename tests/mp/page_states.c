/* The home-based protocol's page states, observed through its metadata.
 * Node 0 homes page A, node 1 (when present) homes page B.
 *   at the home:  HOME_READ -write-> HOME_WRITE -barrier-> HOME_READ
 *                 (cache-only: -barrier-> HOME_STICKY, still writable, and a
 *                 write after it needs no fault)
 *   elsewhere:    READ (fresh zero page) -write-> WRITE (twin) -barrier-> READ
 *                 READ -(home writes, barrier)-> INVALID -read-> READ
 *                 (or, where the barrier prefetches the page, hlrc_prefetch.c:
 *                 READ again at once, inaccessible until read)
 *                 READ -write, barrier, as the only writer-> HOME_READ: the
 *                 home moved here (hlrc_migrate.c), unless that is off
 * With exact write detection (TSR_DETECT=uffd), a home page is HOME_EXACT
 * throughout: writable, and its writes never fault.
 * With one node only the home transitions are checked. */
/* tsr-test: hlrc */
#include <stdio.h>
#include <sys/mman.h>

#include "coherence/hlrc/hlrc.h"
#include <string.h>

#include "memory/region.h"
#include "transport/core.h"
#include "util/config.h"
#include "tessera.h"

static int bad;

static void expect(const char *when, volatile char *addr, int state)
{
    int got = region.meta[page_of((const void *)addr)].state;
    if (got != state) {
        printf("node %d: %s: page state %d, expected %d\n", tsr_node(), when, got, state);
        bad++;
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), two = tsr_nodes() > 1;
    tsr_attr at0 = TSR_ATTR_DEFAULT, at1 = TSR_ATTR_DEFAULT;
    at0.home = at1.home = TSR_HOME_NODE;
    at1.home_node = two ? 1 : 0;
    volatile char *a = tsr_alloc_attr(4096, &at0);
    volatile char *b = tsr_alloc_attr(4096, &at1);

    int exact = region.meta[page_of((const void *)a)].state == HOME_EXACT;
    if (me == 0) {
        expect("home, fresh", a, exact ? HOME_EXACT : HOME_READ);
        a[0] = 1;
        expect("home, after write", a, exact ? HOME_EXACT : HOME_WRITE);
    }
    if (me == 1) {
        expect("cached, fresh zero page", a, READ);
        (void)a[100];
        expect("cached, after read", a, READ);
        a[1] = 2;
        expect("cached, after write", a, WRITE);
    }
    tsr_barrier();
    if (me == 0 && !cfg.cache_only)
        expect("home, after barrier", a, HOME_READ);
    if (me == 0 && cfg.cache_only && !two) {
        expect("home, after barrier (cache-only)", a, exact ? HOME_EXACT : HOME_STICKY);
        tsr_stats st0, st1;
        tsr_stats_get(&st0);
        a[2] = 3;
        tsr_stats_get(&st1);
        if (st1.write_faults != st0.write_faults) {
            printf("node 0: a write to a sticky home page faulted\n");
            bad++;
        }
    }
    if (me == 1) {
        /* Node 1 wrote the page, so the barrier prefetches it where pages
         * are asked of their home (not copied from its memory, nor read
         * one-sided over ucx). */
        const char *t = transport_name();
        int prefetched = cfg.prefetch && !(cfg.fetch_direct && (!strcmp(t, "shm") ||
                                                                 !strcmp(t, "ucx")));
        expect("cached, after barrier (home wrote)", a, prefetched ? READ : INVALID);
        int v = a[0] + a[1];
        expect("cached, after refetch", a, READ);
        if (v != 3) {
            printf("node 1: refetched page holds %d, expected 3\n", v);
            bad++;
        }
    }
    if (two && me == 0) {
        b[5] = 9;
        expect("cached, after write", b, WRITE);
    }
    tsr_barrier();
    /* Node 0 alone diffed page b: the barrier moved b's home here. */
    if (two && me == 0)
        expect("cached, only writer, after barrier", b, hlrc_migrating() ? HOME_READ : READ);
    printf("node %d: page states %s\n", me, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
