/*
 * lu.h - blocked LU factorisation without pivoting (SPLASH-2 LU, contiguous
 * blocks), shared by the sequential, Tessera and MPI versions.
 *
 * The n x n matrix is an nb x nb array of b x b blocks, each block
 * contiguous (row-major inside) and reached through a table of block
 * pointers, so each version can put blocks where it likes. Step K of the
 * factorisation has three phases, separated by barriers in a parallel run:
 *   1. factor the diagonal block (K,K) into L and U;
 *   2. perimeter: row blocks (K,J) := L(K,K)^-1 (K,J), column blocks
 *      (I,K) := (I,K) U(K,K)^-1, for I, J > K;
 *   3. interior: (I,J) -= (I,K) (K,J) for I, J > K.
 * Each block is updated only by its owner in a 2-D scatter over a pr x pc
 * grid of nodes. A block sees the same operations in the same order however
 * the work is distributed, so every run's factors are bitwise identical.
 * The matrix is made diagonally dominant so that no pivoting is needed.
 */
#ifndef LU_H
#define LU_H

#include <math.h>

#include "app.h"

typedef struct lu_params {
    long n, b; /* matrix order and block order */
    long nb;   /* blocks per row and column */
    char size[64];
} lu_params;

/* Reads `n b`; b must divide n. */
static inline void lu_parse(int argc, char **argv, lu_params *p)
{
    p->n = app_arg(argc, argv, 1, "n", 256);
    p->b = app_arg(argc, argv, 2, "b", 16);
    if (p->n % p->b) {
        fprintf(stderr, "%s: the block size b=%ld must divide n=%ld\n", argv[0], p->b, p->n);
        exit(2);
    }
    p->nb = p->n / p->b;
    snprintf(p->size, sizeof p->size, "%ldx%ld", p->n, p->b);
}

/* The 2-D scatter: block (I,J) belongs to node (I % pr) * pc + J % pc of a
 * pr x pc node grid. `me` is the node using the grid, or -1 for a
 * sequential run, which does every block. */
typedef struct lu_grid {
    int pr, pc, me;
} lu_grid;

/* The squarest grid for `nodes`, which balances both the perimeter work
 * (a row of blocks over pc nodes, a column over pr) and the interior. */
static inline lu_grid lu_make_grid(int nodes, int me)
{
    lu_grid g = {1, nodes, me};
    for (int r = 1; r * r <= nodes; r++)
        if (nodes % r == 0)
            g.pr = r, g.pc = nodes / r;
    return g;
}

static inline int lu_owner(const lu_grid *g, long I, long J)
{
    return (int)(I % g->pr) * g->pc + (int)(J % g->pc);
}

static inline int lu_mine(const lu_grid *g, long I, long J)
{
    return g->me < 0 || lu_owner(g, I, J) == g->me;
}

static inline double *lu_block(double *const *blk, const lu_params *p, long I, long J)
{
    return blk[I * p->nb + J];
}

/* Element (i, j) of the input: hashed values in [0, 1) off the diagonal and
 * n more on it, so every row is strictly diagonally dominant. */
static inline double lu_input(const lu_params *p, long i, long j)
{
    unsigned long h = (unsigned long)i * 2654435761u + (unsigned long)j * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 1000003u) / 1000003.0 + (i == j ? (double)p->n : 0.0);
}

/* Element (i, j) of a blocked matrix. */
static inline double lu_at(double *const *blk, const lu_params *p, long i, long j)
{
    return lu_block(blk, p, i / p->b, j / p->b)[(i % p->b) * p->b + j % p->b];
}

/* Fills the blocks that `g` owns with the input. */
static inline void lu_init_blocks(double *const *blk, const lu_params *p, const lu_grid *g)
{
    for (long I = 0; I < p->nb; I++)
        for (long J = 0; J < p->nb; J++) {
            if (!lu_mine(g, I, J))
                continue;
            double *a = lu_block(blk, p, I, J);
            for (long r = 0; r < p->b; r++)
                for (long c = 0; c < p->b; c++)
                    a[r * p->b + c] = lu_input(p, I * p->b + r, J * p->b + c);
        }
}

/* ---- Block kernels (b x b, row-major), in lu_kernels.c ------------------
 * (app.h says why they are not inline). */

