/* Home migration (coherence/hlrc/hlrc_migrate.c). Pages homed at node 0,
 * page i written by node i alone between a lock and its unlock, as
 * BARNES writes its `Local[ProcessId]`: before the first barrier each
 * release diffs the page to node 0; after it, the page is homed at its
 * writer and the same writes cost no diff (homes_moved 1 there). Then
 * node 0 writes into every other node's page, which is a diff to the new
 * home, and moves the page back at the next barrier; a page that every
 * node writes never moves. Every node checks every word after each
 * barrier, the pages fetched from wherever their home is by then. */
/* tsr-test: hlrc -n 2,3 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "tessera.h"

#define WORDS 512 /* longs per page */
#define ROUNDS 40

static uint64_t diffs(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.diffs_created;
}

/* Node `me` adds `add` to the first ROUNDS words of its page, one lock
 * and unlock (one release) per word. */
static void write_own(long *page, int me, long add)
{
    for (int r = 0; r < ROUNDS; r++) {
        tsr_lock(me);
        page[r] += add + r;
        tsr_unlock(me);
    }
}

static int check(const long *pages, int n, long own, long last, const char *when)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < ROUNDS; r++)
            bad |= pages[i * WORDS + r] != own + r * (own / 1000);
    for (int i = 1; i < n; i++)
        bad |= pages[i * WORDS + WORDS - 1] != last;
    for (int i = 0; i < n; i++)
        bad |= pages[n * WORDS + i] != i + 1;
    if (bad)
        fprintf(stderr, "node %d: wrong values %s\n", tsr_node(), when);
    return bad;
}

/* A page of node 0's tsr_malloc arena that node 1 alone writes stays
 * homed at node 0: node 2 and up, which adopt it only at their first
 * touch after the barrier, learn node 0 as its home (coherence/adopt.c),
 * and a move would have left them asking node 0 for a page it no longer
 * homes. `slot` passes the pointer. */
static int malloc_page(long *slot, int me, int n)
{
    if (me == 0)
        *slot = (long)tsr_malloc(WORDS * sizeof(long));
    tsr_barrier();
    long *m = (long *)*slot;
    if (me == 1 % n)
        write_own(m, me, 500);
    tsr_barrier();
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++)
        bad |= m[r] != 500 + r;
    if (bad)
        fprintf(stderr, "node %d: wrong values in node 0's tsr_malloc page\n", me);
    tsr_barrier();
    return bad;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    const char *detect = getenv("TSR_DETECT"), *mig = getenv("TSR_HOME_MIGRATE");
    const char *transport = getenv("TSR_TRANSPORT"), *put = getenv("TSR_DIFF_PUT");
    /* Off where diffs may be written one-sided (hlrc_migrate.c). */
    int puts = transport && !strcmp(transport, "ucx") && !(put && !strcmp(put, "message"));
    int moves = n > 1 && (!detect || !strcmp(detect, "segv")) && !(mig && !strcmp(mig, "off")) &&
                !puts;
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 0;
    /* Page i: node i's; page n: a word of every node's. */
    long *pages = tsr_alloc_attr((size_t)(n + 1) * WORDS * sizeof(long), &attr);

    uint64_t d0 = diffs();
    write_own(pages + me * WORDS, me, 1000);
    tsr_lock(n + me);
    pages[n * WORDS + me] = me + 1;
    tsr_unlock(n + me);
    uint64_t d1 = diffs();
    tsr_barrier();
    bad |= check(pages, n, 1000, 0, "after the first barrier");
    tsr_barrier();

    write_own(pages + me * WORDS, me, 1000);
    uint64_t d2 = diffs();
    uint64_t moved = counter("homes_moved");
    /* Before the moves, every release diffed; after, none did. */
    if (me > 0 && (d1 - d0 < ROUNDS || (moves && d2 != d1) || moved != (uint64_t)(moves && me > 0))) {
        fprintf(stderr, "node %d: %llu diffs before the move (want %d or more), %llu after "
                "(want 0), %llu pages moved here\n", me, (unsigned long long)(d1 - d0), ROUNDS,
                (unsigned long long)(d2 - d1), (unsigned long long)moved);
        bad = 1;
    }
    tsr_barrier();
    bad |= check(pages, n, 2000, 0, "after the writers' own writes");
    tsr_barrier();

    /* Node 0 writes every other page, now homed at its writer. */
    if (me == 0)
        for (int i = 1; i < n; i++) {
            tsr_lock(i);
            pages[i * WORDS + WORDS - 1] = 7;
            tsr_unlock(i);
        }
    tsr_barrier();
    bad |= check(pages, n, 2000, 7, "after node 0 wrote the moved pages");
    if (me == 0 && counter("homes_moved") != (uint64_t)(moves ? n - 1 : 0)) {
        fprintf(stderr, "node 0: %llu pages moved back here, want %d\n",
                (unsigned long long)counter("homes_moved"), moves ? n - 1 : 0);
        bad = 1;
    }
    tsr_barrier();
    write_own(pages + me * WORDS, me, 1000);
    tsr_barrier();
    bad |= check(pages, n, 3000, 7, "after the pages moved back");

    bad |= malloc_page(pages + n * WORDS + WORDS - 1, me, n);

    printf("node %d: home migration %s: %llu diffs in the first epoch, %llu in the second; %s\n",
           me, moves ? "on" : "off", (unsigned long long)(d1 - d0),
           (unsigned long long)(d2 - d1), bad ? "FAIL" : "PASS");
    tsr_barrier();
    tsr_finalize();
    return bad != 0;
}
