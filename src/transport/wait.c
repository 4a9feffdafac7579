#include "transport/wait.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "transport/core.h"
#include "util/config.h"
#include "util/cpu.h"

/* The last reply and the sleeper's announcement change the same word, so
 * one of them sees the other's: either the sleeper finds the count at zero,
 * or the last reply finds it asleep. */
void waiter_done(waiter *w)
{
    if (atomic_fetch_sub(&w->pending, 1) == (WAITER_SLEEPS | 1))
        syscall(SYS_futex, &w->pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static uint32_t count(waiter *w) { return atomic_load(&w->pending) & ~WAITER_SLEEPS; }

/* One look of a direct waiter (see spin) at its peer's link: 1 if it took
 * a reply, or if the link went back to the comm thread (-1 from the
 * backend), which ends the direct wait: the comm thread is then told to
 * poll for the reply. */
static int take(waiter *w, int *direct, unsigned *every)
{
    int took = core_take_replies(w->reply_from);
    if (took >= 0)
        return took;
    core_replies_end(w->reply_from);
    *direct = 0;
    *every = WAIT_YIELD_FOR_COMM;
    am_expect_reply();
    return 1;
}

/* The spin before sleeping, as TSR_PROGRESS says. A waiter for a reply it
 * may take (waiter_init_taken) polls its peer's link itself where the
 * backend lets it (shm, a peer on this host; tcp), so the reply needs no comm
 * thread on this node; otherwise the comm thread is told to poll for it. */
static void spin(waiter *w)
{
    if (cfg.progress == PROGRESS_BLOCK)
        return;
    int direct = w->reply_from >= 0 && core_replies_begin(w->reply_from);
    if (!direct)
        am_expect_reply();
    double until = now_s() + cfg.spin_us * 1e-6;
    /* With more threads than cores the reply may need this core: offer it
     * now and then (sched_yield is async-signal-safe). Often when this
     * node's comm thread must run the reply's handler, which may share the
     * core: yielding every 8 turns rather than 64 took a 2-node barrier
     * over shm from 15 to 9.5 us, over TCP from 138 to 39 (tsr_micro,
     * medians). Seldom when this thread takes the reply itself: the work
     * is then on the peer's core; but not as seldom when each look is a
     * system call (tcp): 64 such looks kept a peer that shared this core
     * waiting so long that a 64 B AM round trip took 21 us rather than
     * 7.3 (tsr_micro, loaded machine). The clock is read as seldom: a
     * read costs as much as a turn. */
    unsigned every = direct ? core_take_yield() : WAIT_YIELD_FOR_COMM;
    for (unsigned i = 1; count(w); i++) {
        if (direct && take(w, &direct, &every))
            continue;
        if (i % every == 0) {
            if (cfg.progress == PROGRESS_HYBRID && now_s() > until)
                break;
            sched_yield();
        } else {
            cpu_relax();
        }
    }
    if (direct)
        core_replies_end(w->reply_from);
}

/* Announces the sleep and returns the word to sleep on (see waiter_done). */
static uint32_t going_to_sleep(waiter *w)
{
    return atomic_fetch_or(&w->pending, WAITER_SLEEPS) | WAITER_SLEEPS;
}

/* After the spin: sleeps on the futex until the count reaches zero, or
 * until `deadline` (now_s() clock) if it is not negative. A wait that its
 * spin ended announces no sleep: over shm, where the spin ends nearly
 * every wait, that saves two locked instructions a round trip. A signal
 * (EINTR) or a spurious wake-up only goes round the loop. Returns -1 if
 * late. */
static int sleep_until_done(waiter *w, double deadline)
{
    int late = 0, announced = 0;
    uint32_t v;
    while (!late && count(w) && (v = going_to_sleep(w)) != WAITER_SLEEPS) {
        announced = 1;
        struct timespec ts, *limit = NULL;
        if (deadline >= 0) {
            double left = deadline - now_s();
            late = left <= 0;
            ts = (struct timespec){(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
            limit = &ts;
        }
        if (!late)
            syscall(SYS_futex, &w->pending, FUTEX_WAIT_PRIVATE, v, limit, NULL, 0);
    }
    /* Leaves the waiter as it was found: no thread sleeps on it now. */
    if (announced)
        atomic_fetch_and(&w->pending, ~WAITER_SLEEPS);
    core_wait_end();
    return late ? -1 : 0;
}

/* A wait whose answers are all in (a lock this node manages and finds
 * free grants itself before the wait begins) returns at once: announcing
 * it would make the comm thread poll for TSR_SPIN_US for a reply that
 * never comes (at one node, BARNES' 2.1 million such acquires kept it
 * polling through the whole run). */
void waiter_wait(waiter *w)
{
    if (!count(w))
        return;
    core_wait_begin();
    spin(w);
    sleep_until_done(w, -1);
}

int waiter_wait_until(waiter *w, double deadline)
{
    if (!count(w))
        return 0;
    core_wait_begin();
    spin(w);
    return sleep_until_done(w, deadline);
}
