/* Programs that misuse the API, one per mode (argv[1]); tests/sh/misuse_*.sh
 * assert that each stops with a message naming the mistake, never hangs
 * and never computes a wrong result silently. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tessera_munin.h"

static long *shared;

static void *call_lock(void *arg)
{
    tsr_lock(0);
    return arg;
}

static void *write_shared(void *arg)
{
    shared[0] = 1; /* a fresh page: the first write faults */
    return arg;
}

static void on_other_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

static int last(void) { return tsr_node() == tsr_nodes() - 1; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "lock_before_init"))
        tsr_lock(0);
    if (!strcmp(mode, "barrier_before_init"))
        tsr_barrier();
    tsr_init(&argc, &argv);
    shared = tsr_alloc(4096);
    if (!strcmp(mode, "thread_call"))
        on_other_thread(call_lock);
    if (!strcmp(mode, "thread_fault"))
        on_other_thread(write_shared);
    if (!strcmp(mode, "alloc_size"))
        tsr_alloc(last() ? 8192 : 4096);
    if (!strcmp(mode, "alloc_count") && last())
        tsr_alloc(4096);
    if (!strcmp(mode, "alloc_attr")) {
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.home = last() ? TSR_HOME_CYCLIC : TSR_HOME_BLOCK;
        tsr_alloc_attr(4096, &attr);
    }
    if (!strcmp(mode, "alloc_annot")) {
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.proto = TSR_PROTO_MUNIN;
        attr.annot = last() ? TSR_WRITE_SHARED : TSR_PRODUCER_CONSUMER;
        tsr_alloc_attr(4096, &attr);
    }
    if (!strcmp(mode, "alloc_block")) {
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.home = TSR_HOME_CYCLIC;
        attr.block_pages = last() ? 2 : 1;
        tsr_alloc_attr(4 * 4096, &attr);
    }
    if (!strcmp(mode, "alloc_ignored")) { /* fields these placements ignore */
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.home_node = attr.start_node = tsr_node();
        attr.block_pages = (size_t)tsr_node();
        attr.annot = tsr_node();
        tsr_alloc_attr(4096, &attr);
        attr.home = TSR_HOME_CYCLIC;
        attr.start_node = 0;
        attr.block_pages = 100 + (size_t)tsr_node(); /* longer than the allocation */
        tsr_alloc_attr(4096, &attr);
    }
    if (!strcmp(mode, "skip_barrier")) {
        if (last())
            sleep(30); /* never reaches the barrier the others wait in */
        tsr_barrier();
    }
    if (!strcmp(mode, "lock_stall")) {
        if (last())
            tsr_lock(1);
        tsr_barrier();
        if (last())
            sleep(30); /* holds lock 1 while the others want it */
        tsr_lock(1);
        tsr_unlock(1);
    }
    if (strcmp(mode, "barrier_skipped") || !last())
        tsr_barrier();
    tsr_finalize();
    if (!strcmp(mode, "lock_after_finalize"))
        tsr_lock(0);
    if (!strcmp(mode, "barrier_after_finalize"))
        tsr_barrier();
    printf("done\n");
    return 0;
}