/* In place: d = L U, L unit lower triangular (stored below the diagonal). */
void lu_factor_diagonal(double *d, long b);
/* a := L^-1 a, with L the unit lower triangle of the factored block d. */
void lu_solve_row_block(const double *d, double *a, long b);
/* a := a U^-1, with U the upper triangle of the factored block d. */
void lu_solve_column_block(const double *d, double *a, long b);
/* c -= l u */
void lu_update_block(double *c, const double *l, const double *u, long b);

/* ---- The three phases of step K, each over the blocks `g` owns ------------ */

static inline void lu_phase_diagonal(double *const *blk, const lu_params *p, const lu_grid *g,
                                     long K)
{
    if (lu_mine(g, K, K))
        lu_factor_diagonal(lu_block(blk, p, K, K), p->b);
}

static inline void lu_phase_perimeter(double *const *blk, const lu_params *p, const lu_grid *g,
                                      long K)
{
    const double *d = lu_block(blk, p, K, K);
    for (long J = K + 1; J < p->nb; J++)
        if (lu_mine(g, K, J))
            lu_solve_row_block(d, lu_block(blk, p, K, J), p->b);
    for (long I = K + 1; I < p->nb; I++)
        if (lu_mine(g, I, K))
            lu_solve_column_block(d, lu_block(blk, p, I, K), p->b);
}

static inline void lu_phase_interior(double *const *blk, const lu_params *p, const lu_grid *g,
                                     long K)
{
    for (long I = K + 1; I < p->nb; I++)
        for (long J = K + 1; J < p->nb; J++)
            if (lu_mine(g, I, J))
                lu_update_block(lu_block(blk, p, I, J), lu_block(blk, p, I, K),
                                lu_block(blk, p, K, J), p->b);
}

static inline void lu_factor_sequential(double *const *blk, const lu_params *p)
{
    lu_grid all = lu_make_grid(1, -1);
    for (long K = 0; K < p->nb; K++) {
        lu_phase_diagonal(blk, p, &all, K);
        lu_phase_perimeter(blk, p, &all, K);
        lu_phase_interior(blk, p, &all, K);
    }
}

/* ---- Storage and checks --------------------------------------------------- */

/* A private blocked matrix: all blocks in one array, block-major. */
static inline double **lu_alloc_private(const lu_params *p)
{
    return app_table(p->nb * p->nb, p->b * p->b);
}

/* Checks the factors against the input without redoing the factorisation:
 * for a fixed x, L (U x) must equal A x up to rounding. The matrix is well
 * conditioned (diagonally dominant), so the bound can be tight. */
static inline int lu_factors_reproduce_input(double *const *blk, const lu_params *p)
{
    long n = p->n;
    double *x = app_calloc((size_t)n, sizeof *x), *ux = app_calloc((size_t)n, sizeof *ux);
    for (long j = 0; j < n; j++)
        x[j] = 1.0 + (double)(j % 5);
    for (long i = 0; i < n; i++)
        for (long j = i; j < n; j++)
            ux[i] += lu_at(blk, p, i, j) * x[j];
    int ok = 1;
    for (long i = 0; i < n; i++) {
        double lux = ux[i], ax = 0.0;
        for (long j = 0; j < i; j++)
            lux += lu_at(blk, p, i, j) * ux[j];
        for (long j = 0; j < n; j++)
            ax += lu_input(p, i, j) * x[j];
        ok &= fabs(lux - ax) <= 1e-12 * fabs(ax); /* false for a NaN too */
    }
    free(x);
    free(ux);
    return ok;
}

/* Node 0's check of a parallel factorisation: the factors reproduce the
 * input and are bitwise equal to a sequential factorisation's. */
static inline int lu_verify_parallel(double *const *blk, const lu_params *p)
{
    double **ref = lu_alloc_private(p);
    lu_grid all = lu_make_grid(1, -1);
    lu_init_blocks(ref, p, &all);
    lu_factor_sequential(ref, p);
    int ok = lu_factors_reproduce_input(blk, p);
    size_t bytes = (size_t)(p->b * p->b) * sizeof **blk;
    for (long k = 0; k < p->nb * p->nb && ok; k++)
        ok = memcmp(blk[k], ref[k], bytes) == 0;
    app_table_free(ref);
    return ok;
}

#endif
