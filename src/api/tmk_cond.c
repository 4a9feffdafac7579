/*
 * tmk_cond.c - TreadMarks' condition variables (Tmk_lock_cond_*), each
 * bound to a lock, kept by a manager: the node lock_id % nodes.
 *
 * A waiter has its wait recorded at the manager and acknowledged before it
 * releases the lock, so any signal made under the lock after that release
 * finds it there. The manager wakes waiters in the order they were
 * recorded; the woken one takes the lock again, and gets the signaller's
 * writes through it as through any acquire.
 *
 * The manager's state (comm thread only) is one slot per node, since a
 * process waits on one condition at a time: the condition it waits on, the
 * request id to wake it with, and when it began to wait.
 *
 * The stall detector watches the wait for a signal (stall.h): each message
 * of a wait is counted where sent and where handled, so that a job whose
 * every process waits with nobody left to signal stops, naming the waits.
 */
#include <stdlib.h>

#include "api/compat.h"
#include "sync/stall.h"
#include "tessera.h"
#include "tmk.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

#define NO_COND UINT32_MAX
#define CONDS ((uint32_t)TMK_NLOCKS * TMK_NCONDS)

static struct cond_waiter {
    uint32_t cond;    /* lock * TMK_NCONDS + cond id, or NO_COND */
    uint64_t wake;    /* the waiter's request id for MSG_TMK_COND_WAKE */
    uint64_t since;   /* order of the waits recorded here */
} *waiters;
static uint64_t recorded;

static int manager_of(uint32_t cond) { return (int)(cond / TMK_NCONDS % (uint32_t)cfg.nodes); }

/* The condition of a message, if this node manages it; else rejects it. */
static int wire_cond(int src, const tsr_msg_hdr *h, uint32_t *cond)
{
    if (h->arg[0] >= CONDS || manager_of((uint32_t)h->arg[0]) != cfg.node) {
        am_reject(src, h, "a condition variable out of range or not managed here");
        return -1;
    }
    *cond = (uint32_t)h->arg[0];
    return 0;
}

static void record(int src, const tsr_msg_hdr *h)
{
    uint32_t cond;
    if (wire_cond(src, h, &cond))
        return;
    if (waiters[src].cond != NO_COND || !h->arg[2]) {
        am_reject(src, h, "a second wait from one node, or no request id to wake it with");
        return;
    }
    waiters[src] = (struct cond_waiter){cond, h->arg[2], ++recorded};
    stall_sent();
    am_send(src, MSG_TMK_COND_QUEUED, 0, h->arg[1], 0, NULL, 0);
}

static void on_wait(int src, const tsr_msg_hdr *h, void *payload)
{
    record(src, h);
    stall_got();
}

/* The node that has waited longest on `cond`, or -1. */
static int first_waiter(uint32_t cond)
{
    int first = -1;
    for (int n = 0; n < cfg.nodes; n++)
        if (waiters[n].cond == cond && (first < 0 || waiters[n].since < waiters[first].since))
            first = n;
    return first;
}

static void signal_waiters(int src, const tsr_msg_hdr *h)
{
    uint32_t cond;
    if (wire_cond(src, h, &cond))
        return;
    if (h->arg[1] > 1) {
        am_reject(src, h, "neither a signal (0) nor a broadcast (1)");
        return;
    }
    int n;
    while ((n = first_waiter(cond)) >= 0) {
        stall_sent();
        am_send(n, MSG_TMK_COND_WAKE, 0, waiters[n].wake, 0, NULL, 0);
        waiters[n].cond = NO_COND;
        if (!h->arg[1])
            break;
    }
}

static void on_signal(int src, const tsr_msg_hdr *h, void *payload)
{
    signal_waiters(src, h);
    stall_got();
}

/* MSG_TMK_COND_QUEUED and MSG_TMK_COND_WAKE: replies, counted. */
static void on_reply(int src, const tsr_msg_hdr *h, void *payload)
{
    compat_reply_done(src, h, payload);
    stall_got();
}

void tmk_cond_init(void)
{
    waiters = malloc((size_t)cfg.nodes * sizeof *waiters);
    if (!waiters)
        log_die("out of memory (Tmk_lock_cond_*)");
    for (int n = 0; n < cfg.nodes; n++)
        waiters[n].cond = NO_COND;
    am_register(MSG_TMK_COND_WAIT, on_wait);
    am_register(MSG_TMK_COND_SIGNAL, on_signal);
    am_register(MSG_TMK_COND_QUEUED, on_reply);
    am_register(MSG_TMK_COND_WAKE, on_reply);
}

static uint32_t cond_of(const char *call, unsigned lock_id, unsigned cond_id)
{
    if (!Tmk_nprocs)
        log_die("%s called before Tmk_startup", call);
    if (lock_id >= TMK_NLOCKS || cond_id >= TMK_NCONDS)
        log_die("%s(%u, %u): lock id out of range [0, %d) or condition id out of range [0, %d)",
                call, lock_id, cond_id, TMK_NLOCKS, TMK_NCONDS);
    return lock_id * TMK_NCONDS + cond_id;
}

void Tmk_lock_cond_wait(unsigned lock_id, unsigned cond_id)
{
    uint32_t cond = cond_of("Tmk_lock_cond_wait", lock_id, cond_id);
    int manager = manager_of(cond);
    waiter queued, woken;
    waiter_init(&queued, 1);
    waiter_init(&woken, 1);
    uint64_t q = req_open(manager, MSG_TMK_COND_QUEUED, &queued);
    uint64_t w = req_open(manager, MSG_TMK_COND_WAKE, &woken);
    stall_sent();
    am_send(manager, MSG_TMK_COND_WAIT, cond, q, w, NULL, 0);
    waiter_wait(&queued);
    Tmk_stat.waits++;
    Tmk_lock_release(lock_id);
    stall_wait_msg(&woken, WAIT_TMK_COND, -1);
    Tmk_lock_acquire(lock_id);
}

static void wake(const char *call, unsigned lock_id, unsigned cond_id, int all)
{
    uint32_t cond = cond_of(call, lock_id, cond_id);
    stall_sent();
    am_send(manager_of(cond), MSG_TMK_COND_SIGNAL, cond, (uint64_t)all, 0, NULL, 0);
}

void Tmk_lock_cond_signal(unsigned lock_id, unsigned cond_id)
{
    wake("Tmk_lock_cond_signal", lock_id, cond_id, 0);
    Tmk_stat.signals++;
}

void Tmk_lock_cond_broadcast(unsigned lock_id, unsigned cond_id)
{
    wake("Tmk_lock_cond_broadcast", lock_id, cond_id, 1);
    Tmk_stat.broadcasts++;
}
