/* The job of issue 42 and bench/scale_startup.py: start, take a lock and
 * add one to a shared counter, pass two barriers, leave. Node 0 checks
 * that every node added its one and prints "scale N PASS" after the
 * first barrier (the start-up time's end). */
#include <stdio.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long *count = tsr_alloc(sizeof *count);
    tsr_lock(0);
    (*count)++;
    tsr_unlock(0);
    tsr_barrier();
    int pass = *count == tsr_nodes();
    if (tsr_node() == 0)
        printf("scale %d %s (count %ld)\n", tsr_nodes(), pass ? "PASS" : "FAIL", *count);
    fflush(stdout);
    tsr_barrier();
    tsr_finalize();
    return !pass;
}
