/*
 * cg.h - conjugate gradient on a sparse symmetric positive-definite matrix,
 * shared by the sequential, Tessera and MPI versions.
 *
 * The matrix is the 5-point Laplacian of a grid x grid mesh (Dirichlet
 * boundary) plus CG_SHIFT on the diagonal, stored in CSR form. The shift
 * bounds the condition number by about 8 / CG_SHIFT whatever the grid size,
 * so a fixed, moderate number of iterations solves A x = b (b = 1) to the
 * accuracy the check asks for at every size, and the work per iteration
 * grows with the grid alone.
 *
 * Unknowns are split into contiguous bands of whole pages (cg_band), one per
 * node: a node computes its band of q = A p, x, r and p, reading p across
 * band edges only, and the two dot products of each iteration are sums of
 * per-node partial sums. The iteration itself (cg_solve) is written once;
 * each version supplies how partial sums are combined and how a new search
 * direction is made visible to the nodes that read it.
 */
#ifndef CG_H
#define CG_H

#include <math.h>

#include "app.h"

#define CG_SHIFT 0.05
/* Relative residual at which the iteration stops early: converged to what
 * double precision allows; more steps would divide by vanishing sums. */
#define CG_STOP 1e-12
/* Relative residual ||b - A x|| / ||b|| that a result must reach. */
#define CG_CHECK 1e-6
/* Relative max-norm distance a parallel x may have from the sequential one:
 * their dot products are summed in different orders. */
#define CG_AGREE 1e-9
/* Doubles in a 4096-byte page: bands start on page boundaries. */
#define CG_PAGE_DOUBLES 512

typedef struct cg_params {
    long grid, iterations; /* mesh side, maximum number of iterations */
    long n;                /* unknowns: grid * grid */
    char size[64];
} cg_params;

static inline void cg_parse(int argc, char **argv, cg_params *p)
{
    p->grid = app_arg(argc, argv, 1, "grid", 128);
    p->iterations = app_arg(argc, argv, 2, "iterations", 100);
    if (p->grid > 46340) { /* column indices are ints */
        fprintf(stderr, "%s: grid must be at most 46340, got %ld\n", argv[0], p->grid);
        exit(2);
    }
    p->n = p->grid * p->grid;
    snprintf(p->size, sizeof p->size, "%ldx%ld", p->grid, p->iterations);
}

/* Unknowns per band: an equal share rounded up to whole pages, so that each
 * node's part of a vector is a run of pages it alone writes. */
static inline long cg_band_capacity(long n, int nodes)
{
    long share = (n + nodes - 1) / nodes;
    return (share + CG_PAGE_DOUBLES - 1) / CG_PAGE_DOUBLES * CG_PAGE_DOUBLES;
}

/* Unknowns [*lo, *hi) of `node`; the last bands may be short or empty. */
static inline void cg_band(long n, int nodes, int node, long *lo, long *hi)
{
    long cap = cg_band_capacity(n, nodes);
    *lo = node * cap < n ? node * cap : n;
    *hi = *lo + cap < n ? *lo + cap : n;
}

/* Unknowns band `node` reads just below and just above itself: one grid
 * row each side, clipped to the mesh; none for an empty band. */
static inline void cg_halo(const cg_params *p, int nodes, int node, long *below, long *above)
{
    long lo, hi;
    cg_band(p->n, nodes, node, &lo, &hi);
    *below = lo < hi ? lo - (lo > p->grid ? lo - p->grid : 0) : 0;
    *above = lo < hi ? (hi + p->grid < p->n ? hi + p->grid : p->n) - hi : 0;
}

/* ---- The matrix ------------------------------------------------------------- */

/* Rows [lo, hi) of A in CSR form, with global column numbers. */
typedef struct cg_matrix {
    long lo, hi;
    long *start; /* row lo + r's entries are [start[r], start[r + 1]) */
    int *col;
    double *val;
} cg_matrix;

/* Appends the entries of row `row` (mesh point i, j) in column order. */
static inline long cg_append_row(cg_matrix *a, long e, long row, long grid)
{
    long i = row / grid, j = row % grid;
    long cols[5] = {row - grid, row - 1, row, row + 1, row + grid};
    int present[5] = {i > 0, j > 0, 1, j < grid - 1, i < grid - 1};
    for (int t = 0; t < 5; t++)
        if (present[t]) {
            a->col[e] = (int)cols[t];
            a->val[e++] = t == 2 ? 4.0 + CG_SHIFT : -1.0;
        }
    return e;
}

static inline cg_matrix cg_build_matrix(const cg_params *p, long lo, long hi)
{
    cg_matrix a = {lo, hi, app_calloc((size_t)(hi - lo + 1), sizeof(long)),
                   app_calloc((size_t)(hi - lo) * 5, sizeof(int)),
                   app_calloc((size_t)(hi - lo) * 5, sizeof(double))};
    long e = 0;
    for (long row = lo; row < hi; row++) {
        a.start[row - lo] = e;
        e = cg_append_row(&a, e, row, p->grid);
    }
    a.start[hi - lo] = e;
    return a;
}

static inline void cg_free_matrix(cg_matrix *a)
{
    free(a->start);
    free(a->col);
    free(a->val);
}

