/* sor_kernels.c - the sweep of red-black SOR, one copy of the code for every
 * version (app.h says why it is not inline). */
#include "sor.h"

void sor_sweep(double *const *dst, double *const *src, int colour, const sor_params *p, long lo,
               long hi)
{
    long half = p->cols / 2; /* interior points of one colour per row */
    for (long i = lo; i < hi; i++) {
        /* In row i this colour holds the points at odd j when (i + colour)
         * is odd; point j = 2k+1 then has its left and right neighbours at
         * indices k and k+1 of src. At even j = 2k they are at k-1 and k,
         * and column 0 (index 0) is boundary. The vertical neighbours are at
         * index k in rows i-1 and i+1 either way. */
        int odd = (i + colour) & 1;
        long first = odd ? 0 : 1, side = odd ? 1 : -1;
        const double *up = src[i - 1], *mid = src[i], *down = src[i + 1];
        double *out = dst[i];
        for (long k = first; k < first + half; k++)
            out[k] = (up[k] + down[k] + mid[k] + mid[k + side]) * 0.25;
    }
}
