/* Misuses of tsr_malloc memory that must stop the job with a message:
 *   unallocated  the last node allocates 16 pages and publishes them; node
 *                0 then reads 1 MiB past them, in the last node's arena but
 *                never allocated there (alone: in its own arena);
 *   foreign_free node 0 frees what the last node allocated;
 *   full         node 0 allocates more than its arena holds. */
#include <stdio.h>
#include <string.h>

#include "tessera.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "unallocated";
    int me = tsr_node(), last = tsr_nodes() - 1;
    char **slot = tsr_alloc(sizeof *slot);
    if (me == last)
        *slot = tsr_malloc(16 * 4096);
    tsr_barrier();
    if (me == 0 && !strcmp(mode, "unallocated")) {
        volatile char *beyond = *slot + (1 << 20);
        fprintf(stderr, "node 0: reading %p\n", (void *)beyond);
        printf("read %d: FAIL\n", *beyond);
    } else if (me == 0 && !strcmp(mode, "foreign_free")) {
        tsr_free_local(*slot);
    } else if (me == 0 && !strcmp(mode, "full")) {
        tsr_malloc((size_t)1 << 40);
    }
    tsr_barrier();
    tsr_finalize();
    return 0;
}
