/* mm_kernels.c - the multiply of MM, one copy of the code for every version
 * (app.h says why it is not inline). */
#include "mm.h"

/* The i-k-j loop order streams rows of B and C (unit stride, vectorisable)
 * instead of walking columns of B. */
void mm_multiply_rows(double *const *c, double *const *a, double *const *b, long n, long lo,
                      long hi)
{
    for (long i = lo; i < hi; i++) {
        double *ci = c[i];
        for (long j = 0; j < n; j++)
            ci[j] = 0.0;
        for (long k = 0; k < n; k++) {
            double aik = a[i][k];
            const double *bk = b[k];
            for (long j = 0; j < n; j++)
                ci[j] += aik * bk[j];
        }
    }
}
