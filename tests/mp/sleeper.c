/* A job that stays alive for a given number of seconds, synchronizing all
 * the while, so that the failure tests can kill one node or knock on a
 * node's port. Prints "ready <node> <pid>" once every node has started. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    long *x = tsr_alloc(4096), *stop = x + 1;
    printf("ready %d %d\n", tsr_node(), (int)getpid());
    fflush(stdout);
    double t0 = tsr_wtime();
    /* Node 0 alone decides when to stop, so that every node leaves the loop
     * after the same barrier. The flag is written only between the second
     * barrier of one round and the first of the next, and read only between
     * the two: a read right after a single barrier would race with node 0's
     * write for the next round, and a node could stop one barrier early. */
    for (;;) {
        tsr_lock(0);
        (*x)++;
        tsr_unlock(0);
        usleep(20000);
        if (tsr_node() == 0)
            *stop = tsr_wtime() - t0 >= seconds;
        tsr_barrier();
        long done = *stop;
        tsr_barrier();
        if (done)
            break;
    }
    printf("node %d: PASS\n", tsr_node());
    tsr_finalize();
    return 0;
}
