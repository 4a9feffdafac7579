/*
 * fft.h - the six-step 1-D complex FFT (after SPLASH-2 FFT), shared by the
 * sequential and the Tessera versions.
 *
 * The n = r*r points are viewed as an r x r row-major matrix. With
 * w_n = exp(-2*pi*i/n), input index j = j1 + r*j2 and output index
 * k = k1 + r*k2, the DFT factors into
 *
 *   1. transpose            B[j1][j2] = x[j2][j1]
 *   2. FFT every row of B   (length r, over j2 -> k1)
 *   3. twiddle              B[j1][k1] *= w_n^(j1*k1)
 *   4. transpose            C[k1][j1] = B[j1][k1]
 *   5. FFT every row of C   (over j1 -> k2)
 *   6. transpose            X[k2][k1] = C[k1][k2], i.e. X in natural order.
 *
 * Every step works on whole rows of its destination, so a worker that owns a
 * block of rows does steps 2, 3 and 5 without talking to anyone; only the
 * transposes read other workers' rows. A worker runs the same code alone
 * (rows 0..r-1, no synchronisation) or as one of several nodes, and since no
 * arithmetic depends on the row split the results are bitwise identical.
 */
#ifndef FFT_H
#define FFT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"

typedef struct fft_complex {
    double re, im;
} fft_complex;

/* Forward transforms use w = exp(-2*pi*i/n); inverse ones its conjugate. */
#define FFT_FORWARD 1.0
#define FFT_INVERSE (-1.0)

/* Side of the square tiles the transpose moves, so that both the rows read
 * and the rows written stay in cache while a tile is copied. */
#define FFT_TILE 16

/* What one worker needs to run its share of a transform. */
typedef struct fft_plan {
    long rootn;                 /* n = rootn * rootn points */
    const fft_complex *twiddle; /* rootn x rootn, twiddle[j][k] = w_n^(j*k) */
    const fft_complex *roots;   /* rootn/2 values w_rootn^k for the row FFTs */
    long row_lo, row_hi;        /* the rows this worker writes */
    void (*sync)(void);         /* waits until every worker got here */
} fft_plan;

/* The sync of a worker that runs alone. */
static void fft_no_sync(void) {}

/* log2 n from the command line: it must be even for n to be a square. */
static long fft_parse_log2n(int argc, char **argv)
{
    long log2n = app_arg(argc, argv, 1, "log2n", 10);
    if (log2n % 2 != 0 || log2n < 2 || log2n > 30) {
        fprintf(stderr, "%s: log2n must be even and in 2..30, got %ld\n", argv[0], log2n);
        exit(2);
    }
    return log2n;
}

/* A fixed pseudo-random number in [-1, 1) for index i (splitmix64), so that
 * any worker can generate any part of the input without shared state. */
static double fft_noise(uint64_t i) { return app_unit(i) * 2.0 - 1.0; }

static fft_complex fft_input_point(long i)
{
    fft_complex v = {fft_noise(2 * (uint64_t)i), fft_noise(2 * (uint64_t)i + 1)};
    return v;
}

/* exp(-2*pi*i*k/n); k is reduced modulo n first so that the angle, and so
 * the value, is as exact as for small k. */
static fft_complex fft_root(long k, long n)
{
    double angle = -2.0 * M_PI * (double)(k % n) / (double)n;
    fft_complex w = {cos(angle), sin(angle)};
    return w;
}

static void fft_init_input(fft_complex *x, long rootn, long row_lo, long row_hi)
{
    for (long i = row_lo * rootn; i < row_hi * rootn; i++)
        x[i] = fft_input_point(i);
}

static void fft_init_twiddle(fft_complex *twiddle, long rootn, long row_lo, long row_hi)
{
    for (long j = row_lo; j < row_hi; j++)
        for (long k = 0; k < rootn; k++)
            twiddle[j * rootn + k] = fft_root(j * k, rootn * rootn);
}

static void fft_init_roots(fft_complex *roots, long rootn)
{
    for (long k = 0; k < rootn / 2; k++)
        roots[k] = fft_root(k, rootn);
}

/* a * w, with w conjugated for the inverse transform. */
static inline fft_complex fft_mul(fft_complex a, fft_complex w, double dir)
{
    double wim = w.im * dir;
    fft_complex p = {a.re * w.re - a.im * wim, a.re * wim + a.im * w.re};
    return p;
}

