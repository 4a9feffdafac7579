/*
 * release_cost - what one lock acquire+release costs after a node has
 * written much of its home memory (issue: "a lock release costs the same
 * however much memory the node has written").
 *
 *   release_cost MIB ITERS
 *
 * Node 0 writes every page of MIB MiB homed on itself (every other node
 * holds the version-0 copy of a fresh allocation, so the first release
 * announces them all) and then, without a barrier, times ITERS
 * acquire+release pairs of a lock managed by the last node (local at one
 * node, remote otherwise). The first pairs are not timed. It prints, for bench/release_cost.py:
 *   M us_per_pair <microseconds>
 *   M msgs_per_pair / bytes_per_pair / walked_per_pair / notices_per_pair
 * (messages and bytes node 0 sent and received, pages its releases
 * examined, write notices it made): counts that do not depend on noise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

#define PAGE 4096

static void report(const char *name, double value) { printf("M %s %.3f\n", name, value); }

static double counter(const char *name)
{
    uint64_t v = 0;
    tsr_counter_get(name, &v);
    return (double)v;
}

/* Node 0's side: ITERS timed pairs, and the counters they moved. */
static void time_pairs(int lock, long iters)
{
    for (int i = 0; i < 10; i++) { /* the first release announces the writes */
        tsr_lock(lock);
        tsr_unlock(lock);
    }
    tsr_stats s0, s1;
    tsr_stats_get(&s0);
    double walked = counter("release_pages"), notices = counter("write_notices");
    double t0 = tsr_wtime();
    for (long i = 0; i < iters; i++) {
        tsr_lock(lock);
        tsr_unlock(lock);
    }
    double t = tsr_wtime() - t0;
    tsr_stats_get(&s1);
    double n = (double)iters;
    report("us_per_pair", t / n * 1e6);
    report("msgs_per_pair", (double)(s1.messages_sent + s1.messages_received - s0.messages_sent -
                                     s0.messages_received) / n);
    report("bytes_per_pair",
           (double)(s1.bytes_sent + s1.bytes_received - s0.bytes_sent - s0.bytes_received) / n);
    report("walked_per_pair", (counter("release_pages") - walked) / n);
    report("notices_per_pair", (counter("write_notices") - notices) / n);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: release_cost MIB ITERS\n");
        return 2;
    }
    size_t bytes = (size_t)atol(argv[1]) << 20;
    long iters = atol(argv[2]);
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 0;
    volatile char *mem = tsr_alloc_attr(bytes ? bytes : PAGE, &attr);
    if (tsr_node() == 0) {
        for (size_t at = 0; at < bytes; at += PAGE)
            mem[at] = 1;
        time_pairs(tsr_nodes() - 1, iters);
    }
    tsr_finalize();
    return 0;
}
