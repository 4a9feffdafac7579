/* munin_sor.h - the Jacobi relaxation the producer_consumer tests run: a
 * grid of ROWS + 2 rows of one page each, the boundary rows fixed, rows
 * 1..ROWS split in bands, one per node, relaxed into a private scratch
 * array and copied back (the paper's SOR, Section 4.2). */
#ifndef MUNIN_SOR_H
#define MUNIN_SOR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "munin_test.h"

#define COLS 512 /* one row = one 4 KiB page */
#define ROWS 24

typedef double sor_row[COLS];

static inline double sor_initial(long i, long j) { return i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0; }

static inline void sor_relax(sor_row *dst, sor_row *src, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        for (long j = 1; j < COLS - 1; j++)
            dst[i][j] = (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]) * 0.25;
}

/* Copies rows [lo, hi) of src into dst, their fixed edges left alone. */
static inline void sor_copy(sor_row *dst, sor_row *src, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        memcpy(&dst[i][1], &src[i][1], (COLS - 2) * sizeof(double));
}

/* The band of rows [*lo, *hi) that `node` of `nodes` relaxes. */
static inline void sor_band(int node, int nodes, long *lo, long *hi)
{
    long base = ROWS / nodes, extra = ROWS % nodes;
    *lo = 1 + node * base + (node < extra ? node : extra);
    *hi = *lo + base + (node < extra);
}

/* Runs `iters` iterations over rows [lo, hi) of grid, relaxing into
 * scratch; from iteration `from` on, counts this node's update messages
 * and its other messages. */
static inline void sor_iterate(sor_row *grid, sor_row *scratch, long lo, long hi, int iters,
                               int from, uint64_t *updates, uint64_t *others)
{
    tsr_stats s0 = {0}, s1;
    uint64_t u0 = 0;
    for (int it = 0; it < iters; it++) {
        if (it == from) {
            tsr_stats_get(&s0);
            u0 = munin_counter("updates_sent");
        }
        sor_relax(scratch, grid, lo, hi);
        tsr_barrier();
        sor_copy(grid, scratch, lo, hi);
        tsr_barrier();
    }
    tsr_stats_get(&s1);
    *updates = munin_counter("updates_sent") - u0;
    *others = s1.messages_sent - s0.messages_sent - *updates;
}

/* A private array of the grid's shape; without memory the test stops,
 * saying so (tests/sh/out_of_memory fails allocations). */
static inline sor_row *sor_private_grid(void)
{
    sor_row *g = calloc(ROWS + 2, sizeof(sor_row));
    if (!g) {
        fprintf(stderr, "node %d: out of memory for a private grid\n", tsr_node());
        exit(1);
    }
    return g;
}

/* The grid after `iters` sequential iterations, in private memory. */
static inline sor_row *sor_sequential(int iters)
{
    sor_row *ref = sor_private_grid(), *tmp = sor_private_grid();
    for (long i = 0; i < ROWS + 2; i++)
        for (long j = 0; j < COLS; j++)
            ref[i][j] = sor_initial(i, j);
    for (int it = 0; it < iters; it++) {
        sor_relax(tmp, ref, 1, ROWS + 1);
        sor_copy(ref, tmp, 1, ROWS + 1);
    }
    free(tmp);
    return ref;
}

#endif
