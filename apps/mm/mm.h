/*
 * mm.h - dense matrix multiply C = A x B (the Munin benchmark), shared by the
 * sequential, Tessera and MPI versions.
 *
 * The n x n matrices are reached through row pointer tables (n entries) so
 * that every version runs the same kernel whether a matrix is one array, one
 * shared band of rows per node, or a rank's local rows. A node computes a
 * contiguous band of rows of C, which needs the same band of A and all of B.
 */
#ifndef MM_H
#define MM_H

#include <math.h>

#include "app.h"

typedef struct mm_params {
    long n;
    char size[32]; /* "n" for the RESULT line */
} mm_params;

static inline void mm_parse(int argc, char **argv, mm_params *p)
{
    p->n = app_arg(argc, argv, 1, "n", 256);
    snprintf(p->size, sizeof p->size, "%ld", p->n);
}

/* Rows [*lo, *hi) of `node` of `nodes`: contiguous bands, the first
 * n % nodes bands one row longer. */
static inline void mm_band(long n, int nodes, int node, long *lo, long *hi)
{
    long base = n / nodes, extra = n % nodes;
    *lo = node * base + (node < extra ? node : extra);
    *hi = *lo + base + (node < extra);
}

/* Element (i, j) of A (which = 0) or B (which = 1): values in [-0.5, 0.5)
 * from an integer hash, so that results are not exact and any difference in
 * operation order would show. */
static inline double mm_input(int which, long i, long j)
{
    unsigned long h = (unsigned long)i * 2654435761u + (unsigned long)j * 40503u;
    h += (unsigned long)which;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 1000003u) / 1000003.0 - 0.5;
}

/* Fills rows [lo, hi) of one input matrix. */
static inline void mm_init_rows(double *const *m, int which, long n, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < n; j++)
            m[i][j] = mm_input(which, i, j);
}

/* Rows [lo, hi) of C = A x B. In mm_kernels.c (app.h says why). */
void mm_multiply_rows(double *const *c, double *const *a, double *const *b, long n, long lo,
                      long hi);

/* An n x n private matrix: row pointers into one array. */
static inline double **mm_alloc_private(long n)
{
    return app_table(n, n);
}

/* A zeroed private vector of n doubles. */
static inline double *mm_vector(long n)
{
    return app_calloc((size_t)n, sizeof(double));
}

/* y = M x for the n x n matrix M. */
static inline void mm_times_vector(double *y, double *const *m, const double *x, long n)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += m[i][j] * x[j];
        y[i] = s;
    }
}

/* Freivalds' check, independent of the kernel: C x must equal A (B x) for a
 * fixed vector x up to rounding. The bound is loose (rounding errors are
 * orders of magnitude smaller) yet far below what one wrong element of C,
 * of size about sqrt(n)/12, would cause. */
static inline int mm_freivalds(double *const *c, double *const *a, double *const *b, long n)
{
    double *x = mm_vector(n), *bx = mm_vector(n), *abx = mm_vector(n), *cx = mm_vector(n);
    for (long j = 0; j < n; j++)
        x[j] = 1.0 / (double)(1 + j % 7);
    mm_times_vector(bx, b, x, n);
    mm_times_vector(abx, a, bx, n);
    mm_times_vector(cx, c, x, n);
    int ok = 1;
    for (long i = 0; i < n; i++)
        ok &= fabs(cx[i] - abx[i]) <= 1e-12 * (double)n * (double)n; /* false for a NaN too */
    free(x);
    free(bx);
    free(abx);
    free(cx);
    return ok;
}

/* The inputs, whole and private. */
static inline void mm_make_inputs(double ***a, double ***b, long n)
{
    *a = mm_alloc_private(n);
    *b = mm_alloc_private(n);
    mm_init_rows(*a, 0, n, 0, n);
    mm_init_rows(*b, 1, n, 0, n);
}

/* Node 0's check of a parallel product: it passes Freivalds' check and
 * equals, bit for bit, the sequential kernel's product (every element is
 * computed by the same operations in the same order). */
static inline int mm_verify_parallel(double *const *c, long n)
{
    double **a, **b, **ref = mm_alloc_private(n);
    mm_make_inputs(&a, &b, n);
    mm_multiply_rows(ref, a, b, n, 0, n);
    int ok = mm_freivalds(c, a, b, n);
    for (long i = 0; i < n && ok; i++)
        ok = memcmp(c[i], ref[i], (size_t)n * sizeof **c) == 0;
    app_table_free(a);
    app_table_free(b);
    app_table_free(ref);
    return ok;
}

#endif
