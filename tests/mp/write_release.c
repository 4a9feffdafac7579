/* A write followed at once by a release must be part of the interval (or
 * version) the release ends. Each round one node writes a single word of a
 * page every node already holds read-only, then goes straight to the
 * barrier; every node then reads it. The write's fault is the last thing
 * before the release, so a fault handler that lets the writer go on before
 * the protocol has recorded the page dirty (under uffd the handler is
 * another thread) loses the write: no notice is sent for it. Then the same
 * through a lock: the writer sets a flag, writes the word last and releases
 * at once; the next node acquires until it sees the flag, then reads the
 * word (the flag's page is written first, so its own fault is settled
 * before the word's is taken, and the reader cannot wait forever). */
/* tsr-test: suite */
#include <stdio.h>

#include "tessera.h"

#define ROUNDS 200
#define WORDS (4096 / sizeof(long))

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    volatile long *a = tsr_alloc(ROUNDS * 4096);
    volatile long *flag = tsr_alloc(sizeof(long));
    long bad = 0, seen = 0;
    for (int r = 0; r < ROUNDS; r++)
        seen += a[r * WORDS]; /* every page mapped read-only here */
    tsr_barrier();
    for (int r = 0; r < ROUNDS; r++) {
        if (me == r % n)
            a[r * WORDS] = r + 1;
        tsr_barrier();
        bad += a[r * WORDS] != r + 1;
    }
    for (int r = 0; r < ROUNDS; r++) {
        int writer = r % n, reader = (r + 1) % n;
        if (me == writer) {
            tsr_lock(0);
            *flag = r + 1;
            a[r * WORDS + 1] = r + 1;
            tsr_unlock(0);
        }
        if (me == reader)
            for (long f = 0; f < r + 1;) {
                tsr_lock(0);
                f = *flag;
                if (f == r + 1)
                    bad += a[r * WORDS + 1] != r + 1;
                tsr_unlock(0);
            }
        tsr_barrier();
    }
    printf("node %d: %ld wrong values (%ld before) %s\n", me, bad, seen, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
