/* Connections on demand (tests/sh/connections.sh). `ring` (the default):
 * a stencil whose nodes share pages with their two ring neighbours only,
 * and barriers, must leave each node linked to the peers it talked to and
 * no others: under TSR_CONNECT=demand a node's TCP connections
 * (peer_connections) are at most those to its ring neighbours and
 * heartbeat watchers (i-2..i+2) and its barrier tree's parent and children
 * (sync/tree.h), node 0 included: the start-up's exchanges (node 0's
 * layout, MSG_LAYOUT, and the clock, MSG_CLOCK_ASK) go down that tree, where
 * every node used to send them to node 0; under the mesh of
 * TSR_CONNECT=start every node has N - 1. `all`: every node reads every
 * node's page after each barrier, so that pairs connect to each other at
 * once from both sides, and every node ends with N - 1 connections, one
 * per pair (crossed_connections counts the crossings). Every value read is
 * checked, so the links carry the job's pages byte for byte. `stall`: as
 * `ring`, then node 0 sleeps 3 s before a barrier, so that every other
 * node's wait passes a second and it asks every node where it is
 * (stall_rounds, sync/stall.c's deadlock finder): over the barrier tree,
 * which opens no other link (it used to open N - 1 at each asker). Prints
 * each node's count and its bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counter.h"
#include "sync/tree.h"
#include "tessera.h"

#define ROUNDS 20
#define WORDS 512 /* one 4 KiB page of longs per node */

/* Marks the peers this node may talk to; returns how many there are. */
static int allowed_peers(int me, int n)
{
    char *may = calloc((size_t)n, 1);
    int parent, hi, child[TREE_DEGREE], child_hi[TREE_DEGREE], count = 0;
    for (int k = -2; k <= 2; k++)
        may[((me + k) % n + n) % n] = 1;
    tree_place(me, n, &parent, &hi);
    may[parent] = 1;
    for (int c = tree_children(me, hi, child, child_hi); c > 0; c--)
        may[child[c - 1]] = 1;
    may[me] = 0;
    for (int j = 0; j < n; j++)
        count += may[j];
    free(may);
    return count;
}

/* The value node `owner` wrote at word w in round r. */
static long value(int owner, int r, int w) { return (long)owner * 1000003L + r * 1009L + w; }

/* Reads the pages of the peers k places away, for each k of [from, to]
 * by step; returns how many values were wrong. */
static int check(const long *grid, int me, int n, int r, int from, int to, int step)
{
    int bad = 0;
    for (int k = from; k <= to; k += step) {
        int peer = (me + k + n) % n;
        for (int w = 0; w < WORDS; w++)
            bad += grid[peer * WORDS + w] != value(peer, r, w);
    }
    return bad;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int n = tsr_nodes(), me = tsr_node(), bad = 0;
    int all = argc > 1 && !strcmp(argv[1], "all"), stall = argc > 1 && !strcmp(argv[1], "stall");
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_CYCLIC;
    attr.block_pages = 1;
    long *grid = tsr_alloc_attr((size_t)n * WORDS * sizeof *grid, &attr);
    for (int r = 0; r < ROUNDS; r++) {
        for (int w = 0; w < WORDS; w++)
            grid[me * WORDS + w] = value(me, r, w);
        tsr_barrier();
        bad += all ? check(grid, me, n, r, 1, n - 1, 1) : check(grid, me, n, r, -1, 1, 2);
        tsr_barrier();
    }
    if (stall && me == 0)
        sleep(3); /* the others' barrier waits pass a second: each asks where everyone is */
    tsr_barrier();
    /* Each asker's round ended before it left the barrier, and passing a
     * question on opens no link but a tree link. */
    uint64_t links = counter("peer_connections"), rounds = counter("stall_rounds");
    const char *mode = getenv("TSR_CONNECT");
    int bounded = !(mode && !strcmp(mode, "start")) && !all;
    uint64_t bound = (uint64_t)n - 1;
    if (bounded && allowed_peers(me, n) < n - 1)
        bound = (uint64_t)allowed_peers(me, n);
    int pass = !bad && (bounded ? links <= bound : links == bound) && (!stall || me == 0 || rounds);
    printf("node %d: %llu connections (%s %llu), %llu crossed, %llu stall rounds, %d wrong "
           "values: %s\n", me, (unsigned long long)links, bounded ? "at most" : "want",
           (unsigned long long)bound, (unsigned long long)counter("crossed_connections"),
           (unsigned long long)rounds, bad, pass ? "PASS" : "FAIL");
    tsr_barrier();
    tsr_finalize();
    return !pass;
}
