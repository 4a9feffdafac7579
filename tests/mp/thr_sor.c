/* Red-black SOR with several threads per node: the grid is one shared
 * matrix (homes in node order, so a node's rows are mostly its own), its
 * interior rows split into one band per thread of every node, and each
 * half-sweep ends with tsr_barrier_threads, which combines the node's
 * threads before one arrival goes out. Red-black updates read only the
 * other colour, so the result does not depend on the split: node 0
 * compares it, bit for bit, with the same sweeps run by one thread on
 * private memory. Arguments: rows cols iterations [threads per node,
 * default tsr_threads(), that is TSR_THREADS]. Each node prints the
 * threads it ran and its bytes sent and pages fetched, which
 * bench/thr_sor.sh compares across ways of placing the threads. */
/* tsr-test: threads -n 1,2 62 126 12 2 */
/* tsr-test: threads -n 2 30 254 6 4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "thr.h"

static long rows, cols, iters; /* interior size; the grid has two more of each */
static double *grid;

#define AT(g, i, j) ((g)[(i) * (cols + 2) + (j)])

static double initial(long i, long j)
{
    if (i == 0)
        return 1.0; /* the top edge is hot, the others cold */
    if (i > rows || j == 0 || j > cols)
        return 0.0;
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15u ^ (uint64_t)j * 0xc2b2ae3d27d4eb4fu;
    x ^= x >> 31;
    return (double)(x % 1000003) / 1000003.0; /* a lost update shows anywhere */
}

/* Rows [lo, hi) of the interior, colour c: the points with (i + j) % 2 == c. */
static void sweep(double *g, int c, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        for (long j = 1 + ((i + 1 + c) & 1); j <= cols; j += 2)
            AT(g, i, j) = (AT(g, i - 1, j) + AT(g, i + 1, j) + AT(g, i, j - 1) + AT(g, i, j + 1)) *
                          0.25;
}

static void band(long part, long parts, long *lo, long *hi)
{
    *lo = 1 + part * rows / parts;
    *hi = 1 + (part + 1) * rows / parts;
}

static void worker(int t, int n)
{
    long lo, hi;
    band((long)tsr_node() * n + t, (long)tsr_nodes() * n, &lo, &hi);
    for (long i = lo - (lo == 1); i < hi + (hi == rows + 1); i++)
        for (long j = 0; j < cols + 2; j++)
            AT(grid, i, j) = initial(i, j);
    tsr_barrier_threads(n);
    for (long it = 0; it < iters; it++)
        for (int c = 0; c < 2; c++) {
            sweep(grid, c, lo, hi);
            tsr_barrier_threads(n);
        }
}

static int matches_sequential(void)
{
    size_t cells = (size_t)(rows + 2) * (size_t)(cols + 2);
    double *g = malloc(cells * sizeof *g);
    if (!g)
        return 0;
    for (long i = 0; i < rows + 2; i++)
        for (long j = 0; j < cols + 2; j++)
            AT(g, i, j) = initial(i, j);
    for (long it = 0; it < iters; it++)
        for (int c = 0; c < 2; c++)
            sweep(g, c, 1, rows + 1);
    int same = memcmp(g, grid, cells * sizeof *g) == 0 && AT(g, 1, 1) > 0.0;
    free(g);
    return same;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: %s rows cols iterations [threads]\n", argv[0]);
        return 2;
    }
    rows = atol(argv[1]);
    cols = atol(argv[2]);
    iters = atol(argv[3]);
    int threads = argc > 4 ? atoi(argv[4]) : tsr_threads();
    if (rows < (long)tsr_nodes() * threads || cols < 2 || iters < 1) {
        fprintf(stderr, "%s: need rows >= nodes x threads, cols >= 2, iterations >= 1\n",
                argv[0]);
        return 2;
    }
    grid = tsr_alloc((size_t)(rows + 2) * (size_t)(cols + 2) * sizeof *grid);
    thr_team(threads, worker);
    tsr_stats s;
    tsr_stats_get(&s);
    printf("node %d: %d threads, %llu bytes sent, %llu pages fetched\n", tsr_node(), threads,
           (unsigned long long)s.bytes_sent, (unsigned long long)s.page_fetches);
    int bad = tsr_node() == 0 && !matches_sequential();
    printf("node %d: %s\n", tsr_node(), bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
