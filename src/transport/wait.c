#include "transport/wait.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"

void waiter_done(waiter *w)
{
    if (atomic_fetch_sub(&w->pending, 1) == 1)
        syscall(SYS_futex, &w->pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void waiter_wait(waiter *w)
{
    if (cfg.progress != PROGRESS_BLOCK) {
        am_expect_reply();
        double until = now_s() + cfg.spin_us * 1e-6;
        for (unsigned i = 1; atomic_load_explicit(&w->pending, memory_order_acquire); i++) {
            if (cfg.progress == PROGRESS_HYBRID && now_s() > until)
                break;
            /* With more threads than cores the reply may need this core:
             * offer it now and then (sched_yield is async-signal-safe). */
            if (i % 64 == 0)
                sched_yield();
            else
                cpu_relax();
        }
    }
    /* A signal (EINTR) or a spurious wake-up only goes round the loop. */
    uint32_t v;
    while ((v = atomic_load_explicit(&w->pending, memory_order_acquire)) != 0)
        syscall(SYS_futex, &w->pending, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}
