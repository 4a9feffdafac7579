/*
 * munin_table6.c - the paper's Table 6 ("Effect of Multiple Protocols") on
 * this machine: SOR and Matrix Multiply with Munin's annotations as in
 * Section 4, then with every shared variable write_shared, then with every
 * one conventional, in one run, side by side.
 *
 *   build/bin/tsrun -n 4 build/bench/munin_table6 [sor_n sor_iters mm_n]
 *
 * SOR (Section 4.2): an (n+2) x (n+2) grid of doubles, one band of rows per
 * node, a private scratch array, two barriers per iteration (compute, then
 * copy back). "multiple": the grid is producer_consumer.
 * MM (Section 4.1): C = A x B; node 0 writes A and B, every node computes a
 * band of rows of C. "multiple": A and B read_only, C result owned by node 0.
 *
 * For each run node 0 prints the time of the parallel part and the
 * messages and bytes sent by all nodes together (from tsr_stats_get and
 * Munin's named counter updates_sent): for
 * SOR per iteration after the first (the steady state) and in the first,
 * for MM in total. Every result is checked against a sequential computation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_munin.h"

typedef struct traffic {
    double messages, bytes, updates;
} traffic;

/* This node's counters at one moment. */
typedef struct snapshot {
    tsr_stats s;
    uint64_t updates_sent;
} snapshot;

static void take(snapshot *at)
{
    tsr_stats_get(&at->s);
    if (tsr_counter_get("updates_sent", &at->updates_sent)) {
        fprintf(stderr, "munin_table6: no counter named updates_sent\n");
        exit(1);
    }
}

/* What this node sent between two snapshots. */
static traffic since(const snapshot *a, const snapshot *b)
{
    return (traffic){(double)(b->s.messages_sent - a->s.messages_sent),
                     (double)(b->s.bytes_sent - a->s.bytes_sent),
                     (double)(b->updates_sent - a->updates_sent)};
}

/* Per-node figures in ordinary (home-based) shared memory, summed by node 0:
 * publishing them happens after the measured part. */
static traffic (*slots)[2];

static void sum_over_nodes(traffic mine[2], traffic total[2])
{
    memcpy(slots[tsr_node()], mine, sizeof slots[0]);
    tsr_barrier();
    memset(total, 0, 2 * sizeof *total);
    for (int i = 0; i < tsr_nodes(); i++)
        for (int k = 0; k < 2; k++) {
            total[k].messages += slots[i][k].messages;
            total[k].bytes += slots[i][k].bytes;
            total[k].updates += slots[i][k].updates;
        }
    tsr_barrier(); /* nobody rewrites its slot before every node has read them */
}

static void *alloc(size_t bytes, tsr_annotation annot, int at_node0)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = annot;
    if (at_node0) {
        a.home = TSR_HOME_NODE;
        a.home_node = 0;
    }
    return tsr_alloc_attr(bytes, &a);
}

static void band(long n, long *lo, long *hi)
{
    int me = tsr_node(), nodes = tsr_nodes();
    *lo = n * me / nodes;
    *hi = n * (me + 1) / nodes;
}

/* ---- SOR ---------------------------------------------------------------- */

static double sor_initial(long i, long j) { return i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0; }

static void relax(double *dst, const double *src, long w, long lo, long hi)
{
    for (long i = lo; i < hi; i++)
        for (long j = 1; j < w - 1; j++)
            dst[i * w + j] = (src[(i - 1) * w + j] + src[(i + 1) * w + j] + src[i * w + j - 1] +
                              src[i * w + j + 1]) * 0.25;
}

static int sor_check(const double *grid, long w, int iters)
{
    double *ref = malloc(sizeof *ref * w * w), *tmp = malloc(sizeof *tmp * w * w);
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++)
            ref[i * w + j] = sor_initial(i, j);
    for (int it = 0; it < iters; it++) {
        relax(tmp, ref, w, 1, w - 1);
        for (long i = 1; i < w - 1; i++)
            memcpy(&ref[i * w + 1], &tmp[i * w + 1], (w - 2) * sizeof *ref);
    }
    int ok = memcmp(ref, grid, sizeof *ref * w * w) == 0;
    free(ref);
    free(tmp);
    return ok;
}

typedef struct sor_result {
    double seconds;
    traffic first, steady; /* the first iteration; the mean of the others */
    int ok;
} sor_result;

static sor_result run_sor(tsr_annotation annot, long n, int iters)
{
    long w = n + 2, lo, hi;
    double *grid = alloc(sizeof *grid * w * w, annot, 0);
    double *scratch = calloc((size_t)(w * w), sizeof *scratch);
    band(n, &lo, &hi);
    lo++, hi++; /* interior rows 1..n */
    for (long i = tsr_node() == 0 ? 0 : lo; i < (tsr_node() == tsr_nodes() - 1 ? w : hi); i++)
        for (long j = 0; j < w; j++)
            grid[i * w + j] = sor_initial(i, j);
    tsr_barrier();
    snapshot s0, s1, s2;
    sor_result r;
    double t0 = tsr_wtime();
    take(&s0);
    for (int it = 0; it < iters; it++) {
        relax(scratch, grid, w, lo, hi);
        tsr_barrier();
        for (long i = lo; i < hi; i++)
            memcpy(&grid[i * w + 1], &scratch[i * w + 1], (w - 2) * sizeof *grid);
        tsr_barrier();
        if (it == 0)
            take(&s1);
    }
    r.seconds = tsr_wtime() - t0;
    take(&s2);
    traffic mine[2] = {since(&s0, &s1), since(&s1, &s2)}, total[2];
    sum_over_nodes(mine, total);
    r.first = total[0];
    r.steady = total[1];
    if (iters > 1) {
        r.steady.messages /= iters - 1;
        r.steady.bytes /= iters - 1;
        r.steady.updates /= iters - 1;
    }
    /* Node 0 reads the whole grid: a new sharing pattern for producer_consumer. */
    if (annot == TSR_PRODUCER_CONSUMER)
        tsr_hint_phase_change(grid);
    r.ok = tsr_node() != 0 || sor_check(grid, w, iters);
    free(scratch);
    tsr_free(grid);
    return r;
}

