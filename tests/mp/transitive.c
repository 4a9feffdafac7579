/* Release consistency is transitive: a write must reach a node that
 * synchronized with the writer only through a third node. Each round:
 *   A writes x (and overwrites its earlier value), releases lock 0;
 *   B acquires lock 0 (seeing A's release), then releases lock 1;
 *   C acquires lock 1 and must read A's new x, although C never took
 *   lock 0 and holds a stale cached copy of x's page from the round before.
 * No barrier orders a round, so only the notices carried by the locks (and
 * passed on by B) can make x visible. x's page is homed in turn at A (a home
 * writing its own page), at B and at C. Roles rotate over the nodes.
 * Release consistency only (set rc): scope consistency promises C nothing
 * of what A wrote under a lock C never took. */
/* tsr-test: rc */
#include <stdio.h>

#include "tessera.h"

#define ROUNDS 60

/* Waits, under `lock`, until *flag reaches `value`. */
static void await(int lock, volatile long *flag, long value)
{
    for (;;) {
        tsr_lock(lock);
        long v = *flag;
        tsr_unlock(lock);
        if (v >= value)
            return;
    }
}

static void post(int lock, volatile long *flag, long value)
{
    tsr_lock(lock);
    *flag = value;
    tsr_unlock(lock);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    volatile long *flag0 = tsr_alloc(sizeof(long)), *flag1 = tsr_alloc(sizeof(long));
    volatile long *x[3];
    for (int h = 0; h < 3; h++) {
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.home = TSR_HOME_NODE;
        attr.home_node = h % n;
        x[h] = tsr_alloc_attr(4096, &attr);
    }
    int bad = 0;
    for (long r = 1; r <= ROUNDS; r++) {
        int a = (int)(r % n), b = (int)((r + 1) % n), c = (int)((r + 2) % n);
        volatile long *v = x[r % 3];
        if (me == c)
            (void)v[0]; /* keep a cached copy, soon stale */
        tsr_barrier();
        if (me == a) {
            v[0] = r;
            v[511] = -r;
            post(0, flag0, r);
        }
        if (me == b) {
            await(0, flag0, r);
            post(1, flag1, r);
        }
        if (me == c) {
            await(1, flag1, r);
            if (v[0] != r || v[511] != -r) {
                printf("node %d: round %ld: read %ld/%ld, want %ld/%ld\n", me, r, v[0], v[511], r, -r);
                bad++;
            }
        }
    }
    tsr_barrier();
    printf("node %d: %d stale reads %s\n", me, bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
