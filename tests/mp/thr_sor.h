/* thr_sor.h - the red-black SOR of tests/mp/thr_sor.c (Tessera, threads
 * per node) and bench/thr_sor_plain.c (the same threads, no Tessera): the
 * grid's initial values, a half-sweep over a band of rows, the bands, and
 * the sequential reference both compare their grid with. The grid has
 * rows + 2 rows of cols + 2 points; the outer ones are a fixed boundary. */
#ifndef TEST_THR_SOR_H
#define TEST_THR_SOR_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static long rows, cols, iters; /* interior size; the grid has two more of each */

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

/* One thread's part: initialises rows [lo, hi) (and the boundary rows next
 * to them), then sweeps them, calling wait(n) after the initialisation and
 * after each half-sweep so that the n threads (of every node) pass it
 * together. */
static void solve_band(double *g, long lo, long hi, void (*wait)(int n), int n)
{
    for (long i = lo - (lo == 1); i < hi + (hi == rows + 1); i++)
        for (long j = 0; j < cols + 2; j++)
            AT(g, i, j) = initial(i, j);
    wait(n);
    for (long it = 0; it < iters; it++)
        for (int c = 0; c < 2; c++) {
            sweep(g, c, lo, hi);
            wait(n);
        }
}

/* Whether `grid` holds what one thread's sweeps make. */
static int matches_sequential(const double *grid)
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

#endif
