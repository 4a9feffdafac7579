/* A program bug, not a DSM fault: an access outside the shared region must
 * crash the node with SIGSEGV as it would without Tessera. */
#include <stdio.h>
#include <sys/mman.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int *shared = tsr_alloc(4096);
    shared[0] = 1;
    if (tsr_node() == tsr_nodes() - 1) {
        /* An address that was mapped a moment ago and no longer is. */
        volatile int *wild = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        munmap((void *)wild, 4096);
        fprintf(stderr, "node %d: writing to %p\n", tsr_node(), (void *)wild);
        *wild = 42;
    }
    tsr_barrier();
    tsr_finalize();
    return 0;
}
