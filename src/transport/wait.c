#include "transport/wait.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "transport/core.h"
#include "util/config.h"
#include "util/cpu.h"

/* The last reply and the sleeper's announcement are both sequentially
 * consistent, so at least one of the two threads sees the other's: either
 * the sleeper finds pending at zero, or the last reply finds it asleep. */
void waiter_done(waiter *w)
{
    if (atomic_fetch_sub(&w->pending, 1) == 1 && atomic_load(&w->sleeping))
        syscall(SYS_futex, &w->pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The spin before sleeping, as TSR_PROGRESS says. A waiter for a reply it
 * may take (waiter_init_taken) polls the links itself where the backend
 * lets it (shm), so the reply needs no comm thread on this node; otherwise
 * the comm thread is told to poll for it. */
static void spin(waiter *w)
{
    if (cfg.progress == PROGRESS_BLOCK)
        return;
    int direct = w->takes_reply && core_replies_begin();
    if (!direct)
        am_expect_reply();
    double until = now_s() + cfg.spin_us * 1e-6;
    for (unsigned i = 1; atomic_load_explicit(&w->pending, memory_order_acquire); i++) {
        if (direct && core_take_replies())
            continue;
        /* With more threads than cores the reply may need this core:
         * offer it now and then (sched_yield is async-signal-safe). The
         * clock is read as seldom: a read costs as much as a turn. */
        if (i % 64 == 0) {
            if (cfg.progress == PROGRESS_HYBRID && now_s() > until)
                break;
            sched_yield();
        } else {
            cpu_relax();
        }
    }
    if (direct)
        core_replies_end();
}

/* Announces the sleep before the last look at pending (see waiter_done). */
static uint32_t going_to_sleep(waiter *w)
{
    atomic_store(&w->sleeping, 1);
    return atomic_load(&w->pending);
}

void waiter_wait(waiter *w)
{
    core_wait_begin();
    spin(w);
    /* A signal (EINTR) or a spurious wake-up only goes round the loop. */
    uint32_t v;
    while ((v = going_to_sleep(w)) != 0)
        syscall(SYS_futex, &w->pending, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
    core_wait_end();
}

int waiter_wait_until(waiter *w, double deadline)
{
    core_wait_begin();
    spin(w);
    uint32_t v;
    int late = 0;
    while (!late && (v = going_to_sleep(w)) != 0) {
        double left = deadline - now_s();
        late = left <= 0;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        if (!late)
            syscall(SYS_futex, &w->pending, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
    }
    core_wait_end();
    return late ? -1 : 0;
}
