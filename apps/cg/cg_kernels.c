/* cg_kernels.c - the kernels of CG on a band, one copy of the code for every
 * version (app.h says why they are not inline). */
#include "cg.h"

double cg_multiply(const cg_matrix *a, const double *p, double *q)
{
    double pq = 0.0;
    for (long row = a->lo; row < a->hi; row++) {
        double s = 0.0;
        for (long e = a->start[row - a->lo]; e < a->start[row - a->lo + 1]; e++)
            s += a->val[e] * p[a->col[e]];
        q[row] = s;
        pq += p[row] * s;
    }
    return pq;
}

double cg_dot(const double *u, const double *v, long lo, long hi)
{
    double s = 0.0;
    for (long i = lo; i < hi; i++)
        s += u[i] * v[i];
    return s;
}

double cg_step(double *x, double *r, const double *p, const double *q, double alpha, long lo,
               long hi)
{
    double rr = 0.0;
    for (long i = lo; i < hi; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        rr += r[i] * r[i];
    }
    return rr;
}

void cg_new_direction(double *p, const double *r, double beta, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        p[i] = r[i] + beta * p[i];
}
