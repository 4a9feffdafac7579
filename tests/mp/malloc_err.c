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
 *   null_attr    node 0 passes tsr_malloc_attr no attributes;
 *   munin_thread a second thread of node 0 allocates a Munin object, which
 *                serves only the tsr_init thread;
 *   munin_thread_free  a second thread of the last node frees the Munin
 *                object that node's tsr_init thread allocated. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "tessera_munin.h"

static void *munin_alloc(void *attr) { return tsr_malloc_attr(64, attr); }

static void *free_it(void *ptr)
{
    tsr_free_local(ptr);
    return NULL;
}

/* Runs fn(arg) on a second thread of this node, and waits for it. */
static void on_second_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) || pthread_join(t, NULL))
        printf("cannot run a second thread: FAIL\n");
}

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
    int munin_obj = !strcmp(mode, "bound_free") || !strcmp(mode, "munin_thread_free");
    if (me == last)
        *slot = munin_obj ? tsr_malloc_attr(64, &munin) : tsr_malloc(16 * 4096);
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
    } else if (me == 0 && !strcmp(mode, "munin_thread")) {
        on_second_thread(munin_alloc, &munin);
    } else if (me == last && !strcmp(mode, "munin_thread_free")) {
        on_second_thread(free_it, *slot);
    }
    tsr_barrier();
    tsr_finalize();
    return 0;
}
