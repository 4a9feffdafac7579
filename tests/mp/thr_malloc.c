/* tsr_malloc and tsr_free_local from every thread of every node at once
 * (2, then 4, threads per node). Each thread allocates objects of sizes
 * packed into shared pages and of whole pages, fills each with bytes of
 * its own, frees every other one and allocates again, then checks all it
 * holds: two threads given the same memory would overwrite each other's
 * bytes. Each thread then publishes one object, and after the barrier a
 * thread of the next node reads it (its first fault there learns the
 * pages from the allocating node, while that node's threads keep
 * allocating in the next round) and its owner frees it. With the
 * allocator's protocol lock left out, 64 objects per thread failed 5 runs
 * of 5 at 2 nodes (24 failed 1 of 3). */
/* tsr-test: threads */
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "thr.h"

#define OBJS 64
#define ROUNDS 3

typedef struct slot {
    unsigned char *ptr;
    size_t bytes;
    unsigned char fill;
} slot;

static slot *pub; /* [node * THR_MAX + thread] */
static int errors[THR_MAX];

static size_t size_of(int k) { return k % 4 == 3 ? 9000 + (size_t)k * 8 : 24 + (size_t)k * 97; }

static unsigned char fill_of(int i, int k, int r)
{
    return (unsigned char)(1 + tsr_node() * 61 + i * 17 + k * 5 + r * 3);
}

static int holds(const unsigned char *p, size_t bytes, unsigned char fill)
{
    for (size_t b = 0; b < bytes; b++)
        if (p[b] != fill)
            return 0;
    return 1;
}

static void take(slot *s, int i, int k, int r)
{
    s->bytes = size_of(k);
    s->fill = fill_of(i, k, r);
    s->ptr = tsr_malloc(s->bytes);
    memset(s->ptr, s->fill, s->bytes);
}

static int churn(int i, int r, slot *mine)
{
    for (int k = 0; k < OBJS; k++)
        take(&mine[k], i, k, r);
    for (int k = 0; k < OBJS; k += 2) {
        tsr_free_local(mine[k].ptr);
        take(&mine[k], i, k, r + ROUNDS);
    }
    int bad = 0;
    for (int k = 0; k < OBJS; k++)
        if (!holds(mine[k].ptr, mine[k].bytes, mine[k].fill)) {
            printf("node %d thread %d: object %d (%zu bytes at %p) lost its bytes\n", tsr_node(),
                   i, k, mine[k].bytes, (void *)mine[k].ptr);
            bad++;
        }
    return bad;
}

static void worker(int i, int n)
{
    int me = tsr_node(), next = (me + 1) % tsr_nodes();
    for (int r = 0; r < ROUNDS; r++) {
        slot mine[OBJS];
        errors[i] += churn(i, r, mine);
        pub[me * THR_MAX + i] = mine[OBJS - 1];
        for (int k = 0; k < OBJS - 1; k++)
            tsr_free_local(mine[k].ptr);
        tsr_barrier_threads(n);
        slot other = pub[next * THR_MAX + i];
        if (!holds(other.ptr, other.bytes, other.fill)) {
            printf("node %d thread %d: node %d's object (%zu bytes at %p) reads wrong\n", me, i,
                   next, other.bytes, (void *)other.ptr);
            errors[i]++;
        }
        tsr_barrier_threads(n);
        tsr_free_local(mine[OBJS - 1].ptr);
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    pub = tsr_alloc((size_t)tsr_nodes() * THR_MAX * sizeof *pub);
    int bad = 0;
    for (int n = 2; n <= 4; n += 2) {
        thr_team(n, worker);
        for (int i = 0; i < n; i++)
            bad += errors[i];
        tsr_barrier();
    }
    printf("node %d: %s\n", tsr_node(), bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
