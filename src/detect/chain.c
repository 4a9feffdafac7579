#include "detect/chain.h"

#include <dlfcn.h>
#include <string.h>

#include "util/log.h"

/* The only names the library exports besides its API (tests/sh/exports.sh
 * knows them): they stand in for the C library's for the whole program. */
#define INTERPOSE __attribute__((visibility("default")))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn real_sigaction;
/* The program's SIGSEGV disposition while the runtime's handler is in. */
static struct sigaction program;
static volatile sig_atomic_t chained;

/* The C library's sigaction, found once outside any signal handler. */
static sigaction_fn libc_sigaction(void)
{
    if (!real_sigaction)
        real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    if (!real_sigaction)
        log_die("cannot find the C library's sigaction: %s", dlerror());
    return real_sigaction;
}

INTERPOSE int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig != SIGSEGV || !chained)
        return libc_sigaction()(sig, act, old);
    struct sigaction was = program;
    if (act)
        program = *act;
    if (old)
        *old = was;
    return 0;
}

/* glibc's signal() has BSD semantics: restarting, not reset on delivery. */
INTERPOSE sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, &old) ? SIG_ERR : old.sa_handler;
}

void chain_install(void (*handler)(int, siginfo_t *, void *))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (libc_sigaction()(SIGSEGV, &sa, &program))
        log_die("cannot install the SIGSEGV handler: %m");
    chained = 1;
}

/* As the kernel would: the handler's mask blocked while it runs, a one-shot
 * handler reset first. SIG_DFL or SIG_IGN: the disposition goes back in and
 * the faulting instruction, run again, kills the process as usual. */
void chain_pass_on(int sig, siginfo_t *info, void *uctx)
{
    struct sigaction h = program;
    if (h.sa_handler == SIG_DFL || h.sa_handler == SIG_IGN) {
        real_sigaction(SIGSEGV, &h, NULL);
        return;
    }
    if (h.sa_flags & SA_RESETHAND)
        program.sa_handler = SIG_DFL;
    sigset_t saved;
    pthread_sigmask(SIG_BLOCK, &h.sa_mask, &saved);
    if (h.sa_flags & SA_SIGINFO)
        h.sa_sigaction(sig, info, uctx);
    else
        h.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}
