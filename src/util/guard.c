#include "util/guard.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/log.h"

static enum { BEFORE_INIT, RUNNING, FINALIZED, FORKED } state;
static pthread_t app_thread;
static pid_t app_tid, app_pid;

static pid_t current_tid(void) { return (pid_t)syscall(SYS_gettid); }

/* A child made by fork() has the application thread's pthread_self() and
 * none of the runtime's threads: it is told apart here, and refused. */
static void in_child(void)
{
    if (state == RUNNING)
        state = FORKED;
}

/* No flush on the way out: the streams' buffers are the parent's too. */
__attribute__((noreturn)) static void refuse_child(const char *fn)
{
    log_die_status(1, "%s: called in process %d, a child that process %d made with fork(); only "
                   "the process that called tsr_init may call Tessera",
                   fn, (int)getpid(), (int)app_pid);
}

void guard_start(void)
{
    if (state == FORKED)
        refuse_child("tsr_init");
    if (state == RUNNING)
        log_die("tsr_init: called twice");
    if (state == FINALIZED)
        log_die("tsr_init: called after tsr_finalize (a process joins one job, once)");
    static int atfork;
    if (!atfork++ && pthread_atfork(NULL, NULL, in_child))
        log_die("tsr_init: cannot watch for fork()");
    app_thread = pthread_self();
    app_tid = current_tid();
    app_pid = getpid();
    state = RUNNING;
}

void guard_stop(void) { state = FINALIZED; }

void guard_check_any(const char *fn)
{
    if (state == BEFORE_INIT)
        log_die("%s: called before tsr_init", fn);
    if (state == FINALIZED)
        log_die("%s: called after tsr_finalize", fn);
    if (state == FORKED)
        refuse_child(fn);
}

/* pthread_self() is a register read: cheap enough for tsr_node() in a loop. */
void guard_check(const char *fn)
{
    guard_check_any(fn);
    if (!pthread_equal(pthread_self(), app_thread))
        log_die("%s: called from thread %d, not from thread %d that called tsr_init; Tessera "
                "serves this call from that thread only (docs/API.md, \"Threads\", lists the calls "
                "any thread may make)",
                fn, (int)current_tid(), (int)app_tid);
}

int guard_on_app_thread(void) { return current_tid() == app_tid; }

int guard_is_app_thread(void) { return pthread_equal(pthread_self(), app_thread); }