/* dst rows row_lo..row_hi-1 = the matching columns of src. */
static void fft_transpose(const fft_plan *p, const fft_complex *src, fft_complex *dst)
{
    long r = p->rootn;
    for (long ib = p->row_lo; ib < p->row_hi; ib += FFT_TILE) {
        long iend = ib + FFT_TILE < p->row_hi ? ib + FFT_TILE : p->row_hi;
        for (long jb = 0; jb < r; jb += FFT_TILE) {
            long jend = jb + FFT_TILE < r ? jb + FFT_TILE : r;
            for (long i = ib; i < iend; i++)
                for (long j = jb; j < jend; j++)
                    dst[i * r + j] = src[j * r + i];
        }
    }
}

/* Puts a[i] at position bitreverse(i), as the iterative FFT expects. */
static void fft_bit_reverse(fft_complex *a, long len)
{
    for (long i = 0, j = 0; i < len; i++) {
        if (i < j) {
            fft_complex t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        long bit = len >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
    }
}

/* In-place radix-2 FFT of one row of length r (iterative Cooley-Tukey). */
static void fft_row(fft_complex *a, long r, const fft_complex *roots, double dir)
{
    fft_bit_reverse(a, r);
    for (long len = 2; len <= r; len <<= 1) {
        long half = len / 2, stride = r / len;
        for (long start = 0; start < r; start += len) {
            for (long k = 0; k < half; k++) {
                fft_complex *lo = &a[start + k], *hi = &a[start + k + half];
                fft_complex t = fft_mul(*hi, roots[k * stride], dir);
                hi->re = lo->re - t.re;
                hi->im = lo->im - t.im;
                lo->re += t.re;
                lo->im += t.im;
            }
        }
    }
}

static void fft_rows(const fft_plan *p, fft_complex *a, double dir)
{
    for (long i = p->row_lo; i < p->row_hi; i++)
        fft_row(&a[i * p->rootn], p->rootn, p->roots, dir);
}

static void fft_apply_twiddle(const fft_plan *p, fft_complex *a, double dir)
{
    for (long i = p->row_lo * p->rootn; i < p->row_hi * p->rootn; i++)
        a[i] = fft_mul(a[i], p->twiddle[i], dir);
}

/* out = DFT(in) (unscaled; the inverse leaves a factor n), tmp is scratch
 * and in is left unchanged. A worker waits for the others before each
 * transpose, the only steps that read rows other workers wrote; the caller
 * waits after the call before reading out. */
static void fft_six_step(const fft_plan *p, const fft_complex *in, fft_complex *out,
                         fft_complex *tmp, double dir)
{
    p->sync();
    fft_transpose(p, in, out);
    fft_rows(p, out, dir);
    fft_apply_twiddle(p, out, dir);
    p->sync();
    fft_transpose(p, out, tmp);
    fft_rows(p, tmp, dir);
    p->sync();
    fft_transpose(p, tmp, out);
}

/* Largest |x[i]/n - input[i]|: the inverse of the forward transform must
 * give back the input. */
static double fft_roundtrip_error(const fft_complex *x, long rootn)
{
    long n = rootn * rootn;
    double worst = 0.0;
    for (long i = 0; i < n; i++) {
        fft_complex in = fft_input_point(i);
        double e = fabs(x[i].re / (double)n - in.re) + fabs(x[i].im / (double)n - in.im);
        worst = e > worst ? e : worst;
    }
    return worst;
}

/* Largest distance between the FFT's output bins k of `spectrum` and the
 * DFT sum computed directly: guards against a transform that is its own
 * inverse but not the DFT (a wrong twiddle sign, say). */
static double fft_dft_error(const fft_complex *spectrum, long rootn)
{
    long n = rootn * rootn;
    long bins[] = {1, n / 3, n - 1};
    double worst = 0.0;
    for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++) {
        long k = bins[b];
        fft_complex sum = {0.0, 0.0};
        for (long j = 0; j < n; j++) {
            fft_complex t = fft_mul(fft_input_point(j), fft_root(j * k, n), FFT_FORWARD);
            sum.re += t.re;
            sum.im += t.im;
        }
        double e = fabs(spectrum[k].re - sum.re) + fabs(spectrum[k].im - sum.im);
        worst = e > worst ? e : worst;
    }
    return worst;
}

/* The checks both versions make on `spectrum` = forward(input) and
 * `roundtrip` = inverse(spectrum). Errors grow with log n in the FFT and
 * with n in the direct DFT sums, hence the tolerances. */
static int fft_check(const fft_complex *spectrum, const fft_complex *roundtrip, long rootn)
{
    double n = (double)rootn * (double)rootn;
    double roundtrip_err = fft_roundtrip_error(roundtrip, rootn);
    double dft_err = fft_dft_error(spectrum, rootn);
    int ok = roundtrip_err < 1e-12 * log2(n) && dft_err < 1e-12 * n;
    if (!ok)
        fprintf(stderr, "fft: round-trip error %g, DFT error %g\n", roundtrip_err, dft_err);
    return ok;
}

#endif
