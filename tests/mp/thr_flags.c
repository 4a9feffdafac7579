/* Pause flags and range checks from every thread (issue 41). First the
 * W = threads x nodes workers pass a token around a ring of flags: each
 * waits for its flag and clears it, checks that it sees every earlier
 * worker's slot of this round and every later one's of the last round
 * (read after tsr_range_read), writes its own (after tsr_range_write) and
 * raises the next worker's flag. A set that did not act as a release for
 * the setting thread, or a wait that did not act as an acquire for the
 * waiting one, shows a stale slot; a lost set hangs. Then every thread of
 * every node but worker 0 waits for one flag that worker 0 raises after
 * writing a value of its own to that flag: a node's threads waiting at once share one request
 * (sync/flag.c), and each must wake and see the value. 2, then 4 threads
 * per node. Under scope consistency a flag carries only what its lock
 * covers, so there the slots are written and read under a lock. */
/* tsr-test: threads */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "thr.h"

#define ROUNDS 3
#define GATES 4
#define STRIDE 1024 /* longs: one slot per 8 KiB, on pages of its own */
#define SLOT_LOCK 7
#define GATE_FLAG 2048 /* past every ring's flags */

static long *slot, *gate;
static int scope;
static int errors[THR_MAX];

static long value(int n, int r, int w) { return 100000L * n + 1000L * r + w + 1; }

static void put(long *p, long v)
{
    if (scope)
        tsr_lock(SLOT_LOCK);
    tsr_range_write(p, sizeof *p);
    *p = v;
    if (scope)
        tsr_unlock(SLOT_LOCK);
}

static long get(const long *p)
{
    if (scope)
        tsr_lock(SLOT_LOCK);
    tsr_range_read(p, sizeof *p);
    long v = *p;
    if (scope)
        tsr_unlock(SLOT_LOCK);
    return v;
}

static void expect(int i, const char *what, int v, long got, long want)
{
    if (got != want && errors[i]++ < 3)
        printf("node %d thread %d: %s %d is %ld, want %ld\n", tsr_node(), i, what, v, got, want);
}

static void ring(int i, int n, int w, int workers)
{
    for (int r = 0; r < ROUNDS; r++) {
        if (r || w) {
            tsr_flag_wait(w);
            tsr_flag_clear(w);
        }
        for (int v = 0; v < workers; v++)
            if (v < w || r)
                expect(i, "slot", v, get(&slot[(size_t)v * STRIDE]),
                       value(n, v < w ? r : r - 1, v));
        put(&slot[(size_t)w * STRIDE], value(n, r, w));
        tsr_flag_set((w + 1) % workers);
    }
    if (!w) { /* the last worker's last set */
        tsr_flag_wait(0);
        tsr_flag_clear(0);
    }
}

static void gates(int i, int n, int w)
{
    for (int g = 0; g < GATES; g++) {
        int id = GATE_FLAG + n * GATES + g;
        if (!w) {
            put(&gate[g * STRIDE], value(n, g, 0));
            tsr_flag_set(id);
        } else {
            tsr_flag_wait(id);
            expect(i, "gate", g, get(&gate[g * STRIDE]), value(n, g, 0));
        }
    }
}

static void worker(int i, int n)
{
    int w = tsr_node() * n + i;
    ring(i, n, w, n * tsr_nodes());
    tsr_barrier_threads(n);
    gates(i, n, w);
    tsr_barrier_threads(n);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *proto = getenv("TSR_PROTO");
    scope = proto && !strcmp(proto, "scope");
    slot = tsr_alloc(sizeof(long) * STRIDE * THR_MAX * (size_t)tsr_nodes());
    gate = tsr_alloc(sizeof(long) * STRIDE * GATES);
    int bad = thr_teams_2_4(worker, errors);
    printf("node %d: %d wrong values %s\n", tsr_node(), bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
