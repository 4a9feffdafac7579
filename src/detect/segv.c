#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "coherence/coherence.h"
#include "detect/chain.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "util/guard.h"
#include "util/log.h"

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
        chain_pass_on(sig, info, uctx);
    errno = saved;
}

void detect_install(void) { chain_install(on_segv); }
