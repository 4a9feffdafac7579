/* The runtime sends a payload that lies in shared pages invalid on the
 * sending node (regression: the payload was copied under the per-peer send
 * lock; the copy faulted, and the fault handler's fetch from the same peer
 * waited forever for that lock). Node 0 homes two pages and writes them;
 * node 1 reads the first (valid there) but not the second (invalid), then
 * sends both through the transport's echo to node 0 and checks the bytes. */
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "transport/transport.h"

#define PAGE 4096

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    unsigned char *mem = tsr_alloc_attr(2 * PAGE, &attr);
    if (me == 0)
        for (int i = 0; i < 2 * PAGE; i++)
            mem[i] = (unsigned char)(i * 7 + 1);
    tsr_barrier();
    if (me == 1) {
        static unsigned char reply[2 * PAGE];
        volatile unsigned char first = mem[0];
        (void)first;
        am_echo(0, mem, 2 * PAGE, reply);
        for (int i = 0; i < 2 * PAGE && !bad; i++)
            if (reply[i] != (unsigned char)(i * 7 + 1)) {
                printf("node 1: byte %d came back as %d\n", i, reply[i]);
                bad = 1;
            }
    }
    tsr_barrier();
    tsr_finalize();
    if (!bad)
        printf("node %d: PASS\n", me);
    return bad;
}