/* ---- Matrix multiply --------------------------------------------------- */

static double mm_input(int which, long i, long j) { return (double)((i * 7 + j * 3 + which) % 11) - 5; }

typedef struct mm_result {
    double seconds;
    traffic all;
    int ok;
} mm_result;

/* paper: 0 every matrix `annot`; 1 the paper's annotations; 2 the same
 * with A and B each fetched whole on first use (SingleObject, Table 4). */
static mm_result run_mm(int paper, tsr_annotation annot, long n)
{
    /* With the paper's annotations, A and B are written as conventional
     * memory owned by node 0 and then declared read_only. */
    tsr_annotation in = paper ? TSR_CONVENTIONAL : annot, out = paper ? TSR_RESULT : annot;
    double *a = alloc(sizeof *a * n * n, in, 1), *b = alloc(sizeof *b * n * n, in, 1);
    double *c = alloc(sizeof *c * n * n, out, 1);
    if (tsr_node() == 0)
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++) {
                a[i * n + j] = mm_input(0, i, j);
                b[i * n + j] = mm_input(1, i, j);
            }
    if (paper) {
        tsr_hint_change_annotation(a, TSR_READ_ONLY);
        tsr_hint_change_annotation(b, TSR_READ_ONLY);
        if (paper == 2) {
            tsr_hint_single_object(a);
            tsr_hint_single_object(b);
        }
    } else {
        tsr_barrier();
    }
    snapshot s0, s1;
    take(&s0);
    mm_result r;
    double t0 = tsr_wtime();
    long lo, hi;
    band(n, &lo, &hi);
    double *row = malloc(sizeof *row * n);
    for (long i = lo; i < hi; i++) {
        memset(row, 0, sizeof *row * n);
        for (long k = 0; k < n; k++) {
            double aik = a[i * n + k];
            for (long j = 0; j < n; j++)
                row[j] += aik * b[k * n + j];
        }
        memcpy(&c[i * n], row, sizeof *row * n);
    }
    tsr_barrier();
    r.seconds = tsr_wtime() - t0;
    take(&s1);
    traffic mine[2] = {since(&s0, &s1), {0, 0, 0}}, total[2];
    sum_over_nodes(mine, total);
    r.all = total[0];
    r.ok = 1;
    if (tsr_node() == 0)
        for (long i = 0; i < n && r.ok; i++) {
            for (long j = 0; j < n; j++)
                row[j] = 0;
            for (long k = 0; k < n; k++)
                for (long j = 0; j < n; j++)
                    row[j] += mm_input(0, i, k) * mm_input(1, k, j);
            r.ok = memcmp(row, &c[i * n], sizeof *row * n) == 0;
        }
    free(row);
    tsr_free(c);
    tsr_free(b);
    tsr_free(a);
    return r;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long sor_n = argc > 1 ? atol(argv[1]) : 512, mm_n = argc > 3 ? atol(argv[3]) : 400;
    int iters = argc > 2 ? atoi(argv[2]) : 100;
    slots = tsr_alloc(sizeof *slots * (size_t)tsr_nodes());

    static const char *const names[] = {"multiple", "write_shared", "conventional"};
    const tsr_annotation sor_annot[] = {TSR_PRODUCER_CONSUMER, TSR_WRITE_SHARED, TSR_CONVENTIONAL};
    sor_result sor[3];
    mm_result mm[3];
    for (int k = 0; k < 3; k++) {
        mm[k] = run_mm(k == 0, sor_annot[k], mm_n);
        sor[k] = run_sor(sor_annot[k], sor_n, iters);
    }
    mm_result single = run_mm(2, TSR_RESULT, mm_n);
    int ok = single.ok;
    if (tsr_node() == 0) {
        printf("Munin Table 6 on this machine: %d nodes; SOR %ldx%ld, %d iterations; MM %ldx%ld\n"
               "(messages and bytes: sent by all nodes together, barriers included; SOR per\n"
               "iteration after the first, and in the first)\n\n",
               tsr_nodes(), sor_n, sor_n, iters, mm_n, mm_n);
        printf("| protocol | MM s | MM msgs | MM KiB | MM updates | SOR s | SOR msgs/iter | "
               "SOR KiB/iter | SOR updates/iter | SOR msgs, 1st iter | check |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (int k = 0; k < 3; k++)
            printf("| %s | %.3f | %.0f | %.1f | %.0f | %.3f | %.1f | %.1f | %.1f | %.0f | %s |\n",
                   names[k], mm[k].seconds, mm[k].all.messages, mm[k].all.bytes / 1024,
                   mm[k].all.updates, sor[k].seconds, sor[k].steady.messages,
                   sor[k].steady.bytes / 1024, sor[k].steady.updates, sor[k].first.messages,
                   mm[k].ok && sor[k].ok ? "PASS" : "FAIL");
        printf("| multiple + single_object (MM only, Table 4) | %.3f | %.0f | %.1f | %.0f | | | | | "
               "| %s |\n", single.seconds, single.all.messages, single.all.bytes / 1024,
               single.all.updates, single.ok ? "PASS" : "FAIL");
    }
    for (int k = 0; k < 3; k++)
        ok &= mm[k].ok && sor[k].ok;
    tsr_finalize();
    return !ok;
}
