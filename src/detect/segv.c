#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "coherence/coherence.h"
#include "memory/region.h"
#include "detect/detect.h"
#include "util/guard.h"
#include "util/log.h"

static struct sigaction previous;

/* Whether the faulting access was a write. x86-64 says so in the page-fault
 * error code; elsewhere -1 lets the protocol infer it from the page state
 * (a fault on a readable page can only be a write). */
static int fault_is_write(void *uctx)
{
#if defined(__x86_64__)
    return (((ucontext_t *)uctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)uctx;
    return -1;
#endif
}

/* Not ours: put the previous disposition back and return, so the faulting
 * instruction runs again and the program dies (or handles it) as usual. */
static void pass_on(int sig, siginfo_t *info, void *uctx)
{
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, info, uctx);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    sigaction(SIGSEGV, &previous, NULL);
}

static void on_segv(int sig, siginfo_t *info, void *uctx)
{
    int saved = errno;
    /* Another thread would race the application thread over the page's
     * state and the shared waiters: stop rather than compute wrong values. */
    if (region_contains(info->si_addr) && !guard_on_app_thread())
        log_die_status(1, "thread %d accessed shared memory at %p; Tessera serves only the thread "
                       "that called tsr_init (there is no multi-thread mode)",
                       (int)syscall(SYS_gettid), info->si_addr);
    if (coh_fault(info->si_addr, fault_is_write(uctx)) < 0)
        pass_on(sig, info, uctx);
    errno = saved;
}

void detect_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &previous))
        log_die("cannot install the SIGSEGV handler: %m");
}
