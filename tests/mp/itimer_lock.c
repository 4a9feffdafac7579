/* Start-up, locks, barriers and page faults under a signal storm: before
 * tsr_init each node arms a 1 ms interval timer (ITIMER_REAL, or ITIMER_PROF
 * with argument "prof", as profilers do) whose handler does nothing and is
 * installed without SA_RESTART, so that every blocking system call the
 * runtime makes on this thread can fail with EINTR. Every node adds to a
 * counter under a lock and fills its own slice of an array that every node
 * then reads; the results must be exact and at least one signal must have
 * arrived. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "tessera.h"

#define ROUNDS 300
#define SLICE 2048 /* longs per node: four pages */

static volatile sig_atomic_t signals;

static void on_timer(int sig)
{
    (void)sig;
    signals++;
}

static void start_storm(int which, int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_timer; /* sa_flags 0: no SA_RESTART */
    sigaction(sig, &sa, NULL);
    struct itimerval every_ms = {{0, 1000}, {0, 1000}};
    setitimer(which, &every_ms, NULL);
}

int main(int argc, char **argv)
{
    int prof = argc > 1 && !strcmp(argv[1], "prof");
    start_storm(prof ? ITIMER_PROF : ITIMER_REAL, prof ? SIGPROF : SIGALRM);
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    long *counter = tsr_alloc(sizeof *counter);
    long *slices = tsr_alloc((size_t)n * SLICE * sizeof *slices);
    for (int i = 0; i < ROUNDS; i++) {
        tsr_lock(3);
        (*counter)++;
        tsr_unlock(3);
    }
    for (int i = 0; i < SLICE; i++)
        slices[me * SLICE + i] = me * 100000L + i;
    tsr_barrier();
    long bad = *counter != (long)ROUNDS * n;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < SLICE; i++)
            bad += slices[j * SLICE + i] != j * 100000L + i;
    tsr_barrier();
    /* The storm must have reached this thread; the timer keeps firing, so
     * this wait ends. */
    while (!signals)
        ;
    printf("node %d: counter %ld want %ld, %ld bad, %d signal(s) %s\n", me, *counter,
           (long)ROUNDS * n, bad, (int)signals, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
