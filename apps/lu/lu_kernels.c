/* lu_kernels.c - the block kernels of blocked LU, one copy of the code for
 * every version (app.h says why they are not inline). */
#include "lu.h"

void lu_factor_diagonal(double *d, long b)
{
    for (long k = 0; k < b; k++)
        for (long i = k + 1; i < b; i++) {
            double l = d[i * b + k] /= d[k * b + k];
            for (long j = k + 1; j < b; j++)
                d[i * b + j] -= l * d[k * b + j];
        }
}

void lu_solve_row_block(const double *d, double *a, long b)
{
    for (long k = 0; k < b; k++)
        for (long i = k + 1; i < b; i++) {
            double l = d[i * b + k];
            for (long j = 0; j < b; j++)
                a[i * b + j] -= l * a[k * b + j];
        }
}

/* Solves each row x of x U = a by forward substitution. */
void lu_solve_column_block(const double *d, double *a, long b)
{
    for (long r = 0; r < b; r++) {
        double *x = a + r * b;
        for (long k = 0; k < b; k++) {
            double v = x[k] /= d[k * b + k];
            for (long j = k + 1; j < b; j++)
                x[j] -= v * d[k * b + j];
        }
    }
}

void lu_update_block(double *c, const double *l, const double *u, long b)
{
    for (long i = 0; i < b; i++)
        for (long k = 0; k < b; k++) {
            double v = l[i * b + k];
            for (long j = 0; j < b; j++)
                c[i * b + j] -= v * u[k * b + j];
        }
}
