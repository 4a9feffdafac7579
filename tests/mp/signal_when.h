/* signal_when.h - a thread of this node that signals a process once one of
 * this node's counters (a uint64_t field of tsr_stats) has grown by at
 * least `by` since signal_when_start. The transport counts a message once
 * it has it, so a test waits this way for "my message is on its way"
 * instead of sleeping. */
#ifndef TEST_SIGNAL_WHEN_H
#define TEST_SIGNAL_WHEN_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

typedef struct signal_when {
    pthread_t thread;
    pid_t pid;
    int sig;
    size_t field; /* offsetof(tsr_stats, the counter) */
    uint64_t from, by;
} signal_when;

static uint64_t signal_when_read(size_t field)
{
    tsr_stats s;
    uint64_t v;
    tsr_stats_get(&s);
    memcpy(&v, (const char *)&s + field, sizeof v);
    return v;
}

static void *signal_when_main(void *arg)
{
    signal_when *w = arg;
    while (signal_when_read(w->field) - w->from < w->by)
        sched_yield();
    kill(w->pid, w->sig);
    return NULL;
}

static inline void signal_when_start(signal_when *w, size_t field, uint64_t by, pid_t pid,
                                     int sig)
{
    *w = (signal_when){.pid = pid, .sig = sig, .field = field, .by = by};
    w->from = signal_when_read(field);
    if (pthread_create(&w->thread, NULL, signal_when_main, w)) {
        perror("pthread_create");
        exit(1);
    }
}

static inline void signal_when_join(signal_when *w) { pthread_join(w->thread, NULL); }

#endif
