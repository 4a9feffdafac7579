#include "transport/wait.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"

void waiter_done(waiter *w)
{
    if (atomic_fetch_sub(&w->pending, 1) == 1)
        syscall(SYS_futex, &w->pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The spin before sleeping, as TSR_PROGRESS says. */
static void spin(waiter *w)
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
}

void waiter_wait(waiter *w)
{
    spin(w);
    /* A signal (EINTR) or a spurious wake-up only goes round the loop. */
    uint32_t v;
    while ((v = atomic_load_explicit(&w->pending, memory_order_acquire)) != 0)
        syscall(SYS_futex, &w->pending, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

int waiter_wait_until(waiter *w, double deadline)
{
    spin(w);
    uint32_t v;
    while ((v = atomic_load_explicit(&w->pending, memory_order_acquire)) != 0) {
        double left = deadline - now_s();
        if (left <= 0)
            return -1;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        syscall(SYS_futex, &w->pending, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
    }
    return 0;
}
