/* signal_when.h - a thread of this node that signals a process once a
 * count of this node has grown by at least `by` since signal_when_start.
 * With stats_posted (stats/stats.h), the messages the transport has, a
 * test waits this way for "my message is on its way" instead of sleeping. */
#ifndef TEST_SIGNAL_WHEN_H
#define TEST_SIGNAL_WHEN_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint64_t signal_when_count(void);

typedef struct signal_when {
    pthread_t thread;
    pid_t pid;
    int sig;
    signal_when_count *count;
    uint64_t from, by;
} signal_when;

static void *signal_when_main(void *arg)
{
    signal_when *w = arg;
    while (w->count() - w->from < w->by)
        sched_yield();
    kill(w->pid, w->sig);
    return NULL;
}

static inline void signal_when_start(signal_when *w, signal_when_count *count, uint64_t by,
                                     pid_t pid, int sig)
{
    *w = (signal_when){.pid = pid, .sig = sig, .count = count, .by = by};
    w->from = count();
    if (pthread_create(&w->thread, NULL, signal_when_main, w)) {
        perror("pthread_create");
        exit(1);
    }
}

static inline void signal_when_join(signal_when *w) { pthread_join(w->thread, NULL); }

#endif
