/* A program whose globals hold a large array that a run barely touches
 * (RAYTRACE's 256 MiB of per-process ray stacks, of which it uses a few
 * pages) shares them (TSR_SHARE_GLOBALS=1) without copying the untouched
 * pages, which hold zeros as the shared memory's new pages do: a node
 * other than 0, or node 0 alone, holds no more than a few MiB of shared
 * memory after tsr_init (RssShmem; all 64 MiB were copied before), and
 * node 0 alone makes no write fault announcing them to nobody. Values:
 * a page written before tsr_init keeps node 0's value, untouched ones
 * read zero, a page a worker writes reaches node 0, and after
 * tsr_finalize node 0's globals hold the final values. */
/* tsr-test: suite */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node_check.h"
#include "tessera.h"
#include "test_env.h"

#define BIG (64L << 20) /* bytes */
#define PAGE 4096L

static char big[BIG];

/* This process's shared memory in its page tables, in KiB. */
static long shmem_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssShmem: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    test_setenv("TSR_SHARE_GLOBALS", "1");
    const char *node = getenv("TSR_NODE");
    big[100 * PAGE] = node ? (char)(1 + atoi(node)) : 1; /* node 0's 1 wins */
    long before = shmem_kib();
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), worker = n - 1;
    long grew = shmem_kib() - before;
    tsr_stats s;
    tsr_stats_get(&s);
    if (me != 0 || n == 1)
        CHECK(before >= 0 && grew < BIG >> 12, "shared memory grew by %ld KiB at tsr_init (of %ld "
              "KiB of globals)", grew, BIG >> 10);
    if (n == 1)
        CHECK(s.write_faults == 0, "%llu write faults at tsr_init alone",
              (unsigned long long)s.write_faults);
    CHECK(big[100 * PAGE] == 1, "the page written before tsr_init holds %d, want node 0's 1",
          big[100 * PAGE]);
    CHECK(big[200 * PAGE] == 0 && big[BIG - 1] == 0, "an untouched page does not read zero");
    tsr_barrier();
    if (me == worker)
        big[300 * PAGE + 5] = 77;
    tsr_barrier();
    CHECK(big[300 * PAGE + 5] == 77, "the worker's write reads %d here", big[300 * PAGE + 5]);
    tsr_barrier();
    tsr_finalize();
    /* Private again (CHECK names the node through the runtime, gone now). */
    if (big[100 * PAGE] != 1 || big[300 * PAGE + 5] != 77 || big[200 * PAGE] != 0) {
        printf("node %d: check failed: after tsr_finalize the globals hold %d, %d, %d\n", me,
               big[100 * PAGE], big[300 * PAGE + 5], big[200 * PAGE]);
        check_failures++;
    }
    printf("node %d: shared memory grew %ld KiB at tsr_init\n", me, grew);
    return check_verdict(me, "globals_big");
}
