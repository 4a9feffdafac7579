/* Misuses of fork/join, replicated sections and pause flags, one per
 * argument, each of which must stop the job with a message naming the call
 * (tests/sh/ompnow_misuse.sh). No tsr-test line: a helper. */
#include <stdio.h>
#include <string.h>

#include "tessera.h"

static void nothing(void *arg) {}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "fork-elsewhere") && tsr_node() == 1)
        tsr_fork(nothing, NULL);
    if (!strcmp(what, "join-alone"))
        tsr_join();
    if (!strcmp(what, "serve-master") && tsr_node() == 0)
        tsr_serve();
    if (!strcmp(what, "malloc-replicated")) {
        tsr_replicate_begin();
        tsr_malloc(64);
    }
    if (!strcmp(what, "munin-replicated")) {
        tsr_attr a = TSR_ATTR_DEFAULT;
        a.proto = TSR_PROTO_MUNIN;
        tsr_alloc_attr(4096, &a);
        tsr_replicate_begin();
    }
    /* node 0 alone in a collective call while the others serve forks,
     * before any fork or after a join */
    if (!strncmp(what, "barrier-serving", 15)) {
        if (tsr_node() != 0)
            tsr_serve();
        else if (!strcmp(what, "barrier-serving-joined")) {
            tsr_fork(nothing, NULL);
            tsr_join();
        }
        if (tsr_node() == 0)
            tsr_barrier();
    }
    if (!strcmp(what, "end-alone"))
        tsr_replicate_end();
    if (!strcmp(what, "flag-range"))
        tsr_flag_set(TSR_MAX_FLAGS);
    if (!strcmp(what, "nested-fork") && tsr_node() == 0) {
        tsr_fork(nothing, NULL);
        tsr_fork(nothing, NULL);
    }
    /* A pointer to data is no function. Node 0 alone forks: node 1's own
     * refusal (it may not fork) could otherwise stop the job first. */
    if (!strcmp(what, "fork-data") && tsr_node() == 0)
        tsr_fork((void (*)(void *))(void *)&what, NULL);
    tsr_finalize();
    return 0;
}
