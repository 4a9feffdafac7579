/* Reads its standard input to the end and says how much it got, so that
 * tests/sh/cluster_ssh.sh and cluster_hosts.sh can see which nodes tsrun's
 * input reached (--stdin). Prints "ready <node> <pid>" first, once started,
 * so that tests/sh/transport.sh watches nodes idle in that read. */
#include <stdio.h>
#include <unistd.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    printf("ready %d %d\n", tsr_node(), (int)getpid());
    fflush(stdout);
    char buf[4096];
    long total = 0;
    ssize_t r;
    while ((r = read(0, buf, sizeof buf)) > 0)
        total += r;
    printf("node %d read %ld bytes\n", tsr_node(), total);
    fflush(stdout);
    tsr_finalize();
    return 0;
}
