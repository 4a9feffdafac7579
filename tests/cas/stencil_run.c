/* Issue 46's program: a Jacobi stencil over flat shared arrays, one band
 * of rows per node, in two shapes. `swap`: each iteration reads one array
 * and writes the other between barriers. `copy` (Munin's SOR, Section
 * 4.2): it relaxes one array into private scratch, then copies its band's
 * rows back with memcpy after a barrier; each band is 255 rows at 2 nodes,
 * and the optimiser peels the odd row's copy off the unrolled loop, where
 * the iterations' barriers keep its check. Built with tsrcc, the pass checks the loop nest
 * before it runs, and the checks make every page it touches consistent as
 * faults would: the loop takes no fault under any protocol (counted with
 * faults_taken). tests/sh/cas_stencil.sh builds it with cc and tsrcc and
 * compares what they print.
 *
 *   stencil_run KIND SHAPE   KIND: hlrc, lrc, or a Munin annotation:
 *                            conventional, write_shared, producer_consumer,
 *                            result, read_only (swap only: the array read
 *                            is read_only, the one written conventional)
 *                            SHAPE: swap or copy
 *
 * Each node prints its band's checksum after the iterations (the same
 * whatever the build) and the faults its iterations took, from the first
 * on: checks make the pages consistent while Munin's producer_consumer
 * settles its copysets too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "tessera_munin.h"

#define N 512 /* doubles a row: one page */
#define ITERS 12

static const struct kind {
    const char *name;
    tsr_proto_t proto;
    int annot; /* Munin's, of the array written; -1: not Munin */
    int annot_read; /* of the array only read, for read_only */
} kinds[] = {
    {"hlrc", TSR_PROTO_HLRC, -1, -1},
    {"lrc", TSR_PROTO_LRC, -1, -1},
    {"conventional", TSR_PROTO_MUNIN, TSR_CONVENTIONAL, TSR_CONVENTIONAL},
    {"write_shared", TSR_PROTO_MUNIN, TSR_WRITE_SHARED, TSR_WRITE_SHARED},
    {"producer_consumer", TSR_PROTO_MUNIN, TSR_PRODUCER_CONSUMER, TSR_PRODUCER_CONSUMER},
    {"result", TSR_PROTO_MUNIN, TSR_RESULT, TSR_RESULT},
    {"read_only", TSR_PROTO_MUNIN, TSR_CONVENTIONAL, TSR_READ_ONLY},
};

/* Kept out of line so that the pass checks this nest as a whole. */
__attribute__((noinline)) static void relax(double *dst, const double *src, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        for (long j = 1; j < N - 1; j++)
            dst[i * N + j] = (src[(i - 1) * N + j] + src[(i + 1) * N + j] + src[i * N + j - 1] +
                              src[i * N + j + 1]) *
                             0.25;
}

/* Rows [lo, hi) of src into dst, their fixed edges left alone. */
__attribute__((noinline)) static void copy_back(double *dst, const double *src, long lo,
                                                long hi)
{
    for (long i = lo; i < hi; i++)
        memcpy(&dst[i * N + 1], &src[i * N + 1], (N - 2) * sizeof(double));
}

static const struct kind *find_kind(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    fprintf(stderr, "stencil_run: unknown kind '%s'\n", name);
    exit(2);
}

/* An N x N array, filled by node 0 (a hot top edge), then annotated. */
static double *grid(const struct kind *k, int annot)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = k->proto;
    double *g = tsr_alloc_attr(N * N * sizeof(double), &a);
    if (tsr_node() == 0)
        for (long i = 0; i < N * N; i++)
            g[i] = i < N || i >= (N - 1) * N ? 1.0 : 0.0;
    tsr_barrier();
    if (annot >= 0 && annot != TSR_CONVENTIONAL)
        tsr_hint_change_annotation(g, (tsr_annotation)annot);
    return g;
}

static uint64_t faults(void)
{
    uint64_t v = 0;
    if (tsr_counter_get("faults_taken", &v)) {
        fprintf(stderr, "stencil_run: no faults_taken counter\n");
        exit(1);
    }
    return v;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int copy = argc == 3 && !strcmp(argv[2], "copy");
    if (argc != 3 || (!copy && strcmp(argv[2], "swap"))) {
        fprintf(stderr, "usage: stencil_run KIND swap|copy\n");
        return 2;
    }
    const struct kind *k = find_kind(argv[1]);
    if (copy && k->annot_read != k->annot) {
        fprintf(stderr, "stencil_run: %s has no copy shape\n", k->name);
        return 2;
    }
    double *a = grid(k, k->annot_read), *b = copy ? calloc(N * N, sizeof *b) : grid(k, k->annot);
    if (!b) {
        fprintf(stderr, "stencil_run: out of memory for the scratch array\n");
        return 1;
    }
    int me = tsr_node(), n = tsr_nodes();
    long band = (N - 2) / n, lo = 1 + me * band, hi = me == n - 1 ? N - 1 : lo + band;
    int swap = !copy && k->annot_read == k->annot; /* read_only's source is never written */
    uint64_t before = faults();
    for (int it = 0; it < ITERS; it++) {
        double *src = swap && it % 2 ? b : a, *dst = swap && it % 2 ? a : b;
        relax(dst, src, lo, hi);
        tsr_barrier();
        if (copy) {
            copy_back(a, b, lo, hi);
            tsr_barrier();
        }
    }
    uint64_t taken = faults() - before;
    double sum = 0; /* of the node's own band: under producer_consumer,
                       another node's band is not for this one to read */
    for (long i = lo * N; i < hi * N; i++)
        sum += a[i] + 2 * b[i];
    printf("node %d: checksum %.9e\n", me, sum);
    printf("node %d: faults %llu\n", me, (unsigned long long)taken);
    tsr_finalize();
    return 0;
}
