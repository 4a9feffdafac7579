/*
 * fft_seq.c - the six-step FFT as plain sequential C: one worker that owns
 * every row and never waits. Transforms forward and back and checks both.
 *
 *   fft_seq LOG2N        (LOG2N even; n = 2^LOG2N complex points)
 */
#include "app.h"
#include "fft.h"

static fft_complex *alloc_points(long n)
{
    fft_complex *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "fft_seq: out of memory\n");
        exit(2);
    }
    return a;
}

int main(int argc, char **argv)
{
    long log2n = fft_parse_log2n(argc, argv);
    long rootn = 1L << (log2n / 2), n = rootn * rootn;

    fft_complex *x = alloc_points(n), *spectrum = alloc_points(n), *tmp = alloc_points(n);
    fft_complex *twiddle = alloc_points(n), *roots = alloc_points(rootn / 2);
    fft_init_input(x, rootn, 0, rootn);
    fft_init_twiddle(twiddle, rootn, 0, rootn);
    fft_init_roots(roots, rootn);
    fft_plan plan = {rootn, twiddle, roots, 0, rootn, fft_no_sync};

    double start = app_now();
    fft_six_step(&plan, x, spectrum, tmp, FFT_FORWARD);
    fft_six_step(&plan, spectrum, x, tmp, FFT_INVERSE);
    double seconds = app_now() - start;

    int ok = fft_check(spectrum, x, rootn);
    char size[32];
    snprintf(size, sizeof size, "%ld", log2n);
    return app_report("fft", "seq", 1, size, seconds, ok);
}
