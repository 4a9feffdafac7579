/* Bounded send queues (TSR_SEND_QUEUE): node 0 writes a write-shared Munin
 * object larger than any socket buffer or ring, then stops node 1
 * (SIGSTOP) for a second and enters the barrier, whose updates
 * (unacknowledged, counted by the barrier) must then wait in node 0's send
 * queue to node 1. Stopped after the writes, not before: a write loop that
 * outlasted the second (under ThreadSanitizer on a loaded machine) would
 * find node 1 running again, reading as fast as node 0 sends, and no queue
 * would form. With a 64 KiB bound,
 * the job must finish with exact results; the queue must have formed
 * (send_queue_peak above the bound: the test really filled it) and must
 * never have held more than one barrier's updates beyond the bound, which
 * is all a synchronization call may add before it waits for room. */
/* tsr-test: munin -n 2 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "munin_test.h"
#include "test_env.h"

#define BYTES ((size_t)24 << 20)
#define ROUNDS 2
#define BOUND ((size_t)64 << 10)

static uint32_t value(int round, size_t i) { return (uint32_t)(round * 2654435761u + i); }

/* Stops node 1 (pid) for a second, from a child, so that node 0 goes on. */
static void stop_for_a_second(pid_t pid)
{
    kill(pid, SIGSTOP);
    if (fork() == 0) {
        sleep(1);
        kill(pid, SIGCONT);
        _exit(0);
    }
}

int main(int argc, char **argv)
{
    test_setenv("TSR_SEND_QUEUE", "64K");
    tsr_init(&argc, &argv);
    int me = tsr_node();
    uint32_t *words = munin_alloc_at(BYTES, TSR_WRITE_SHARED, 0);
    long *pid = munin_alloc_at(sizeof(long), TSR_WRITE_SHARED, 1);
    if (me == 1)
        *pid = getpid();
    tsr_barrier();
    size_t n = BYTES / sizeof *words, wrong = 0;
    for (size_t i = 0; i < n; i++) /* every node holds a copy: updates reach it */
        wrong += words[i] != 0;
    tsr_barrier();
    for (int round = 1; round <= ROUNDS; round++) {
        if (me == 0) {
            for (size_t i = 0; i < n; i++)
                words[i] = value(round, i);
            stop_for_a_second((pid_t)*pid);
        }
        tsr_barrier();
        for (size_t i = 0; i < n; i++)
            wrong += words[i] != value(round, i);
        tsr_barrier();
    }
    while (me == 0 && wait(NULL) > 0)
        ;
    CHECK(wrong == 0, "%zu wrong words", wrong);
    uint64_t peak = munin_counter("send_queue_peak"), waits = munin_counter("send_queue_waits");
    printf("node %d: send queue peak %llu bytes, %llu waits for room\n", me,
           (unsigned long long)peak, (unsigned long long)waits);
    if (me == 0) {
        /* One barrier's updates: the object's bytes, plus the diffs' headers. */
        CHECK(peak > BOUND, "the queue to the stopped node never passed the bound");
        CHECK(peak <= BOUND + BYTES + BYTES / 8, "peak %llu: more than the bound plus one barrier",
              (unsigned long long)peak);
    }
    return munin_finish("send_queue");
}
