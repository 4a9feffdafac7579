/* Every node increments one shared counter K times under a lock, and
 * another counter on a different page under a second lock: the totals must
 * be exact at every node after a barrier. */
/* tsr-test: suite */
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long k = argc > 1 ? atol(argv[1]) : 1000;
    if (k < 0) /* asks for a bad lock id: tests the error message */
        tsr_lock(TSR_MAX_LOCKS);
    long *a = tsr_alloc(sizeof(long));
    long *b = tsr_alloc(sizeof(long));
    tsr_barrier();
    for (long i = 0; i < k; i++) {
        tsr_lock(1);
        (*a)++;
        tsr_unlock(1);
        tsr_lock(2);
        *b += 2;
        tsr_unlock(2);
    }
    tsr_barrier();
    long want = k * tsr_nodes();
    int ok = *a == want && *b == 2 * want;
    printf("node %d: a=%ld b=%ld want %ld %s\n", tsr_node(), *a, *b, want, ok ? "PASS" : "FAIL");
    tsr_finalize();
    return ok ? 0 : 1;
}
