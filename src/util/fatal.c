#include "util/fatal.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

static const int fatal_signals[] = {SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV};
/* The node's process: a child the program forked is not the node, and its
 * death is the program's business. */
static pid_t node_pid;

static const char *what_happened(int sig)
{
    switch (sig) {
    case SIGABRT: return "aborted (abort(), or an assert that failed)";
    case SIGBUS: return "bus error";
    case SIGFPE: return "arithmetic error (an integer division by zero?)";
    case SIGILL: return "illegal instruction";
    default: return "invalid memory access";
    }
}

/* Says what happened, then lets the signal end the process with its own
 * status: the default disposition back, and a signal that was sent raised
 * again (delivered once this handler returns); a faulting instruction
 * faults again when the handler returns. */
static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    if (getpid() == node_pid) {
        if (info->si_code <= 0 && sig != SIGABRT)
            log_last_words("signal %d sent by process %d", sig, (int)info->si_pid);
        else if (sig == SIGABRT)
            log_last_words("%s", what_happened(sig));
        else
            log_last_words("%s at address %p (signal %d)", what_happened(sig), info->si_addr, sig);
    }
    signal(sig, SIG_DFL);
    if (info->si_code <= 0)
        raise(sig);
}

void fatal_signals_install(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    node_pid = getpid();
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(fatal_signals[i], &sa, NULL);
}
