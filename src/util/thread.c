/*
 * thread.c - starting the runtime's own threads (thread.h).
 */
#include "util/thread.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "util/log.h"

void thread_start(pthread_t *thread, void *(*fn)(void *), const char *what)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(thread, NULL, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* EAGAIN is also what a stack that cannot be mapped gives. */
    if (err == EAGAIN)
        log_die("cannot start %s: %s (the limit on processes and threads, ulimit -u, or no "
                "room for its stack under ulimit -v and -s)", what, strerror(err));
    if (err)
        log_die("cannot start %s: %s", what, strerror(err));
}
