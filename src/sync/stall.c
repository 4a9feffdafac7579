/*
 * stall.c - the stall detector and deadlock finder (stall.h): questions to
 * every node when a wait is long, a report of whom this node waits for, and
 * a stop when the answers show a cycle of waits (deadlock.c).
 */
#include "sync/stall.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"
#include "sync/where.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* This node's whereabouts: written by the application thread, read by the
 * comm thread when asked. Each field is atomic; a report that mixes two
 * moments is still a true enough picture of a stall, and `moves` tells the
 * deadlock finder whether anything changed between two answers. */
static struct {
    _Atomic uint64_t call, kind, arg, attr, entered, moves;
    _Atomic int32_t inside, lock;
} here = {.lock = -1};

/* The asking side: one question at a time, from the application thread.
 * `gen` tells this question's answers from a timed-out one's; `prev` is
 * the previous round's answers in this wait, `cycle` the deadlock finder's. */
static struct {
    waiter w;
    _Atomic uint64_t gen;
    where_rec *rec, *prev;
    int *cycle;
} ask;

#define ANSWER_WAIT_S 1.0 /* a node whose comm thread is stuck does not answer */
#define DETAILED 4        /* nodes described in full in one report */
/* A wait this long is looked at for a deadlock, and again each as long. */
#define DEADLOCK_CHECK_S 1.0

void stall_moved(void) { atomic_fetch_add(&here.moves, 1); }

void stall_enter(uint64_t call, const coll_sig *sig)
{
    atomic_store(&here.call, call);
    atomic_store(&here.kind, sig->kind);
    atomic_store(&here.arg, sig->arg);
    atomic_store(&here.attr, sig->attr);
    atomic_fetch_add(&here.entered, 1);
    atomic_store(&here.inside, 1);
    stall_moved();
}

void stall_leave(void)
{
    atomic_store(&here.inside, 0);
    stall_moved();
}

/* This node's record; `asked`: the lock it is asked about, or -1. `moves`
 * is read last, and every change is made before it counts up: a record
 * whose count two answers share shows the state between them. */
static void where_now(where_rec *r, int asked)
{
    memset(r, 0, sizeof *r);
    r->call = atomic_load(&here.call);
    r->sig = (coll_sig){atomic_load(&here.kind), atomic_load(&here.arg), atomic_load(&here.attr)};
    r->inside = atomic_load(&here.inside);
    r->lock = atomic_load(&here.lock);
    r->holds = asked >= 0 && lock_held_here(asked);
    r->answered = 1;
    r->entered = atomic_load(&here.entered);
    r->nheld = lock_held_list(r->held, WHERE_HELD_MAX);
    r->moves = atomic_load(&here.moves);
}

/* The lock asked about is a slot or -1 (ARG_LOCK_OR_NONE). */
static void on_where_ask(int src, const tsr_msg_hdr *h, void *payload)
{
    where_rec r;
    where_now(&r, (int)(int64_t)h->arg[1]);
    am_send(src, MSG_WHERE, h->arg[0], 0, 0, &r, sizeof r);
}

/* An answer to the question now asked, once per node: a late, repeated or
 * unasked one changes nothing. */
static void on_where(int src, const tsr_msg_hdr *h, void *payload)
{
    uint64_t gen = atomic_load(&ask.gen);
    if (h->arg[0] && h->arg[0] < gen)
        return; /* an answer that came after its round gave up waiting */
    if (h->arg[0] != gen || h->len != sizeof(where_rec) || ask.rec[src].answered ||
        !((const where_rec *)payload)->answered) {
        am_reject(src, h, "not one answer to the question asked");
        return;
    }
    memcpy(&ask.rec[src], payload, sizeof(where_rec));
    waiter_done(&ask.w);
}

void stall_init(void)
{
    size_t n = (size_t)cfg.nodes;
    ask.rec = calloc(n, sizeof *ask.rec);
    ask.prev = calloc(n, sizeof *ask.prev);
    ask.cycle = calloc(n, sizeof *ask.cycle);
    if (!ask.rec || !ask.prev || !ask.cycle)
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

/* After a round of questions: whether the answers, this node's own added,
 * show a cycle whose every node gave the previous round the same `moves`
 * (deadlock.c tells why that is a deadlock); if so, the report names it. */
static int deadlocked(int lock, char *report, size_t len)
{
    where_now(&ask.rec[cfg.node], lock);
    int k = deadlock_find(ask.rec, cfg.nodes, cfg.node, ask.cycle);
    int still = k > 0;
    for (int i = 0; i < k; i++) {
        const where_rec *was = &ask.prev[ask.cycle[i]];
        still &= was->answered && was->moves == ask.rec[ask.cycle[i]].moves;
    }
    if (still)
        deadlock_describe(report, len, ask.rec, ask.cycle, k);
    memcpy(ask.prev, ask.rec, (size_t)cfg.nodes * sizeof *ask.prev);
    return still;
}

/* One waiting thread of the node at a time asks and reports (the asking
 * side above is one question at a time); another thread's wait then goes
 * unwatched. */
static pthread_mutex_t asking = PTHREAD_MUTEX_INITIALIZER;

void stall_wait(waiter *w, int lock)
{
    if (pthread_mutex_trylock(&asking)) {
        waiter_wait(w);
        return;
    }
    atomic_store(&here.lock, lock);
    stall_moved();
    memset(ask.prev, 0, (size_t)cfg.nodes * sizeof *ask.prev);
    double t0 = now_s();
    double warn_at = cfg.stall_warn_s ? t0 + cfg.stall_warn_s : INFINITY;
    double abort_at = cfg.stall_abort_s ? t0 + cfg.stall_abort_s : INFINITY;
    double check_at = t0 + DEADLOCK_CHECK_S;
    while (waiter_wait_until(w, fmin(check_at, fmin(warn_at, abort_at)))) {
        char report[1000];
        ask_everyone(lock);
        if (!atomic_load(&w->pending))
            break;
        if (deadlocked(lock, report, sizeof report))
            am_abort(report);
        double t = now_s();
        check_at = t + DEADLOCK_CHECK_S;
        if (t < fmin(warn_at, abort_at))
            continue;
        describe_stall(report, sizeof report, lock, t - t0);
        if (t >= abort_at)
            am_abort(report);
        log_warn("%s", report);
        warn_at += cfg.stall_warn_s;
    }
    atomic_store(&here.lock, -1);
    stall_moved();
    pthread_mutex_unlock(&asking);
}
