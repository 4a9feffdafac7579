/* Bounded send queues (TSR_SEND_QUEUE): node 0 writes a write-shared Munin
 * object larger than any socket buffer or ring (object_bytes), then stops node 1
 * (SIGSTOP) and enters the barrier, whose updates (unacknowledged, counted
 * by the barrier) must then wait in node 0's send queue to node 1. A
 * thread of node 0 resumes node 1 once this node has sent their bytes
 * (bytes_sent): the queue has formed then, whatever the machine's load. With
 * a 64 KiB bound,
 * the job must finish with exact results; the queue must have formed
 * (send_queue_peak above the bound: the test really filled it) and must
 * never have held more than one barrier's updates beyond the bound, which
 * is all a synchronization call may add before it waits for room. */
/* tsr-test: munin -n 2 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "munin_test.h"
#include "signal_when.h"
#include "test_env.h"

#define MIN_BYTES ((size_t)24 << 20)
#define ROUNDS 2
#define BOUND ((size_t)64 << 10)

/* The largest buffer a TCP socket may grow to (the last field of
 * /proc/sys/net/ipv4/tcp_rmem or tcp_wmem), 0 if unknown. */
static size_t tcp_buffer_max(const char *file)
{
    size_t low = 0, dflt = 0, max = 0;
    FILE *f = fopen(file, "r");
    if (f) {
        if (fscanf(f, "%zu %zu %zu", &low, &dflt, &max) != 3)
            max = 0;
        fclose(f);
    }
    return max;
}

/* More than the kernel can hold between the two nodes: a receive buffer
 * that autotuning grew to its most (32 MiB on a machine where the object
 * was once 24 MiB, which then sometimes went through with no queue at all)
 * plus a send buffer, and 8 MiB more; every node computes the same. */
static size_t object_bytes(void)
{
    size_t kernel = tcp_buffer_max("/proc/sys/net/ipv4/tcp_rmem") +
                    tcp_buffer_max("/proc/sys/net/ipv4/tcp_wmem") + ((size_t)8 << 20);
    size_t bytes = kernel > MIN_BYTES ? kernel : MIN_BYTES;
    return (bytes + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
}

static uint32_t value(int round, size_t i) { return (uint32_t)(round * 2654435761u + i); }

static uint64_t bytes_sent(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.bytes_sent;
}

int main(int argc, char **argv)
{
    test_setenv("TSR_SEND_QUEUE", "64K");
    tsr_init(&argc, &argv);
    int me = tsr_node();
    const size_t bytes = object_bytes();
    uint32_t *words = munin_alloc_at(bytes, TSR_WRITE_SHARED, 0);
    long *pid = munin_alloc_at(sizeof(long), TSR_WRITE_SHARED, 1);
    if (me == 1)
        *pid = getpid();
    tsr_barrier();
    size_t n = bytes / sizeof *words, wrong = 0;
    for (size_t i = 0; i < n; i++) /* every node holds a copy: updates reach it */
        wrong += words[i] != 0;
    tsr_barrier();
    for (int round = 1; round <= ROUNDS; round++) {
        signal_when resume;
        if (me == 0) {
            for (size_t i = 0; i < n; i++)
                words[i] = value(round, i);
            /* Node 1 runs again once this node's updates are all queued. */
            kill((pid_t)*pid, SIGSTOP);
            signal_when_start(&resume, bytes_sent, bytes, (pid_t)*pid, SIGCONT);
        }
        tsr_barrier();
        if (me == 0)
            signal_when_join(&resume);
        for (size_t i = 0; i < n; i++)
            wrong += words[i] != value(round, i);
        tsr_barrier();
    }
    CHECK(wrong == 0, "%zu wrong words", wrong);
    uint64_t peak = munin_counter("send_queue_peak"), waits = munin_counter("send_queue_waits");
    printf("node %d: send queue peak %llu bytes, %llu waits for room\n", me,
           (unsigned long long)peak, (unsigned long long)waits);
    if (me == 0) {
        /* One barrier's updates: the object's bytes, plus the diffs' headers. */
        CHECK(peak > BOUND, "the queue to the stopped node never passed the bound");
        CHECK(peak <= BOUND + bytes + bytes / 8, "peak %llu: more than the bound plus one barrier",
              (unsigned long long)peak);
    }
    return munin_finish("send_queue");
}
