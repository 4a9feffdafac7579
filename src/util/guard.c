#include "util/guard.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/log.h"

static enum { BEFORE_INIT, RUNNING, FINALIZED } state;
static pthread_t app_thread;
static pid_t app_tid;

static pid_t current_tid(void) { return (pid_t)syscall(SYS_gettid); }

void guard_start(void)
{
    if (state == RUNNING)
        log_die("tsr_init: called twice");
    if (state == FINALIZED)
        log_die("tsr_init: called after tsr_finalize (a process joins one job, once)");
    app_thread = pthread_self();
    app_tid = current_tid();
    state = RUNNING;
}

void guard_stop(void) { state = FINALIZED; }

/* pthread_self() is a register read: cheap enough for tsr_node() in a loop. */
void guard_check(const char *fn)
{
    if (state == BEFORE_INIT)
        log_die("%s: called before tsr_init", fn);
    if (state == FINALIZED)
        log_die("%s: called after tsr_finalize", fn);
    if (!pthread_equal(pthread_self(), app_thread))
        log_die("%s: called from thread %d, not from thread %d that called tsr_init; Tessera "
                "serves one application thread per node (there is no multi-thread mode)",
                fn, (int)current_tid(), (int)app_tid);
}

int guard_on_app_thread(void) { return current_tid() == app_tid; }
