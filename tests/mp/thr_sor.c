/* Red-black SOR with several threads per node: the grid is one shared
 * matrix (homes in node order, so a node's rows are mostly its own), its
 * interior rows split into one band per thread of every node, and each
 * half-sweep ends with tsr_barrier_threads, which combines the node's
 * threads before one arrival goes out. Red-black updates read only the
 * other colour, so the result does not depend on the split: node 0
 * compares it, bit for bit, with the same sweeps run by one thread on
 * private memory. Arguments: rows cols iterations [threads per node,
 * default tsr_threads(), that is TSR_THREADS]. Each node prints the
 * threads it ran, its bytes sent and pages fetched, and the seconds of
 * the solve, which bench/thr_sor.sh compares across ways of placing the
 * threads and with bench/thr_sor_plain.c (no Tessera). */
/* tsr-test: threads -n 1,2 62 126 12 2 */
/* tsr-test: threads -n 2 30 254 6 4 */
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"
#include "thr.h"
#include "thr_sor.h"

static double *grid;

static void worker(int t, int n)
{
    long lo, hi;
    band((long)tsr_node() * n + t, (long)tsr_nodes() * n, &lo, &hi);
    solve_band(grid, lo, hi, tsr_barrier_threads, n);
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
    double t0 = tsr_wtime();
    thr_team(threads, worker);
    double seconds = tsr_wtime() - t0;
    tsr_stats s;
    tsr_stats_get(&s);
    printf("node %d: %d threads, %llu bytes sent, %llu pages fetched, %.3f s\n", tsr_node(),
           threads, (unsigned long long)s.bytes_sent, (unsigned long long)s.page_fetches, seconds);
    int bad = tsr_node() == 0 && !matches_sequential(grid);
    printf("node %d: %s\n", tsr_node(), bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
