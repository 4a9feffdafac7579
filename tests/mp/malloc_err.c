/* Misuses of tsr_malloc memory that must stop the job with a message:
 *   unallocated  the last node allocates 16 pages and publishes them; node
 *                0 then reads 1 MiB past them, in the last node's arena but
 *                never allocated there (alone: in its own arena);
 *   foreign_free node 0 frees what the last node allocated;
 *   full         node 0 allocates more than its arena holds;
 *   bound_free   the last node frees a Munin object of its own that every
 *                node has bound to a lock (tsr_hint_lock_data);
 *   lrc_attr     node 0 asks tsr_malloc_attr for TreadMarks' protocol in a
 *                job whose own allocations are home-based;
 *   null_attr    node 0 passes tsr_malloc_attr no attributes. */
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "tessera_munin.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "unallocated";
    int me = tsr_node(), last = tsr_nodes() - 1;
    char **slot = tsr_alloc(sizeof *slot);
    tsr_attr munin = TSR_ATTR_DEFAULT, lrc = TSR_ATTR_DEFAULT;
    munin.proto = TSR_PROTO_MUNIN;
    munin.annot = TSR_MIGRATORY;
    lrc.proto = TSR_PROTO_LRC;
    if (me == last)
        *slot = strcmp(mode, "bound_free") ? tsr_malloc(16 * 4096) : tsr_malloc_attr(64, &munin);
    tsr_barrier();
    if (!strcmp(mode, "bound_free"))
        tsr_hint_lock_data(5, *slot);
    if (me == 0 && !strcmp(mode, "unallocated")) {
        volatile char *beyond = *slot + (1 << 20);
        fprintf(stderr, "node 0: reading %p\n", (void *)beyond);
        printf("read %d: FAIL\n", *beyond);
    } else if (me == 0 && !strcmp(mode, "foreign_free")) {
        tsr_free_local(*slot);
    } else if (me == 0 && !strcmp(mode, "full")) {
        tsr_malloc((size_t)1 << 40);
    } else if (me == last && !strcmp(mode, "bound_free")) {
        tsr_free_local(*slot);
    } else if (me == 0 && !strcmp(mode, "lrc_attr")) {
        tsr_malloc_attr(64, &lrc);
    } else if (me == 0 && !strcmp(mode, "null_attr")) {
        tsr_malloc_attr(64, NULL);
    }
    tsr_barrier();
    tsr_finalize();
    return 0;
}
