/*
 * fft.c - the six-step FFT on Tessera: a forward transform followed by the
 * inverse one, node 0 checking the result against the sequential forward
 * transform computed with the same code (fft.h).
 *
 *   tsrun -n NODES fft LOG2N        (LOG2N even; n = 2^LOG2N complex points)
 *
 * The three data matrices and the twiddle matrix live in shared memory with
 * block homes: node k's pages hold (about) the rows node k writes, so every
 * step but the transposes runs on home pages and the transposes fetch just
 * the other nodes' rows they read. The row-FFT roots are small and only read:
 * every node computes its own private copy.
 */
#include <string.h>

#include "app.h"
#include "fft.h"
#include "tessera.h"

static fft_complex *alloc_private(long n)
{
    fft_complex *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "fft: out of memory\n");
        exit(2);
    }
    return a;
}

/* The first row of node `node`: the rows are split into contiguous blocks
 * whose sizes differ by at most one, in node order like the block homes. */
static long first_row(long rows, int node, int nodes)
{
    return rows * node / nodes;
}

/* Node 0, after the run: the checks the sequential version makes, and the
 * parallel spectrum must equal the sequential one bit for bit, because the
 * row split changes no arithmetic. */
static int verify(const fft_complex *spectrum, const fft_complex *roundtrip, long rootn,
                  const fft_complex *roots)
{
    long n = rootn * rootn;
    fft_complex *x = alloc_private(n), *expected = alloc_private(n), *tmp = alloc_private(n);
    fft_complex *twiddle = alloc_private(n);
    fft_init_input(x, rootn, 0, rootn);
    fft_init_twiddle(twiddle, rootn, 0, rootn);
    fft_plan alone = {rootn, twiddle, roots, 0, rootn, fft_no_sync};
    fft_six_step(&alone, x, expected, tmp, FFT_FORWARD);

    int same = memcmp(spectrum, expected, (size_t)n * sizeof *expected) == 0;
    if (!same)
        fprintf(stderr, "fft: parallel spectrum differs from the sequential one\n");
    int ok = fft_check(spectrum, roundtrip, rootn) && same;
    free(x);
    free(expected);
    free(tmp);
    free(twiddle);
    return ok;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), nodes = tsr_nodes();
    long log2n = fft_parse_log2n(argc, argv);
    long rootn = 1L << (log2n / 2), n = rootn * rootn;
    size_t bytes = (size_t)n * sizeof(fft_complex);

    fft_complex *x = tsr_alloc(bytes), *spectrum = tsr_alloc(bytes), *tmp = tsr_alloc(bytes);
    fft_complex *twiddle = tsr_alloc(bytes), *roots = alloc_private(rootn / 2);
    long row_lo = first_row(rootn, me, nodes), row_hi = first_row(rootn, me + 1, nodes);
    fft_init_input(x, rootn, row_lo, row_hi);
    fft_init_twiddle(twiddle, rootn, row_lo, row_hi);
    fft_init_roots(roots, rootn);
    fft_plan plan = {rootn, twiddle, roots, row_lo, row_hi, tsr_barrier};
    tsr_barrier();

    double start = tsr_wtime();
    fft_six_step(&plan, x, spectrum, tmp, FFT_FORWARD);
    fft_six_step(&plan, spectrum, x, tmp, FFT_INVERSE);
    tsr_barrier();
    double seconds = tsr_wtime() - start;

    int status = 0;
    if (me == 0) {
        char size[32];
        snprintf(size, sizeof size, "%ld", log2n);
        int ok = verify(spectrum, x, rootn, roots);
        status = app_report("fft", "tessera", nodes, size, seconds, ok);
    }
    free(roots);
    tsr_finalize();
    return status;
}
