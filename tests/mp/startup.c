/* The cheapest whole job: join, one barrier, leave. The launcher's scale
 * test and bench/scale_startup.sh time how long N of these take to start
 * and stop. Node 0 prints "startup N PASS" once every node has joined. */
#include <stdio.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    tsr_barrier();
    if (tsr_node() == 0)
        printf("startup %d PASS\n", tsr_nodes());
    tsr_finalize();
    return 0;
}