/* ---- Kernels on a band [a->lo, a->hi) or [lo, hi), in cg_kernels.c -------
 * (app.h says why they are not inline). */

/* q = A p on the matrix's rows; returns their part of p . q */
double cg_multiply(const cg_matrix *a, const double *p, double *q);
double cg_dot(const double *u, const double *v, long lo, long hi);
/* x += alpha p, r -= alpha q; returns the band's part of the new r . r */
double cg_step(double *x, double *r, const double *p, const double *q, double alpha, long lo,
               long hi);
/* p = r + beta p */
void cg_new_direction(double *p, const double *r, double beta, long lo, long hi);

/* ---- The iteration -------------------------------------------------------- */

/* Vectors indexed by global unknown; a node touches its band of each, and
 * p also across band edges. */
typedef struct cg_vectors {
    double *x, *r, *p, *q;
} cg_vectors;

/* Starting point x = 0, so r = p = b = 1, on [lo, hi). */
static inline void cg_init_band(const cg_vectors *v, long lo, long hi)
{
    for (long i = lo; i < hi; i++) {
        v->x[i] = 0.0;
        v->r[i] = v->p[i] = 1.0;
    }
}

/* How a version combines work across nodes. */
typedef struct cg_comm {
    double (*sum)(double partial, void *ctx); /* sum of every node's partial */
    void (*share)(double *p, void *ctx);      /* publish the new p bands */
    void *ctx;
} cg_comm;

/* Runs CG from the state cg_init_band left until `iterations` steps are done
 * or the residual has fallen by CG_STOP. Every node sees the same sums, so
 * every node takes the same branch. */
static inline void cg_solve(const cg_matrix *a, const cg_vectors *v, long iterations,
                            const cg_comm *comm)
{
    double rr = comm->sum(cg_dot(v->r, v->r, a->lo, a->hi), comm->ctx);
    double stop = rr * CG_STOP * CG_STOP;
    comm->share(v->p, comm->ctx);
    for (long it = 0; it < iterations && rr > stop; it++) {
        double alpha = rr / comm->sum(cg_multiply(a, v->p, v->q), comm->ctx);
        double rr_new = comm->sum(cg_step(v->x, v->r, v->p, v->q, alpha, a->lo, a->hi), comm->ctx);
        cg_new_direction(v->p, v->r, rr_new / rr, a->lo, a->hi);
        rr = rr_new;
        comm->share(v->p, comm->ctx);
    }
}

static inline double cg_sum_alone(double partial, void *ctx)
{
    (void)ctx;
    return partial;
}

static inline void cg_share_nothing(double *p, void *ctx)
{
    (void)p;
    (void)ctx;
}

/* Private whole-length vectors. */
static inline cg_vectors cg_alloc_private(long n)
{
    cg_vectors v = {app_calloc((size_t)n, sizeof(double)), app_calloc((size_t)n, sizeof(double)),
                    app_calloc((size_t)n, sizeof(double)), app_calloc((size_t)n, sizeof(double))};
    return v;
}

static inline void cg_free_private(cg_vectors *v)
{
    free(v->x);
    free(v->r);
    free(v->p);
    free(v->q);
}

/* The whole solve on one processor; returns x (the caller frees it). */
static inline double *cg_solve_sequential(const cg_params *p)
{
    cg_matrix a = cg_build_matrix(p, 0, p->n);
    cg_vectors v = cg_alloc_private(p->n);
    cg_comm alone = {cg_sum_alone, cg_share_nothing, NULL};
    cg_init_band(&v, 0, p->n);
    cg_solve(&a, &v, p->iterations, &alone);
    free(v.r);
    free(v.p);
    free(v.q);
    cg_free_matrix(&a);
    return v.x;
}

/* ---- Checks --------------------------------------------------------------- */

/* ||b - A x|| / ||b|| <= CG_CHECK, computed afresh from x (not the residual
 * the iteration carried, which drifts from the true one). */
static inline int cg_solves(const cg_params *p, const double *x)
{
    cg_matrix a = cg_build_matrix(p, 0, p->n);
    double *ax = app_calloc((size_t)p->n, sizeof *ax);
    cg_multiply(&a, x, ax);
    double rr = 0.0;
    for (long i = 0; i < p->n; i++)
        rr += (1.0 - ax[i]) * (1.0 - ax[i]);
    free(ax);
    cg_free_matrix(&a);
    return sqrt(rr / (double)p->n) <= CG_CHECK; /* ||b|| = sqrt(n) */
}

/* Node 0's check of a parallel x: it solves the system and agrees with the
 * sequential x to CG_AGREE. */
static inline int cg_verify_parallel(const cg_params *p, const double *x)
{
    double *ref = cg_solve_sequential(p);
    double size = 0.0;
    for (long i = 0; i < p->n; i++)
        size = fmax(size, fabs(ref[i]));
    int agree = 1;
    for (long i = 0; i < p->n; i++)
        agree &= fabs(x[i] - ref[i]) <= CG_AGREE * size; /* false for a NaN too */
    free(ref);
    return agree && cg_solves(p, x);
}

#endif
