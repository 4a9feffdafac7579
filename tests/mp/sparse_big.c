/* An allocation of 1.5 GiB touched sparsely: one word every 16 MiB, written
 * by the node that homes it and by another node, checked by all. Only the
 * touched pages may cost memory: the node's resident memory may grow by
 * far less than the allocation (measured from after tsr_init, so that a
 * sanitizer's own memory does not count). */
/* tsr-test: suite */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "tessera.h"

#define SIZE ((size_t)3 << 29) /* 1.5 GiB */
#define STRIDE ((size_t)16 << 20)
#ifdef __SANITIZE_THREAD__
#define LIMIT_MIB 512
#else
#define LIMIT_MIB 64
#endif

/* This process's resident memory now, from /proc/self/statm. */
static long resident_mib(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2)
        resident = -1;
    if (f)
        fclose(f);
    return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE) / (1 << 20);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    long before = resident_mib();
    char *big = tsr_alloc(SIZE);
    size_t slots = SIZE / STRIDE;
    for (size_t s = (size_t)me; s < slots; s += (size_t)n)
        *(uint64_t *)(big + s * STRIDE) = 0xC0FFEE00u + s;
    for (size_t s = (size_t)me; s < slots; s += (size_t)n)
        *(uint64_t *)(big + s * STRIDE + STRIDE / 2 + 8) = 0xBEEF0000u + s;
    tsr_barrier();
    long bad = 0;
    for (size_t s = 0; s < slots; s++) {
        bad += *(uint64_t *)(big + s * STRIDE) != 0xC0FFEE00u + s;
        bad += *(uint64_t *)(big + s * STRIDE + STRIDE / 2 + 8) != 0xBEEF0000u + s;
    }
    /* Touching ~200 pages must not commit the 1.5 GiB: allow 64 MiB, or
     * under ThreadSanitizer, whose shadow of the runtime's tables for the
     * allocation grows with its size (about 220 MiB), 512: still a third of
     * the allocation alone, and a twelfth of its shadow. */
    long grown = resident_mib() - before;
    int ok = bad == 0 && before >= 0 && grown < LIMIT_MIB;
    printf("node %d: %ld wrong, resident memory grew by %ld MiB %s\n", me, bad, grown,
           ok ? "PASS" : "FAIL");
    tsr_finalize();
    return !ok;
}
