/* tsr_trylock under contention. While node 0 holds a lock, every other
 * node's try is refused (the manager answers at once, queueing nothing, so
 * node 0's release finds no successor); once it is free (released before a
 * barrier, which waits for releases to reach their managers) a try takes
 * it and sees what the last holder wrote. Then every node takes the lock
 * K times, by tries it repeats until one succeeds or by tsr_lock, taking
 * turns, so tries meet queued requests, forwards and direct hand-offs:
 * the shared count must be exact, no two holders overlap, and each node's
 * refused tries are the refusals it counted (lock_tries_refused). Two
 * locks, managed by different nodes, so both the local and the remote
 * manager answer. Argument: K (default 200). */
/* tsr-test: suite */
/* tsr-test: diffput */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

typedef struct shared {
    long count, inside, overlaps, seen;
} shared;

static uint64_t refusals(void)
{
    uint64_t v = 0;
    if (tsr_counter_get("lock_tries_refused", &v))
        v = UINT64_MAX;
    return v;
}

/* Phase one on lock `id`: held by node 0, refused elsewhere; then free,
 * and taken by the last node's first try. Returns the failures seen. */
static int held_then_free(shared *s, int id)
{
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    if (me == 0) {
        tsr_lock(id);
        s->seen = 1000 + id;
    }
    tsr_barrier();
    if (me != 0 && tsr_trylock(id)) {
        printf("node %d: took lock %d that node 0 holds\n", me, id);
        bad++;
    }
    tsr_barrier();
    if (me == 0)
        tsr_unlock(id);
    tsr_barrier();
    if (me == n - 1) {
        if (!tsr_trylock(id)) {
            printf("node %d: a try of free lock %d was refused\n", me, id);
            bad++;
        } else {
            bad += s->seen != 1000 + id;
            tsr_unlock(id);
        }
    }
    tsr_barrier();
    return bad;
}

/* Phase two: K turns each, tries and waits mixed. Returns the tries this
 * node saw refused. */
static uint64_t contend(shared *s, int id, long k)
{
    uint64_t refused = 0;
    for (long r = 0; r < k; r++) {
        if ((r + tsr_node()) % 3 == 0)
            tsr_lock(id);
        else
            while (!tsr_trylock(id)) {
                refused++;
                sched_yield(); /* a refusal by this node's own manager sends nothing */
            }
        s->overlaps += s->inside++;
        s->count++;
        s->inside--;
        tsr_unlock(id);
    }
    return refused;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long k = argc > 1 ? atol(argv[1]) : 200;
    int me = tsr_node(), n = tsr_nodes();
    int locks[2] = {7, n > 1 ? 8 : 7}; /* managed by nodes 7 % n and 8 % n */
    shared *s = tsr_alloc(2 * sizeof *s);
    uint64_t before = refusals();
    int bad = 0;
    uint64_t refused = 0;
    for (int i = 0; i < 2; i++)
        bad += held_then_free(&s[i], locks[i]);
    uint64_t held_refusals = refusals() - before;
    if (held_refusals != (me ? 2u : 0u)) {
        printf("node %d: %llu tries refused while node 0 held the locks, want %d\n", me,
               (unsigned long long)held_refusals, me ? 2 : 0);
        bad++;
    }
    for (int i = 0; i < 2; i++)
        s[i].count = 0;
    tsr_barrier();
    before = refusals();
    for (int i = 0; i < 2; i++)
        refused += contend(&s[i], locks[i], k);
    if (refusals() - before != refused) {
        printf("node %d: counted %llu refusals, saw %llu\n", me,
               (unsigned long long)(refusals() - before), (unsigned long long)refused);
        bad++;
    }
    tsr_barrier();
    for (int i = 0; i < 2; i++)
        if (s[i].count != k * n || s[i].overlaps || s[i].inside) {
            printf("node %d: lock %d: count %ld want %ld, overlaps %ld, inside %ld\n", me,
                   locks[i], s[i].count, k * n, s[i].overlaps, s[i].inside);
            bad++;
        }
    printf("node %d: %s (%llu tries refused under contention)\n", me, bad ? "FAIL" : "PASS",
           (unsigned long long)refused);
    tsr_finalize();
    return bad != 0;
}
