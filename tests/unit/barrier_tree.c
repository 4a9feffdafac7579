/* The barrier's tree (sync/tree.c), for every job size from 1 to 1,024
 * nodes: every node but node 0 has one parent, which lists it among its
 * children, and heads the part it was handed; no node has more than
 * TREE_DEGREE children; and the levels grow with log N, at most
 * ceil(log8 N) + 1 (4 at 1,024). With -v, prints the table of
 * docs/PERFORMANCE.md: the rounds of a barrier (arrivals up the tree,
 * sync/gather.c, then the departure down it) and the most messages a node
 * sends per barrier (its arrival and its departures; it reads as many:
 * its children's arrivals and its departure), where node 0 used to read
 * N - 1 arrivals, each of N counters, and send N - 1 departures. */
#include <math.h>

#include "check.h"
#include "sync/tree.h"

/* Walks the part [lo, hi) headed by lo: each child's parent must be lo,
 * and its tree_place must say the same part. Returns the most messages
 * a node of the part sends a barrier (its departures, and its arrival but
 * at node 0), and in *levels the levels below lo. */
static int walk(int nodes, int lo, int hi, int *seen, int *levels)
{
    int child[TREE_DEGREE], child_hi[TREE_DEGREE], most;
    int k = tree_children(lo, hi, child, child_hi);
    seen[lo]++;
    CHECK(k <= TREE_DEGREE, "%d nodes: node %d has %d children", nodes, lo, k);
    most = k + (lo != 0);
    *levels = 0;
    for (int c = 0; c < k; c++) {
        int parent, end;
        tree_place(child[c], nodes, &parent, &end);
        CHECK(parent == lo && end == child_hi[c], "%d nodes: node %d: parent %d, part end %d; "
              "want %d, %d", nodes, child[c], parent, end, lo, child_hi[c]);
        CHECK(child[c] == (c ? child_hi[c - 1] : lo + 1), "%d nodes: parts of %d not contiguous",
              nodes, lo);
        int below, m = walk(nodes, child[c], child_hi[c], seen, &below);
        most = m > most ? m : most;
        *levels = below + 1 > *levels ? below + 1 : *levels;
    }
    CHECK(!k || child_hi[k - 1] == hi, "%d nodes: node %d's children end at %d, not %d", nodes,
          lo, child_hi[k - 1], hi);
    return most;
}

int main(int argc, char **argv)
{
    int verbose = argc > 1 && !strcmp(argv[1], "-v");
    static int seen[1024];
    if (verbose)
        printf("| nodes | rounds (arrivals up + departure down) | messages a node sends, and "
               "reads, at most | node 0 before: read, sent | counters node 0 reads, now | "
               "before |\n|--:|--:|--:|--:|--:|--:|\n");
    for (int n = 1; n <= 1024; n++) {
        memset(seen, 0, sizeof seen);
        int levels, most = walk(n, 0, n, seen, &levels);
        for (int j = 0; j < n; j++)
            CHECK(seen[j] == 1, "%d nodes: node %d reached %d times", n, j, seen[j]);
        int parent, hi;
        tree_place(0, n, &parent, &hi);
        CHECK(parent == 0 && hi == n, "%d nodes: node 0 placed under %d, part end %d", n, parent, hi);
        int bound = n > 1 ? (int)ceil(log(n) / log(8) - 1e-9) + 1 : 0;
        CHECK(levels <= bound, "%d nodes: %d levels, more than %d", n, levels, bound);
        if (verbose && (n & (n - 1)) == 0 && n >= 8)
            printf("| %d | %d | %d | %d, %d | %d | %d |\n", n, 2 * levels, most, n - 1, n - 1,
                   n * (n - 1 < TREE_DEGREE ? n - 1 : TREE_DEGREE), n * (n - 1));
    }
    return check_done("barrier_tree");
}
