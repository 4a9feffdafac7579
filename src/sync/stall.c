#include "sync/stall.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* Where a node is, as it answers MSG_WHERE_ASK (the payload of MSG_WHERE). */
typedef struct where_rec {
    uint64_t call;  /* the last collective call entered */
    coll_sig sig;   /* its signature */
    int32_t inside; /* still in it */
    int32_t lock;   /* the lock it waits for, or -1 */
    int32_t holds;  /* holds the lock it was asked about */
    int32_t answered;
} where_rec;

/* This node's whereabouts: written by the application thread, read by the
 * comm thread when asked. Each field is atomic; a report that mixes two
 * moments is still a true enough picture of a stall. */
static struct {
    _Atomic uint64_t call, kind, arg, attr;
    _Atomic int32_t inside, lock;
} here = {.lock = -1};

/* The asking side: one question at a time, from the application thread.
 * `gen` tells this question's answers from a timed-out one's. */
static struct {
    waiter w;
    _Atomic uint64_t gen;
    where_rec *rec;
} ask;

#define ANSWER_WAIT_S 1.0 /* a node whose comm thread is stuck does not answer */
#define DETAILED 4        /* nodes described in full in one report */

void stall_enter(uint64_t call, const coll_sig *sig)
{
    atomic_store(&here.call, call);
    atomic_store(&here.kind, sig->kind);
    atomic_store(&here.arg, sig->arg);
    atomic_store(&here.attr, sig->attr);
    atomic_store(&here.inside, 1);
}

void stall_leave(void) { atomic_store(&here.inside, 0); }

static void on_where_ask(int src, const tsr_msg_hdr *h, void *payload)
{
    int lock = (int)(int64_t)h->arg[1];
    where_rec r = {atomic_load(&here.call),
                   {atomic_load(&here.kind), atomic_load(&here.arg), atomic_load(&here.attr)},
                   atomic_load(&here.inside), atomic_load(&here.lock),
                   lock >= 0 && lock < TSR_MAX_LOCKS && lock_held_here(lock), 1};
    am_send(src, MSG_WHERE, h->arg[0], 0, 0, &r, sizeof r);
}

static void on_where(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[0] != atomic_load(&ask.gen) || h->len != sizeof(where_rec))
        return;
    memcpy(&ask.rec[src], payload, sizeof(where_rec));
    waiter_done(&ask.w);
}

void stall_init(void)
{
    ask.rec = calloc((size_t)cfg.nodes, sizeof *ask.rec);
    if (!ask.rec)
        log_die("out of memory (stall detector)");
    am_register(MSG_WHERE_ASK, on_where_ask);
    am_register(MSG_WHERE, on_where);
}

/* Asks every other node where it is; fills ask.rec (answered = 0: silent). */
static void ask_everyone(int lock)
{
    uint64_t gen = atomic_fetch_add(&ask.gen, 1) + 1;
    memset(ask.rec, 0, (size_t)cfg.nodes * sizeof *ask.rec);
    waiter_init(&ask.w, (uint32_t)cfg.nodes - 1);
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node)
            am_send(j, MSG_WHERE_ASK, gen, (uint64_t)(int64_t)lock, 0, NULL, 0);
    waiter_wait_until(&ask.w, now_s() + ANSWER_WAIT_S);
}

/* " node 2 (last entered call #5 tsr_alloc(4096), returned from it)" */
static int describe_node(char *buf, size_t len, int j)
{
    const where_rec *r = &ask.rec[j];
    if (!r->answered)
        return snprintf(buf, len, " node %d (does not answer)", j);
    char call[96], lock[40] = "";
    if (r->lock >= 0)
        snprintf(lock, sizeof lock, "; waiting for lock %d", r->lock);
    return snprintf(buf, len, " node %d (last entered call #%llu %s, %s%s)", j,
                    (unsigned long long)r->call, coll_describe(&r->sig, call, sizeof call),
                    r->inside ? "still in it" : "returned from it", lock);
}

/* Whom this node waits for: in a collective, the nodes not in the same
 * call; for a lock, its holders. */
static int waited_for(int j, int lock)
{
    const where_rec *r = &ask.rec[j];
    if (lock >= 0)
        return r->holds;
    return !r->answered || !r->inside || r->call != atomic_load(&here.call);
}

static void describe_stall(char *buf, size_t len, int lock, double seconds)
{
    char call[96];
    coll_sig sig = {atomic_load(&here.kind), atomic_load(&here.arg), atomic_load(&here.attr)};
    size_t n;
    if (lock >= 0)
        n = (size_t)snprintf(buf, len, "stalled %.0f s in tsr_lock(%d); held by", seconds, lock);
    else
        n = (size_t)snprintf(buf, len, "stalled %.0f s in call #%llu %s; waiting for", seconds,
                             (unsigned long long)atomic_load(&here.call),
                             coll_describe(&sig, call, sizeof call));
    int named = 0;
    for (int j = 0; j < cfg.nodes && n < len; j++) {
        if (j == cfg.node || !waited_for(j, lock))
            continue;
        if (named++ < DETAILED)
            n += (size_t)describe_node(buf + n, len - n, j);
    }
    if (n < len && named > DETAILED)
        n += (size_t)snprintf(buf + n, len - n, " and %d more nodes", named - DETAILED);
    if (n < len && !named)
        snprintf(buf + n, len - n, " no node that says so (a message may be on its way)");
}

void stall_wait(waiter *w, int lock)
{
    if (!cfg.stall_warn_s && !cfg.stall_abort_s) {
        waiter_wait(w);
        return;
    }
    atomic_store(&here.lock, lock);
    double t0 = now_s();
    double warn_at = cfg.stall_warn_s ? t0 + cfg.stall_warn_s : INFINITY;
    double abort_at = cfg.stall_abort_s ? t0 + cfg.stall_abort_s : INFINITY;
    while (waiter_wait_until(w, fmin(warn_at, abort_at))) {
        char report[480];
        ask_everyone(lock);
        if (!atomic_load(&w->pending))
            break;
        describe_stall(report, sizeof report, lock, now_s() - t0);
        if (now_s() >= abort_at)
            am_abort(report);
        log_warn("%s", report);
        warn_at += cfg.stall_warn_s;
    }
    atomic_store(&here.lock, -1);
}
