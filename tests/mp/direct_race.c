/* A shared free list under one lock, as RADIOSITY's interaction buffers:
 * every node pops an item, stamps it outside the lock, and pushes it back,
 * while the items' homes (every node) keep releasing. The list must come
 * out whole (every item once, no cycle) and every stamp must be the one
 * its last owner wrote. Each item's page is written by its home and by
 * the others in turn, so under TSR_FETCH=direct the copies race the
 * homes' releases and the diffs applied to the same pages. */
/* tsr-test: suite */
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

#define ITEMS 512

typedef struct item {
    long next; /* index of the next free item, -1 at the end */
    long owner, stamp, check;
    long pad[4];
} item;

typedef struct list {
    long head, pops;
} list;

static int pop_push(item *it, list *l, int me, long round)
{
    tsr_lock(1);
    long i = l->head;
    if (i < 0 || i >= ITEMS) {
        printf("node %d, round %ld: free list head %ld is no item\n", me, round, i);
        tsr_unlock(1);
        return 1;
    }
    l->head = it[i].next;
    l->pops++;
    tsr_unlock(1);
    it[i].owner = me;
    it[i].stamp = round;
    it[i].check = me * 1000003L + round;
    tsr_lock(1);
    it[i].next = l->head;
    l->head = i;
    tsr_unlock(1);
    return 0;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long rounds = argc > 1 ? atol(argv[1]) : 400;
    int me = tsr_node(), bad = 0;
    item *it = tsr_alloc(ITEMS * sizeof(item));
    list *l = tsr_alloc(sizeof(list));
    if (me == 0) {
        for (long i = 0; i < ITEMS; i++)
            it[i].next = i + 1 < ITEMS ? i + 1 : -1;
        l->head = 0;
    }
    tsr_barrier();
    for (long r = 1; r <= rounds && !bad; r++)
        bad = pop_push(it, l, me, r);
    tsr_barrier();
    char *seen = calloc(ITEMS, 1);
    long n = 0;
    for (long i = l->head; i >= 0 && i < ITEMS && !seen[i]; i = it[i].next, n++)
        seen[i] = 1;
    free(seen);
    for (long i = 0; i < ITEMS; i++)
        if (it[i].check != it[i].owner * 1000003L + it[i].stamp && bad++ < 5)
            printf("node %d: item %ld holds owner %ld stamp %ld check %ld\n", me, i, it[i].owner,
                   it[i].stamp, it[i].check);
    int ok = !bad && n == ITEMS && l->pops == rounds * tsr_nodes();
    printf("node %d: %ld items on the list (want %d), %ld pops (want %ld) %s\n", me, n, ITEMS,
           l->pops, rounds * tsr_nodes(), ok ? "PASS" : "FAIL");
    tsr_finalize();
    return ok ? 0 : 1;
}
