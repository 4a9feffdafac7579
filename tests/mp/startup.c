/* The cheapest whole job: join, one barrier, leave. The launcher's scale
 * test (sh/launcher_scale) times how long N of these take to start and
 * stop (bench/scale_startup.py times tests/mp/scale_job). Node 0 prints "startup N PASS" once every node has joined. */
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
