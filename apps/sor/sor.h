/*
 * sor.h - red-black successive over-relaxation (the Rice TreadMarks/Munin
 * benchmark), shared by the sequential, Tessera and MPI versions.
 *
 * The grid has rows+2 rows and cols+2 columns; the outermost ones are a fixed
 * boundary. Point (i, j) is red when i + j is even and black otherwise. As in
 * the Rice versions the two colours live in SEPARATE matrices, each row
 * holding only its own colour's points: full-grid column j of row i is at
 * index j / 2 of that row in its colour's matrix. Updating one colour then
 * reads only the other colour's matrix, so a half-iteration writes one matrix
 * and reads the other, and a barrier between half-iterations is all the
 * synchronisation needed. Also as in the Rice code, a point becomes the plain
 * average of its four neighbours (relaxation factor 1).
 *
 * Matrices are reached through row pointer tables (`double **`, rows+2
 * entries indexed by full-grid row) so that every version runs the same
 * kernel whether its rows are one array, one shared band per node, or a
 * local band plus ghost rows.
 */
#ifndef SOR_H
#define SOR_H

#include "app.h"

enum { SOR_RED = 0, SOR_BLACK = 1 };

typedef struct sor_params {
    long rows, cols, iterations; /* interior size and number of red+black sweeps */
    long width;                  /* doubles per row of one colour's matrix */
    char size[64];               /* "rowsxcolsxiterations" for the RESULT line */
} sor_params;

/* Reads `rows cols iterations` from the command line; cols must be even so
 * that every row of the grid holds as many red points as black ones. */
static inline void sor_parse(int argc, char **argv, sor_params *p)
{
    p->rows = app_arg(argc, argv, 1, "rows", 256);
    p->cols = app_arg(argc, argv, 2, "cols", 256);
    p->iterations = app_arg(argc, argv, 3, "iterations", 10);
    if (p->cols % 2) {
        fprintf(stderr, "%s: cols must be even, got %ld\n", argv[0], p->cols);
        exit(2);
    }
    p->width = p->cols / 2 + 1;
    snprintf(p->size, sizeof p->size, "%ldx%ldx%ld", p->rows, p->cols, p->iterations);
}

/* Interior rows [*lo, *hi) updated by `node` of `nodes`: contiguous bands,
 * the first rows % nodes bands one row longer. */
static inline void sor_band(const sor_params *p, int nodes, int node, long *lo, long *hi)
{
    long base = p->rows / nodes, extra = p->rows % nodes;
    *lo = 1 + node * base + (node < extra ? node : extra);
    *hi = *lo + base + (node < extra);
}

/* Rows [*first, *end) that `node` stores and initialises: its band, plus the
 * top boundary row on the first node and the bottom one on the last. */
static inline void sor_owned_rows(const sor_params *p, int nodes, int node, long *first,
                                  long *end)
{
    sor_band(p, nodes, node, first, end);
    if (node == 0)
        *first = 0;
    if (node == nodes - 1)
        *end = p->rows + 2;
}

/* Initial value of grid point (i, j): the top edge is held at 1, the other
 * edges at 0, and the interior starts at fixed pseudo-random values in
 * [0, 1). The random interior matters: with a zero interior the heat moves
 * down one row per iteration, so rows far from the top, and with them every
 * boundary row that nodes exchange, would stay zero for the whole run and a
 * lost update would go unnoticed. */
static inline double sor_initial(const sor_params *p, long i, long j)
{
    if (i == 0)
        return 1.0;
    if (i > p->rows || j == 0 || j > p->cols)
        return 0.0;
    return app_unit((uint64_t)i << 32 | (uint64_t)j);
}

/* Sets rows [first, end) of both matrices to their initial values. */
static inline void sor_init_rows(double *const *red, double *const *black,
                                 const sor_params *p, long first, long end)
{
    for (long i = first; i < end; i++)
        for (long k = 0; k < p->width; k++) {
            /* Red points of row i sit at even i+j, black at odd i+j. */
            red[i][k] = sor_initial(p, i, 2 * k + (i & 1));
            black[i][k] = sor_initial(p, i, 2 * k + ((i + 1) & 1));
        }
}

/* One half-iteration on interior rows [lo, hi): every point of `dst`'s colour
 * becomes the average of its four neighbours, all of which are in `src`.
 * In sor_kernels.c (app.h says why). */
void sor_sweep(double *const *dst, double *const *src, int colour, const sor_params *p, long lo,
               long hi);

/* A whole private colour matrix: row pointers into one array. */
static inline double **sor_alloc_private(const sor_params *p)
{
    return app_table(p->rows + 2, p->width);
}

/* The whole computation on one processor: the reference every parallel run
 * must match bit for bit, since each point sees the same operations. */
static inline void sor_solve_sequential(double *const *red, double *const *black,
                                        const sor_params *p)
{
    for (long it = 0; it < p->iterations; it++) {
        sor_sweep(red, black, SOR_RED, p, 1, p->rows + 1);
        sor_sweep(black, red, SOR_BLACK, p, 1, p->rows + 1);
    }
}

/* Plausibility of a result on its own: averaging never leaves the range of
 * the boundary values (maximum principle), so every point lies in [0, 1], and
 * after at least one sweep heat has reached the first interior row. */
static inline int sor_plausible(double *const *red, double *const *black, const sor_params *p)
{
    for (long i = 0; i < p->rows + 2; i++)
        for (long k = 0; k < p->width; k++)
            if (!(red[i][k] >= 0.0 && red[i][k] <= 1.0 && black[i][k] >= 0.0 &&
                  black[i][k] <= 1.0))
                return 0;
    return red[1][1] > 0.0 || black[1][1] > 0.0;
}

/* Exact comparison of two grids (same operations in the same order). */
static inline int sor_identical(double *const *red_a, double *const *black_a,
                                double *const *red_b, double *const *black_b,
                                const sor_params *p)
{
    for (long i = 0; i < p->rows + 2; i++)
        for (long k = 0; k < p->width; k++)
            if (red_a[i][k] != red_b[i][k] || black_a[i][k] != black_b[i][k])
                return 0;
    return 1;
}

/* Node 0's check of a parallel result: plausible and equal to a sequential
 * run of the same kernel. */
static inline int sor_verify_parallel(double *const *red, double *const *black,
                                      const sor_params *p)
{
    double **ref_red = sor_alloc_private(p), **ref_black = sor_alloc_private(p);
    sor_init_rows(ref_red, ref_black, p, 0, p->rows + 2);
    sor_solve_sequential(ref_red, ref_black, p);
    int ok = sor_plausible(red, black, p) && sor_identical(red, black, ref_red, ref_black, p);
    app_table_free(ref_red);
    app_table_free(ref_black);
    return ok;
}

#endif
