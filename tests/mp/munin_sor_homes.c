/* producer_consumer wherever its pages live: the paper's SOR over a grid
 * whose pages are homed in blocks, cyclically, all at node 0 and all at
 * the last node, initialised by node 0, by the last node or by each band's
 * node. Every run must give the sequential result in every row a node
 * reads, and once the copysets have settled each node must send, per
 * iteration, exactly one update message to each node that reads its rows
 * (its neighbours) or manages them, and nothing else but the barriers'
 * messages: a copyset that kept a node that only initialised the grid, or
 * lost a reader, shows in these counts or stops the job. */
/* tsr-test: munin -n 2,3,4,5 */
#include "munin_sor.h"

#define ITERS 10
#define SETTLED 4 /* iterations after which no copyset changes (docs/MUNIN.md) */

enum { BY_FIRST, BY_LAST, BY_BANDS, NINITS };
static const char *const init_name[NINITS] = {"node 0", "the last node", "each band's node"};

/* The home of page i of n under a (the placements of tessera.h). */
static int home_of(const tsr_attr *a, long i, long n, int nodes)
{
    if (a->home == TSR_HOME_NODE)
        return a->home_node;
    if (a->home == TSR_HOME_CYCLIC)
        return (int)(i % nodes);
    long q = n / nodes, big = (n % nodes) * (q + 1);
    return (int)(i < big ? i / (q + 1) : n % nodes + (i - big) / q);
}

/* The nodes this node's updates must reach each iteration: the neighbours
 * that read its first and last rows, and the managers of its rows. */
static int destinations(const tsr_attr *a, long lo, long hi)
{
    int me = tsr_node(), n = tsr_nodes(), count = 0;
    for (int j = 0; j < n; j++) {
        int dest = j == me - 1 || j == me + 1;
        for (long i = lo; i < hi && !dest; i++)
            dest = home_of(a, i, ROWS + 2, n) == j;
        count += dest && j != me;
    }
    return count;
}

static void initialise(sor_row *grid, int init, long lo, long hi)
{
    int me = tsr_node(), last = tsr_nodes() - 1;
    long from = 0, to = 0;
    if (init == BY_BANDS) {
        from = me == 0 ? 0 : lo;
        to = me == last ? ROWS + 2 : hi;
    } else if (me == (init == BY_FIRST ? 0 : last)) {
        to = ROWS + 2;
    }
    for (long i = from; i < to; i++)
        for (long j = 0; j < COLS; j++)
            grid[i][j] = sor_initial(i, j);
}

static void run(const tsr_attr *a, const char *homes, int init, sor_row *ref)
{
    int me = tsr_node(), n = tsr_nodes();
    long lo, hi;
    sor_band(me, n, &lo, &hi);
    sor_row *grid = tsr_alloc_attr(sizeof(sor_row[ROWS + 2]), a);
    sor_row *scratch = sor_private_grid();
    initialise(grid, init, lo, hi);
    tsr_barrier();
    uint64_t updates, others;
    sor_iterate(grid, scratch, lo, hi, ITERS, SETTLED, &updates, &others);
    uint64_t want = (uint64_t)destinations(a, lo, hi) * (ITERS - SETTLED);
    uint64_t barriers = 2 * (ITERS - SETTLED) * (me == 0 ? n - 1 : 1);
    CHECK(updates == want, "homes %s, initialised by %s: %llu update messages in %d iterations, "
          "expected %llu", homes, init_name[init], (unsigned long long)updates,
          ITERS - SETTLED, (unsigned long long)want);
    CHECK(others == barriers, "homes %s, initialised by %s: %llu other messages, expected %llu "
          "(barriers)", homes, init_name[init], (unsigned long long)others,
          (unsigned long long)barriers);
    long wrong = 0;
    for (long i = lo - 1; i <= hi; i++)
        wrong += memcmp(ref[i], grid[i], sizeof ref[i]) != 0;
    CHECK(wrong == 0, "homes %s, initialised by %s: %ld of rows %ld-%ld differ from the "
          "sequential run", homes, init_name[init], wrong, lo - 1, hi);
    free(scratch);
    tsr_free(grid);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    sor_row *ref = sor_sequential(ITERS);
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = TSR_PRODUCER_CONSUMER;
    for (int init = 0; init < NINITS; init++) {
        a.home = TSR_HOME_BLOCK;
        run(&a, "in blocks", init, ref);
        a.home = TSR_HOME_CYCLIC;
        run(&a, "cyclic", init, ref);
        a.home = TSR_HOME_NODE;
        a.home_node = 0;
        run(&a, "at node 0", init, ref);
        a.home_node = tsr_nodes() - 1;
        run(&a, "at the last node", init, ref);
    }
    free(ref);
    return munin_finish("sor_homes");
}
