/* Threads misusing the API, one mode per run (argv[1]); tests/sh/thr_misuse.sh
 * asserts that each stops with a message naming the cause and the
 * threads, within seconds, never hanging:
 *   locks2          on every node, thread 0 holds lock A and waits for B,
 *                   thread 1 holds B and waits for A (a deadlock no message
 *                   shows: each node holds both locks from the job)
 *   lock_barrier    on node k, thread 0 holds lock k + 1 and waits in
 *                   tsr_barrier_threads(2) for thread 1, which waits for
 *                   that lock (a stall, reported under TSR_STALL_ABORT)
 *   cross_nodes     on every node k of 2, thread 1 (thread 0 makes no call)
 *                   holds lock k + 1, passes a barrier, and asks for the
 *                   other node's lock (a deadlock between nodes, whose
 *                   report names each node's waiting thread)
 *   fork_thread, serve_thread, replicate_thread
 *                   a second thread calls tsr_fork (node 0, the others
 *                   serving), tsr_serve (the other nodes, node 0 finalizing)
 *                   or tsr_replicate_begin: calls made once per node, by
 *                   the tsr_init thread
 *   munin_alloc, munin_malloc, themis
 *                   Munin memory (collective, or a tsr_malloc_attr object)
 *                   or a Themis segment, refused under TSR_THREADS > 1 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tessera_ga.h"
#include "tessera_munin.h"

static pthread_barrier_t both_hold;

static void nothing(void *arg) { (void)arg; }

/* Thread t (0 or 1) of node k holds lock 2k + 1 + t, then asks for the
 * other thread's. */
static void *cross(void *arg)
{
    int t = (int)(long)arg, base = 2 * tsr_node() + 1;
    tsr_lock(base + t);
    pthread_barrier_wait(&both_hold);
    tsr_lock(base + 1 - t);
    return NULL;
}

static void *want_lock(void *arg)
{
    pthread_barrier_wait(&both_hold);
    tsr_lock(tsr_node() + 1);
    return arg;
}

static void *cross_node(void *arg)
{
    int k = tsr_node();
    tsr_lock(k + 1);
    tsr_barrier_threads(1); /* every node holds its lock from here */
    tsr_lock((k + 1) % tsr_nodes() + 1);
    return arg;
}

static void *call_fork(void *arg)
{
    tsr_fork(nothing, NULL);
    return arg;
}

static void *call_serve(void *arg)
{
    tsr_serve();
    return arg;
}

static void *call_replicate(void *arg)
{
    tsr_replicate_begin();
    return arg;
}

static void on_other_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

static void threads(const char *mode)
{
    pthread_t t;
    pthread_barrier_init(&both_hold, NULL, 2);
    if (!strcmp(mode, "locks2")) {
        pthread_create(&t, NULL, cross, (void *)1L);
        cross(NULL);
    } else {
        pthread_create(&t, NULL, want_lock, NULL);
        tsr_lock(tsr_node() + 1);
        pthread_barrier_wait(&both_hold);
        tsr_barrier_threads(2);
    }
    pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    tsr_init(&argc, &argv);
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.proto = TSR_PROTO_MUNIN;
    if (!strcmp(mode, "locks2") || !strcmp(mode, "lock_barrier"))
        threads(mode);
    if (!strcmp(mode, "fork_thread")) {
        if (tsr_node())
            tsr_serve(); /* parked until node 0 stops the job */
        else
            on_other_thread(call_fork);
    }
    if (!strcmp(mode, "serve_thread") && tsr_node())
        on_other_thread(call_serve);
    if (!strcmp(mode, "cross_nodes"))
        on_other_thread(cross_node);
    if (!strcmp(mode, "replicate_thread"))
        on_other_thread(call_replicate);
    if (!strcmp(mode, "munin_alloc"))
        ((long *)tsr_alloc_attr(4096, &attr))[0] = 1;
    if (!strcmp(mode, "munin_malloc"))
        ((long *)tsr_malloc_attr(64, &attr))[0] = 1;
    if (!strcmp(mode, "themis"))
        tsr_ga_alloc(4096, NULL);
    tsr_finalize();
    printf("done\n");
    return 0;
}
