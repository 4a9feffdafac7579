/*
 * ga_micro.c - the Themis paper's Figure 4 and Section 3.2.2 on this
 * machine: every engine, every access pattern of ga_pattern.h, 8-, 16- and
 * 32-bit elements, in one job. Each row is one run: the slowest node's
 * time, then the sums over nodes of requests sent, read hits and misses,
 * line stalls, and (Sequencer) requests that arrived out of order, with
 * the longest dispatch queue any node had.
 *
 *   tsrun -n 4 build/bench/ga_micro [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_pattern.h"
#include "tessera_ga.h"

enum { C_REQ, C_HITS, C_MISSES, C_STALLS, C_OOO, C_TIME_NS, C_COUNT };
static const char *const counter_names[] = {"ga_requests", "ga_read_hits", "ga_read_misses",
                                            "ga_line_stalls", "ga_out_of_order"};

static void counters(uint64_t *c)
{
    for (int i = 0; i < C_TIME_NS; i++)
        tsr_counter_get(counter_names[i], &c[i]);
}

static void run(tsr_ga *ga, int pattern, unsigned width, int me, int n)
{
    stream s = stream_start(pattern, n, me);
    uint64_t len = stream_length(n), v = (uint64_t)me << 8;
    for (uint64_t i = 0; i < len; i++) {
        access a = stream_next(&s);
        size_t off = (size_t)a.elem * width;
        if (a.write) {
            v++;
            if (width == 1)
                tsr_ga_write8_async(ga, a.node, off, (uint8_t)v);
            else if (width == 2)
                tsr_ga_write16_async(ga, a.node, off, (uint16_t)v);
            else
                tsr_ga_write32_async(ga, a.node, off, (uint32_t)v);
        } else if (width == 1) {
            v += tsr_ga_read8(ga, a.node, off);
        } else if (width == 2) {
            v += tsr_ga_read16(ga, a.node, off);
        } else {
            v += tsr_ga_read32(ga, a.node, off);
        }
    }
    tsr_ga_barrier();
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    static const char *const engines[] = {"", "OrderCache", "OrderNoCache", "Sequencer"};
    /* Each node's counters of a run land in its slot of node 0's segment. */
    tsr_ga *report = tsr_ga_alloc((size_t)n * C_COUNT * 8, NULL);
    if (me == 0)
        printf("%-13s %-10s %4s %5s %9s %9s %9s %9s %8s %8s\n", "engine", "pattern", "bits",
               "nodes", "ms", "requests", "rd_hits", "rd_miss", "stalls", "reorder");
    for (int e = TSR_GA_ORDER_CACHE; e <= TSR_GA_SEQUENCER; e++) {
        tsr_ga_attr attr = TSR_GA_ATTR_DEFAULT;
        attr.engine = (tsr_ga_engine)e;
        tsr_ga *ga = tsr_ga_alloc(ELEMS * 4, &attr);
        for (unsigned width = 1; width <= 4; width *= 2)
            for (int p = 0; p < PAT_COUNT; p++) {
                uint64_t before[C_COUNT], after[C_COUNT];
                tsr_ga_barrier();
                counters(before);
                double t0 = tsr_wtime();
                run(ga, p, width, me, n);
                double t = tsr_wtime() - t0;
                counters(after);
                for (int c = 0; c < C_TIME_NS; c++)
                    tsr_ga_write64(report, 0, ((size_t)me * C_COUNT + c) * 8, after[c] - before[c]);
                tsr_ga_write64(report, 0, ((size_t)me * C_COUNT + C_TIME_NS) * 8,
                               (uint64_t)(t * 1e9));
                tsr_ga_barrier();
                if (me != 0)
                    continue;
                const uint64_t *r = tsr_ga_local(report);
                uint64_t sum[C_COUNT] = {0};
                for (int node = 0; node < n; node++)
                    for (int c = 0; c < C_COUNT; c++) {
                        uint64_t x = r[node * C_COUNT + c];
                        sum[c] = c == C_TIME_NS ? (x > sum[c] ? x : sum[c]) : sum[c] + x;
                    }
                printf("%-13s %-10s %4u %5d %9.2f %9llu %9llu %9llu %8llu %8llu\n", engines[e],
                       pattern_names[p], width * 8, n, sum[C_TIME_NS] / 1e6,
                       (unsigned long long)sum[C_REQ], (unsigned long long)sum[C_HITS],
                       (unsigned long long)sum[C_MISSES], (unsigned long long)sum[C_STALLS],
                       (unsigned long long)sum[C_OOO]);
                fflush(stdout);
            }
        tsr_ga_free(ga);
    }
    uint64_t peak = 0;
    tsr_counter_get("ga_queue_peak", &peak);
    if (me == 0)
        printf("longest Sequencer dispatch queue on node 0: %llu\n", (unsigned long long)peak);
    tsr_ga_free(report);
    tsr_finalize();
    return 0;
}
