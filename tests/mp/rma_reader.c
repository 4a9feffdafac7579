/* A job whose node 1 reads node 0's memory one-sided without end
 * (transport_rma, as a fault reading a page one-sided does), for
 * tests/sh/ucx.sh, which kills node 0 meanwhile: node 1 must stop naming
 * it, not wait for ever on a get its home cannot answer. Prints
 * "ready <node> <pid>" once reading (node 1) or started (node 0). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tessera.h"
#include "transport/core.h"
#include "transport/rma.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node();
    char buf[4096];
    rma_op get = {buf, 0, sizeof buf, RMA_PAGES, 0, 0};
    if (me == 1 && (!transport_rma_ready(0) || transport_rma(0, &get, 1))) {
        printf("node 1: cannot read node 0 one-sided (transport %s)\n", transport_name());
        return 1;
    }
    printf("ready %d %d\n", me, (int)getpid());
    fflush(stdout);
    if (me == 1)
        for (;;)
            transport_rma(0, &get, 1);
    tsr_barrier(); /* node 0: waits here until killed */
    tsr_finalize();
    return 0;
}
