/* A helper of tests/sh/trace.sh: nodes 0 and 1 each increment a counter of
 * their own between barriers. "packed": the counters are neighbouring
 * words of one page, which the sharing profile must name (false sharing);
 * "padded": each counter has a page to itself, which it must not. Every
 * node checks the counts at the end. */
#include <stdio.h>
#include <string.h>

#include "tessera.h"

#define ROUNDS 20
#define PAD (4096 / sizeof(long))

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int padded = argc > 1 && !strcmp(argv[1], "padded");
    size_t stride = padded ? PAD : 1;
    long *counts = tsr_alloc(2 * PAD * sizeof(long)); /* the counters */
    int me = tsr_node();
    for (int r = 0; r < ROUNDS; r++) {
        if (me < 2)
            counts[me * stride]++;
        tsr_barrier();
    }
    int bad = counts[0] != ROUNDS || (tsr_nodes() > 1 && counts[stride] != ROUNDS);
    printf("node %d: %ld %ld %s\n", me, counts[0], counts[stride], bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
