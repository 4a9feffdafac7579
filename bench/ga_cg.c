/*
 * ga_cg.c - the Themis paper's Section 3.3: conjugate gradient on a dense
 * symmetric positive definite N x N matrix, rows (and the vector p) split
 * in blocks over the nodes, written two ways:
 *
 *   v0     the naive version: the matrix-vector product reads every p_j it
 *          needs with a blocking tsr_ga_read64, through an OrderCache
 *          allocation (the cache makes the ghost copies);
 *   ghost  the hand-optimised version: before each product, each node
 *          copies the other nodes' blocks of p with one bulk tsr_ga_get
 *          each, and computes from its own copy.
 *
 * Both run ITERS iterations from x = 0 and must reach the same residual.
 * Prints, per version: nodes, N, time, and v0's read hits and misses.
 *
 *   tsrun -n 4 build/bench/ga_cg N [CACHE_ADDR_BITS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_ga.h"

#define ITERS 10

static int me, nodes, n, rows, lo;
static tsr_ga *pvec, *sums;

static double a(int i, int j) { return i == j ? n : 1.0 / (1 + abs(i - j)); }

/* Every node's contribution in every node's slot, then one barrier. */
static double allreduce(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    for (int node = 0; node < nodes; node++)
        tsr_ga_write64_async(sums, node, (size_t)me * 8, bits);
    tsr_ga_barrier();
    const double *s = tsr_ga_local(sums);
    double total = 0;
    for (int node = 0; node < nodes; node++)
        total += s[node];
    tsr_ga_barrier(); /* nobody writes the next sum before all have read this one */
    return total;
}

static double p_at(int j)
{
    int owner = j / rows;
    if (owner == me)
        return ((const double *)tsr_ga_local(pvec))[j - lo];
    uint64_t bits = tsr_ga_read64(pvec, owner, (size_t)(j % rows) * 8);
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

static void product_v0(double *q)
{
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += a(lo + i, j) * p_at(j);
        q[i] = s;
    }
}

static void product_ghost(double *q, double *whole)
{
    for (int node = 0; node < nodes; node++)
        tsr_ga_get(pvec, node, 0, whole + (size_t)node * rows, (size_t)rows * 8);
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += a(lo + i, j) * whole[j];
        q[i] = s;
    }
}

/* Returns the final residual norm. */
static double cg(int ghost)
{
    double *x = calloc((size_t)rows, 8), *r = malloc((size_t)rows * 8);
    double *q = malloc((size_t)rows * 8);
    double *whole = malloc((size_t)n * 8), *p = tsr_ga_local(pvec);
    for (int i = 0; i < rows; i++)
        r[i] = p[i] = 1.0 + (lo + i) % 7;
    tsr_ga_barrier();
    double rho = 0;
    for (int i = 0; i < rows; i++)
        rho += r[i] * r[i];
    rho = allreduce(rho);
    for (int it = 0; it < ITERS; it++) {
        if (ghost)
            product_ghost(q, whole);
        else
            product_v0(q);
        double pq = 0;
        for (int i = 0; i < rows; i++)
            pq += p[i] * q[i];
        double alpha = rho / allreduce(pq), rho_new = 0;
        for (int i = 0; i < rows; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            rho_new += r[i] * r[i];
        }
        rho_new = allreduce(rho_new);
        for (int i = 0; i < rows; i++)
            p[i] = r[i] + rho_new / rho * p[i];
        rho = rho_new;
        tsr_ga_barrier();
    }
    free(x), free(r), free(q), free(whole);
    return sqrt(rho);
}

static uint64_t counter(const char *name)
{
    uint64_t v = 0;
    tsr_counter_get(name, &v);
    return v;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    me = tsr_node();
    nodes = tsr_nodes();
    n = argc > 1 ? atoi(argv[1]) : 256;
    int addr_bits = argc > 2 ? atoi(argv[2]) : 8;
    if (n < nodes || n % nodes) {
        fprintf(stderr, "ga_cg: N=%d must be a positive multiple of the %d nodes\n", n, nodes);
        return 2;
    }
    rows = n / nodes;
    lo = me * rows;
    tsr_ga_attr attr = TSR_GA_ATTR_DEFAULT;
    attr.engine = TSR_GA_ORDER_CACHE;
    attr.cache_node_bits = 2;
    attr.cache_addr_bits = addr_bits;
    pvec = tsr_ga_alloc((size_t)rows * 8, &attr);
    sums = tsr_ga_alloc((size_t)nodes * 8, NULL);
    double res[2], ms[2];
    uint64_t hits = 0, misses = 0;
    for (int ghost = 0; ghost < 2; ghost++) {
        uint64_t h0 = counter("ga_read_hits"), m0 = counter("ga_read_misses");
        double t0 = tsr_wtime();
        res[ghost] = cg(ghost);
        ms[ghost] = (tsr_wtime() - t0) * 1e3;
        if (!ghost)
            hits = counter("ga_read_hits") - h0, misses = counter("ga_read_misses") - m0;
    }
    int same = fabs(res[0] - res[1]) <= 1e-9 * (1 + fabs(res[0]));
    if (me == 0) {
        printf("%-6s %5s %6s %5s %10s %10s %10s %7s %12s\n", "kernel", "nodes", "N", "bits",
               "ms", "rd_hits", "rd_miss", "hit%", "residual");
        printf("%-6s %5d %6d %5d %10.1f %10llu %10llu %6.2f%% %12.6g\n", "v0", nodes, n,
               addr_bits, ms[0], (unsigned long long)hits, (unsigned long long)misses,
               hits + misses ? 100.0 * hits / (hits + misses) : 0.0, res[0]);
        printf("%-6s %5d %6d %5s %10.1f %10s %10s %7s %12.6g%s\n", "ghost", nodes, n, "-", ms[1],
               "-", "-", "-", res[1], same ? "" : "  RESIDUALS DIFFER");
    }
    tsr_finalize();
    return same ? 0 : 1;
}
