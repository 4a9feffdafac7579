/*
 * segv.c - the `segv` detection backend: the application view's pages are
 * mapped PROT_NONE / PROT_READ / PROT_READ|PROT_WRITE as their access bytes
 * say, and the SIGSEGV handler turns a fault into a call of the fault
 * callback, on the faulting thread. A fault outside Tessera's memory is the
 * program's own and is passed on unchanged.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "detect/backend.h"
#include "detect/chain.h"
#include "detect/detect.h"
#include "memory/region.h"
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

/* Any thread may fault here: coh_fault serializes the node's threads. */
static void on_segv(int sig, siginfo_t *info, void *uctx)
{
    int saved = errno;
    if (detect_fault(info->si_addr, fault_is_write(uctx)) < 0)
        chain_pass_on(sig, info, uctx);
    errno = saved;
}

/* The handler goes in through chain.c, which keeps a handler the program
 * installs later behind it. */
static int segv_start(char *why, size_t len)
{
    (void)why;
    (void)len;
    chain_install(on_segv);
    return 0;
}

static const int prot_of[] = {
    [ACCESS_NONE] = PROT_NONE,
    [ACCESS_READ] = PROT_READ,
    [ACCESS_WRITE] = PROT_READ | PROT_WRITE,
};

/* Always mprotect, even when `old` says nothing changes: that is how a
 * protection left behind is put right. */
static void segv_apply(uint32_t first, uint32_t n, int old, int access)
{
    if (mprotect(page_app(first), (size_t)n << PAGE_SHIFT, prot_of[access]))
        log_die_status(1, "mprotect of %u page(s) at %p failed: %s (raise vm.max_map_count, "
                       "or use TSR_DETECT=uffd)", n, (void *)page_app(first), strerror(errno));
}

const detect_backend segv_backend = {"segv", 0, segv_start, segv_apply, NULL, NULL, NULL, NULL};
