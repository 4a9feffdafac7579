/* tsr_malloc: memory one node allocates alone, used by every node once the
 * pointer reaches it through a lock or a barrier.
 *   1. Node 1 (node 0 alone) allocates an array and small objects, fills
 *      them, and publishes the pointers under a lock; the others poll
 *      under the same lock until they see them, then check the contents.
 *   2. Every node writes its share of the array; after a barrier every
 *      node sees every share (diffs to the allocator, which is the home).
 *   3. Every node allocates an object of its own and publishes it in a
 *      collective slot; after a barrier each node reads all of them.
 *   4. The allocator frees the array and allocates again: the memory is
 *      reused, and the other nodes see the new contents, not their old
 *      copies. */
#include <stdio.h>
#include <string.h>

#include "tessera.h"

#define LONGS 20000 /* about 40 pages */
#define SMALL 64

typedef struct slots {
    long *array;
    long *small[SMALL];
    long *mine[64];
} slots;

static long bad;

static void check(int ok, const char *what, long i)
{
    if (!ok && bad++ < 5)
        printf("node %d: wrong %s at %ld\n", tsr_node(), what, i);
}

static void publish_under_lock(slots *s, int me, int maker)
{
    if (me == maker) {
        long *a = tsr_malloc(LONGS * sizeof(long));
        for (long i = 0; i < LONGS; i++)
            a[i] = 7 * i;
        long *small[SMALL];
        for (int k = 0; k < SMALL; k++) {
            small[k] = tsr_malloc(3 * sizeof(long));
            small[k][0] = k, small[k][1] = -k, small[k][2] = k * k;
        }
        /* Small objects are packed: 64 of 24 bytes fit in one page. */
        check((char *)small[SMALL - 1] - (char *)small[0] < 4096, "packing", 0);
        tsr_lock(3);
        s->array = a;
        memcpy(s->small, small, sizeof small);
        tsr_unlock(3);
        return;
    }
    for (long *a = NULL; !a;) {
        tsr_lock(3);
        a = s->array;
        tsr_unlock(3);
    }
    for (long i = 0; i < LONGS; i++)
        check(s->array[i] == 7 * i, "array", i);
    for (int k = 0; k < SMALL; k++) {
        const long *o = s->small[k];
        check(o[0] == k && o[1] == -k && o[2] == k * k, "small object", k);
    }
}

static void share_writes(slots *s, int me, int n)
{
    for (long i = me; i < LONGS; i += n)
        s->array[i] = 1000 * me + i;
    tsr_barrier();
    for (long i = 0; i < LONGS; i++)
        check(s->array[i] == 1000 * (i % n) + i, "shared write", i);
    tsr_barrier();
}

static void every_node_allocates(slots *s, int me, int n)
{
    long *o = tsr_malloc(100 * sizeof(long));
    for (int i = 0; i < 100; i++)
        o[i] = me * 100 + i;
    s->mine[me] = o;
    tsr_barrier();
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 100; i++)
            check(s->mine[k][i] == k * 100 + i, "per-node object", k * 100 + i);
    tsr_barrier();
}

static void free_and_reuse(slots *s, int me, int maker)
{
    if (me == maker) {
        long *old = s->array;
        tsr_free_local(old);
        for (int k = 0; k < SMALL; k++)
            tsr_free_local(s->small[k]);
        long *a = tsr_malloc(LONGS * sizeof(long));
        check(a == old, "reuse of the freed run", 0);
        for (long i = 0; i < LONGS; i++)
            a[i] = -i;
        s->array = a;
    }
    tsr_barrier();
    for (long i = 0; i < LONGS; i++)
        check(s->array[i] == -i, "reused memory", i);
    tsr_barrier();
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), maker = 1 % n;
    slots *s = tsr_alloc(sizeof *s);
    publish_under_lock(s, me, maker);
    tsr_barrier();
    share_writes(s, me, n);
    every_node_allocates(s, me, n);
    free_and_reuse(s, me, maker);
    printf("node %d: %ld wrong %s\n", me, bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
