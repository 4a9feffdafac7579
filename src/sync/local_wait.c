/*
 * local_wait.c - waits among a node's threads, numbered, watched, and a
 * deadlock among them found (local_wait.h).
 *
 * A deadlock is claimed only for a cycle of lock waits: thread A waits for
 * a lock that thread B of the node holds, B for one that C holds, ... and
 * the last for one that A holds. Under local_mu that is a fact, not a
 * guess: each holder is blocked in a wait that only another holder of the
 * cycle can end. A wait at tsr_barrier_threads is never part of a claim,
 * since the barrier counts arrivals, not threads: a thread that has not
 * called Tessera yet may still complete it. Such waits are reported, with
 * the others, past TSR_STALL_WARN.
 */
#include "sync/local_wait.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "tessera.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/guard.h"
#include "util/log.h"

/* Threads recorded; a node's later ones wait unwatched. */
#define LW_MAX 4096

typedef struct lw_rec {
    int kind;     /* LW_*: what it waits for */
    uint64_t arg; /* the lock slot, or the team round */
    double since; /* when the wait began (now_s) */
    double warn_at; /* when to report it next */
} lw_rec;

pthread_mutex_t local_mu = PTHREAD_MUTEX_INITIALIZER;
static lw_rec recs[LW_MAX];
static int given = 1; /* indices given; 0 is the tsr_init thread's */
static __thread int self = -1;

int lw_self(void)
{
    if (self >= 0)
        return self;
    if (guard_is_app_thread())
        return self = 0;
    pthread_mutex_lock(&local_mu);
    self = given++;
    pthread_mutex_unlock(&local_mu);
    return self;
}

static lw_rec *mine(void) { return self < LW_MAX ? &recs[self] : NULL; }

/* "lock 3", or "the lock of flag 2" for a flag's slot. */
static void name_slot(char *buf, size_t len, uint64_t slot)
{
    if (slot >= TSR_MAX_LOCKS)
        snprintf(buf, len, "the lock of flag %d", (int)(slot - TSR_MAX_LOCKS));
    else
        snprintf(buf, len, "lock %d", (int)slot);
}

/* The thread holding the lock that thread i waits for, if that holder
 * waits too (for another lock), else -1. */
static int next_in_chain(int i)
{
    if (recs[i].kind != LW_LOCK)
        return -1;
    int h = cohort_holder((int)recs[i].arg);
    return h >= 0 && h < LW_MAX && recs[h].kind == LW_LOCK ? h : -1;
}

/* Whether following holders from this thread comes back to it; if so,
 * describes the cycle into buf. */
static int deadlocked(char *buf, size_t len)
{
    int i = self, k = 0;
    do {
        i = next_in_chain(i);
        k++;
    } while (i >= 0 && i != self && k <= given);
    if (i != self)
        return 0;
    size_t n = (size_t)snprintf(buf, len, "deadlock between %d threads of node %d:", k, cfg.node);
    i = self;
    for (int j = 0; j < k && n < len; j++) {
        char slot[48];
        int h = next_in_chain(i);
        name_slot(slot, sizeof slot, recs[i].arg);
        n += (size_t)snprintf(buf + n, len - n, "%s thread %d waits for %s, held by thread %d",
                              j ? ";" : "", i, slot, h);
        i = h;
    }
    return 1;
}

/* "stalled 12 s in tsr_lock(3) at thread 1; held by thread 0 of this node" */
static void describe(char *buf, size_t len, const lw_rec *r, double seconds)
{
    if (r->kind == LW_TEAM) {
        snprintf(buf, len, "stalled %.0f s in tsr_barrier_threads at thread %d, waiting for "
                 "threads of this node to arrive", seconds, self);
        return;
    }
    char slot[48];
    name_slot(slot, sizeof slot, r->arg);
    int h = cohort_holder((int)r->arg);
    const char *holder_does = h < 0 || h >= LW_MAX  ? ""
                              : recs[h].kind == LW_LOCK ? ", which waits for a lock"
                              : recs[h].kind == LW_TEAM ? ", which waits in tsr_barrier_threads"
                                                        : ", which runs";
    snprintf(buf, len, "stalled %.0f s waiting for %s at thread %d; held by thread %d of this "
             "node%s", seconds, slot, self, h, holder_does);
}

void lw_begin(int kind, uint64_t arg)
{
    lw_rec *r = mine();
    if (r)
        *r = (lw_rec){kind, arg, now_s(), cfg.stall_warn_s ? now_s() + cfg.stall_warn_s : INFINITY};
}

void lw_end(void)
{
    lw_rec *r = mine();
    if (r)
        r->kind = LW_RUNNING;
}

/* At most a second's sleep: then a look at the waits (no message). */
void lw_wait(pthread_cond_t *cv)
{
    lw_rec *r = mine();
    if (!r) {
        pthread_cond_wait(cv, &local_mu);
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    if (!pthread_cond_timedwait(cv, &local_mu, &until))
        return;
    char report[600];
    if (deadlocked(report, sizeof report))
        am_abort(report);
    double t = now_s();
    if (cfg.stall_abort_s && t - r->since >= cfg.stall_abort_s) {
        describe(report, sizeof report, r, t - r->since);
        am_abort(report);
    }
    if (t >= r->warn_at) {
        describe(report, sizeof report, r, t - r->since);
        log_warn("%s", report);
        r->warn_at += cfg.stall_warn_s;
    }
}
