/* Programs that misuse the API, one per mode (argv[1]); tests/sh/misuse_*.sh
 * assert that each stops with a message naming the mistake, never hangs
 * and never computes a wrong result silently. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tessera_munin.h"

static long *shared;

static void *call_alloc(void *arg)
{
    tsr_alloc(4096); /* collective: the thread that called tsr_init only */
    return arg;
}

static void *call_lock(void *arg)
{
    tsr_lock(0);
    return arg;
}

static void *write_shared(void *arg)
{
    shared[0] = 1; /* a fresh page of Munin's: the first write faults */
    return arg;
}

static void *team_of_three(void *arg)
{
    tsr_barrier_threads(3);
    return arg;
}

static void on_other_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

static int last(void) { return tsr_node() == tsr_nodes() - 1; }

/* Node 0's child calls tsr_barrier; node 0 reports how the child ended. */
static void fork_call(void)
{
    if (tsr_node())
        return;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        tsr_barrier();
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Node 1 holds lock 1 and enters a barrier; node 0 waits for lock 1. */
static void deadlock_lock_barrier(void)
{
    if (tsr_node() == 1)
        tsr_lock(1);
    tsr_barrier(); /* node 1 holds the lock from here */
    if (tsr_node() == 0)
        tsr_lock(1);
    tsr_barrier();
}

/* Each node holds lock `node` and waits for the next node's. */
static void deadlock_locks(void)
{
    int me = tsr_node();
    tsr_lock(me);
    tsr_barrier(); /* every node holds its lock from here */
    tsr_lock((me + 1) % tsr_nodes());
}

/* The last node takes lock 1 into tsr_finalize; the others wait for it. */
static void finalize_holding(void)
{
    if (last())
        tsr_lock(1);
    tsr_barrier();
    if (last())
        tsr_finalize();
    tsr_lock(1);
}

/* No deadlock: the last node holds lock 1 for 3 s while the others wait
 * for it, then lets it go. */
static void long_hold(void)
{
    if (last())
        tsr_lock(1);
    tsr_barrier();
    if (last()) {
        sleep(3);
        tsr_unlock(1);
    } else {
        tsr_lock(1);
        tsr_unlock(1);
    }
}

/* Another thread holds stdout's lock for good (as one interrupted inside
 * printf would) when this one misuses the API: the message must still come
 * out and the process end, since dying takes no stdio lock. */
static void *hold_stdout(void *arg)
{
    flockfile(stdout);
    sem_post(arg);
    for (;;)
        pause();
    return NULL;
}

static void die_stdio_held(void)
{
    sem_t held;
    pthread_t t;
    sem_init(&held, 0, 0);
    pthread_create(&t, NULL, hold_stdout, &held);
    while (sem_wait(&held))
        ;
    tsr_lock(-1);
}

/* Unflushed output (stdout to a pipe is fully buffered) comes out at an
 * ordinary exit. */
static void buffered_exit(void) { printf("unflushed line\n"); }

/* Misuse that used to hang (tests/sh/misuse_deadlock.sh). */
static const struct {
    const char *mode;
    void (*run)(void);
} waits[] = {
    {"fork_call", fork_call},           {"deadlock_lock_barrier", deadlock_lock_barrier},
    {"deadlock_locks", deadlock_locks}, {"long_hold", long_hold},
    {"finalize_holding", finalize_holding},
    {"die_stdio_held", die_stdio_held},
    {"buffered_exit", buffered_exit},
};

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
        on_other_thread(call_alloc);
    if (!strcmp(mode, "thread_count")) { /* two threads, two counts: whichever comes second stops */
        pthread_t t;
        pthread_create(&t, NULL, team_of_three, NULL);
        tsr_barrier_threads(2);
        pthread_join(t, NULL);
    }
    if (!strncmp(mode, "thread_munin_", 13)) {
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.proto = TSR_PROTO_MUNIN;
        shared = tsr_alloc_attr(4096, &attr);
        on_other_thread(strcmp(mode, "thread_munin_lock") ? write_shared : call_lock);
    }
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
    for (size_t i = 0; i < sizeof waits / sizeof *waits; i++)
        if (!strcmp(mode, waits[i].mode))
            waits[i].run();
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
