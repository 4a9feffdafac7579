/* A node that first talks to a peer late (tests/sh/connections.sh): every
 * node starts and prints "ready <node> <pid>"; node 1 then waits until the
 * file argv[1] exists (the test stops the last node meanwhile) and reads
 * a page homed at the last node, to which, under TSR_CONNECT=demand with
 * TSR_HEARTBEAT=0, it has no connection yet: the connection it opens then
 * must fail within TSR_CONNECT_TIMEOUT, naming that node. Unstopped, the
 * job passes. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int n = tsr_nodes(), me = tsr_node();
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = n - 1;
    volatile long *far = tsr_alloc_attr(4096, &attr);
    if (me == n - 1)
        *far = 42;
    tsr_barrier();
    printf("ready %d %d\n", me, (int)getpid());
    fflush(stdout);
    long seen = 42;
    if (me == 1) {
        while (argc > 1 && access(argv[1], F_OK))
            usleep(10000);
        seen = *far;
    }
    tsr_barrier();
    printf("node %d: read %ld: %s\n", me, seen, seen == 42 ? "PASS" : "FAIL");
    tsr_finalize();
    return seen != 42;
}
