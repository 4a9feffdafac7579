/* An allocation of 1.5 GiB touched sparsely: one word every 16 MiB, written
 * by the node that homes it and by another node, checked by all. Only the
 * touched pages may cost memory. */
/* tsr-test: suite */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "tessera.h"

#define SIZE ((size_t)3 << 29) /* 1.5 GiB */
#define STRIDE ((size_t)16 << 20)

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
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
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* Touching ~200 pages must not commit the 1.5 GiB: allow 256 MiB. */
    int ok = bad == 0 && ru.ru_maxrss < 256 * 1024;
    printf("node %d: %ld wrong, max RSS %ld MiB %s\n", me, bad, ru.ru_maxrss / 1024,
           ok ? "PASS" : "FAIL");
    tsr_finalize();
    return !ok;
}
