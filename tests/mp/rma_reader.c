/* A job whose node 1 reads node 0's memory one-sided without end
 * (transport_rma, as a fault reading a page one-sided does), or, given
 * "diffs", writes a page homed at node 0 and releases it without end (each
 * release writing its diff one-sided, TSR_DIFF_PUT=onesided), for
 * tests/sh/ucx.sh, which kills node 0 meanwhile: node 1 must stop naming
 * it, not wait for ever on an operation its home cannot answer. Prints
 * "ready <node> <pid>" once reading or writing (node 1) or started (node 0). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "counter.h"
#include "tessera.h"
#include "transport/core.h"
#include "transport/rma.h"

/* Node 1 releases its writes to node 0's page, a diff each time; ready
 * once one went one-sided. Lock 1 is node 1's own: no message for it. */
static void write_forever(long *page)
{
    for (long i = 1;; i++) {
        tsr_lock(1);
        page[i % 512] = i;
        tsr_unlock(1);
        if (i == 1 && !counter("diffs_put_onesided")) {
            printf("node 1: no diff was written one-sided (transport %s)\n", transport_name());
            exit(1);
        }
        if (i == 1) {
            printf("ready 1 %d\n", (int)getpid());
            fflush(stdout);
        }
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), diffs = argc > 1 && !strcmp(argv[1], "diffs");
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    at.home_node = 0;
    long *page = tsr_alloc_attr(4096, &at);
    char buf[4096];
    rma_op get = {buf, 0, sizeof buf, RMA_PAGES, RMA_GET, 0};
    if (me == 1 && !diffs && (!transport_rma_ready(0) || transport_rma(0, &get, 1))) {
        printf("node 1: cannot read node 0 one-sided (transport %s)\n", transport_name());
        return 1;
    }
    if (me == 1 && diffs)
        write_forever(page);
    printf("ready %d %d\n", me, (int)getpid());
    fflush(stdout);
    if (me == 1)
        for (;;)
            transport_rma(0, &get, 1);
    tsr_barrier(); /* node 0: waits here until killed */
    tsr_finalize();
    return 0;
}
