/*
 * munin_table2.c - the paper's Table 2 on this machine: the cost of one page
 * (4 KiB here, 8 KiB in the paper) through the delayed update queue, for
 * three modification patterns: one word changed, every word, every other
 * word (the worst case of run-length encoding).
 *
 *   build/bin/tsrun -n 2 build/bench/munin_table2 [reps]
 *
 * Node 0 writes a write_shared page that node 1 holds a copy of, then
 * flushes it (tsr_hint_flush: diff, send, node 1 applies and acks). The
 * components are timed one by one, each the median of `reps` runs:
 *   handle fault  the first write's fault, less the twin copy
 *   copy object   making the twin (memcpy of the page)
 *   encode        diff_encode of the page against its twin
 *   transmit      one-way transfer of a message of the diff's size (half a
 *                 transport round trip carrying it both ways)
 *   decode        diff_apply at the receiver
 *   reply         one-way transfer of the empty ack
 * and the whole path is timed end to end as well (first write + flush).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/diff.h"
#include "tessera_munin.h"
#include "transport/transport.h"

#define PAGE 4096
#define WORDS (PAGE / 4)

enum { ONE_WORD, ALL_WORDS, ALTERNATE_WORDS, PATTERNS };

static void modify(uint32_t *page, int pattern, uint32_t round)
{
    int step = pattern == ALTERNATE_WORDS ? 2 : 1, last = pattern == ONE_WORD ? 1 : WORDS;
    for (int i = 0; i < last; i += step)
        page[i] = round * 2654435761u + (uint32_t)i + 1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_us(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2] * 1e6;
}

typedef struct row {
    double fault, copy, encode, transmit, decode, reply, measured;
    size_t diff_bytes;
} row;

static row measure(uint32_t *shared, int pattern, int reps, double *t)
{
    row r;
    static uint8_t twin[PAGE], cur[PAGE], diff[DIFF_MAX], echo[DIFF_MAX];
    /* The real path: fault (with twin) on the first write, then the flush. */
    double *flush_t = t + reps;
    for (int k = 0; k < reps; k++) {
        double t0 = tsr_wtime();
        shared[WORDS - 1] = (uint32_t)k; /* first write: fault, twin, queue */
        double t1 = tsr_wtime();
        modify(shared, pattern, (uint32_t)k + 7);
        double t2 = tsr_wtime();
        tsr_hint_flush(shared);
        flush_t[k] = tsr_wtime() - t2 + (t1 - t0);
        t[k] = t1 - t0;
    }
    double fault_total = median_us(t, reps);
    r.measured = median_us(flush_t, reps);

    memcpy(cur, shared, PAGE);
    memcpy(twin, cur, PAGE);
    modify((uint32_t *)cur, pattern, 12345);
    for (int k = 0; k < reps; k++) {
        double t0 = tsr_wtime();
        memcpy(twin, cur, PAGE);
        t[k] = tsr_wtime() - t0;
        twin[k % PAGE] ^= 1; /* keep the copy from being optimized away */
    }
    r.copy = median_us(t, reps);
    r.fault = fault_total - r.copy;
    memcpy(twin, shared, PAGE);
    for (int k = 0; k < reps; k++) {
        double t0 = tsr_wtime();
        r.diff_bytes = diff_encode(twin, cur, diff);
        t[k] = tsr_wtime() - t0;
    }
    r.encode = median_us(t, reps);
    for (int k = 0; k < reps; k++) {
        double t0 = tsr_wtime();
        diff_apply(twin, diff, r.diff_bytes);
        t[k] = tsr_wtime() - t0;
    }
    r.decode = median_us(t, reps);
    for (int k = 0; k < reps; k++) {
        double t0 = tsr_wtime();
        am_echo(1, diff, r.diff_bytes, echo);
        t[k] = (tsr_wtime() - t0) / 2;
    }
    r.transmit = median_us(t, reps);
    for (int k = 0; k < reps; k++) {
        double t0 = tsr_wtime();
        am_echo(1, NULL, 0, echo);
        t[k] = (tsr_wtime() - t0) / 2;
    }
    r.reply = median_us(t, reps);
    return r;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int reps = argc > 1 ? atoi(argv[1]) : 200;
    if (tsr_nodes() != 2) {
        fprintf(stderr, "munin_table2: run it on 2 nodes (tsrun -n 2)\n");
        return 2;
    }
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = TSR_WRITE_SHARED;
    a.home = TSR_HOME_NODE;
    uint32_t *shared = tsr_alloc_attr(PAGE, &a);
    if (tsr_node() == 1)
        (void)*(volatile uint32_t *)shared; /* node 1 holds a copy: updates go to it */
    tsr_barrier();
    row rows[PATTERNS];
    double *t = malloc(sizeof *t * 2 * (size_t)reps);
    if (tsr_node() == 0)
        for (int p = 0; p < PATTERNS; p++)
            rows[p] = measure(shared, p, reps, t);
    tsr_barrier();
    if (tsr_node() == 0) {
        printf("Munin Table 2 on this machine: one 4 KiB page through the delayed update queue "
               "(microseconds, median of %d)\n\n| Component | One Word | All Words | Alternate "
               "Words |\n|---|---:|---:|---:|\n", reps);
#define ROW(label, field)                                                                    \
    printf("| %s | %.2f | %.2f | %.2f |\n", label, rows[0].field, rows[1].field, rows[2].field);
        ROW("Handle fault", fault)
        ROW("Copy object", copy)
        ROW("Encode object", encode)
        ROW("Transmit object", transmit)
        ROW("Decode object", decode)
        ROW("Reply", reply)
        printf("| Total | %.2f | %.2f | %.2f |\n",
               rows[0].fault + rows[0].copy + rows[0].encode + rows[0].transmit + rows[0].decode + rows[0].reply,
               rows[1].fault + rows[1].copy + rows[1].encode + rows[1].transmit + rows[1].decode + rows[1].reply,
               rows[2].fault + rows[2].copy + rows[2].encode + rows[2].transmit + rows[2].decode + rows[2].reply);
        ROW("Measured end to end (first write + flush)", measured)
        printf("| Diff bytes | %zu | %zu | %zu |\n", rows[0].diff_bytes, rows[1].diff_bytes,
               rows[2].diff_bytes);
    }
    free(t);
    tsr_finalize();
    return 0;
}
