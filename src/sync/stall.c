/*
 * stall.c - the stall detector and deadlock finder (stall.h): questions to
 * every node when a wait is long (over the barrier tree, where_tree.c), a
 * report of whom this node waits for, and a stop when the answers show a
 * cycle of waits (deadlock.c).
 */
#include "sync/stall.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "sync/local_wait.h"
#include "sync/sync.h"
#include "sync/where.h"
#include "sync/where_tree.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* This node's whereabouts: written by the application thread, read by the
 * comm thread when asked. Each field is atomic; a report that mixes two
 * moments is still a true enough picture of a stall, and `moves` tells the
 * deadlock finder whether anything changed between two answers. */
static struct {
    _Atomic uint64_t call, kind, arg, attr, entered, moves, sent, got;
    _Atomic int32_t inside, lock, wait, from, thread;
    /* The wait watched now, whose `pending` tells whether it is over: set
     * and cleared under `mu`, so that the comm thread never reads a waiter
     * that has left the application thread's stack. */
    pthread_mutex_t mu;
    waiter *watched;
} here = {.lock = -1, .mu = PTHREAD_MUTEX_INITIALIZER};

const char *const where_wait_name[WAIT_KINDS] = {"", "jia_recv", "jia_wait",
                                                 "Tmk_lock_cond_wait"};

/* The asking side: one question at a time, from the application thread.
 * `gen` tells this question's answers from a timed-out one's; `prev` is
 * the previous round's answers in this wait, `cycle` the deadlock finder's. */
static struct {
    waiter w;
    /* `open`: the round whose answers `rec` takes, 0 once its wait ended;
     * both, and `rec` while a round is open, change under `mu`, since the
     * comm thread writes answers while the asking thread begins a round. */
    pthread_mutex_t mu;
    uint64_t gen, open;
    where_rec *rec, *prev;
    int *cycle;
} ask = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A node whose comm thread is stuck does not answer: a round waits this
 * long for each level of the barrier tree its question passes. */
#define ANSWER_WAIT_S 1.0
#define DETAILED 4        /* nodes described in full in one report */
/* A wait this long is looked at for a deadlock, and again after twice as
 * long each time. A look asks every node, so while N nodes wait the looks
 * cost N(N-1) messages a round: the first comes DEADLOCK_CHECK_S later for
 * each CHECK_NODES nodes, and each round doubles the next wait, so that a
 * slow start-up of 512 nodes on two cores (seconds in tsr_init's barrier)
 * does not drown in questions (262,000 a second at 1 s), while a deadlock
 * among a few nodes is still found within seconds. */
#define DEADLOCK_CHECK_S 1.0
#define CHECK_NODES 64

void stall_moved(void) { atomic_fetch_add(&here.moves, 1); }
void stall_sent(void) { atomic_fetch_add(&here.sent, 1); }
void stall_got(void) { atomic_fetch_add(&here.got, 1); }

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
    r->wait = atomic_load(&here.wait);
    r->from = atomic_load(&here.from);
    r->thread = atomic_load(&here.thread);
    pthread_mutex_lock(&here.mu);
    r->blocked = here.watched && atomic_load(&here.watched->pending);
    pthread_mutex_unlock(&here.mu);
    r->sent = atomic_load(&here.sent);
    r->got = atomic_load(&here.got);
    r->moves = atomic_load(&here.moves);
}

/* A batch of answers to the question now asked, each node's once: a late
 * batch, or a repeated node, changes nothing. */
static void take_batch(uint64_t gen, const where_entry *e, uint32_t n)
{
    pthread_mutex_lock(&ask.mu);
    if (ask.open && gen == ask.open) {
        for (uint32_t i = 0; i < n; i++)
            if (!ask.rec[e[i].node].answered)
                ask.rec[e[i].node] = e[i].rec;
        waiter_done(&ask.w); /* this round's: the next begins under mu */
    }
    pthread_mutex_unlock(&ask.mu);
}

STATS_COUNTER(stall_rounds, "rounds of questions to every other node, over the barrier tree, "
                             "about a long wait (stall report, deadlock finder)");

void stall_init(void)
{
    stats_register(&stall_rounds);
    size_t n = (size_t)cfg.nodes;
    ask.rec = calloc(n, sizeof *ask.rec);
    ask.prev = calloc(n, sizeof *ask.prev);
    ask.cycle = calloc(n, sizeof *ask.cycle);
    if (!ask.rec || !ask.prev || !ask.cycle)
        log_die("out of memory (stall detector)");
    where_tree_init(where_now, take_batch);
}

/* Asks every other node where it is, over the barrier tree (where_tree.h);
 * fills ask.rec (answered = 0: silent). */
static void ask_everyone(int lock)
{
    COUNTER_ADD(stall_rounds, 1);
    pthread_mutex_lock(&ask.mu);
    uint64_t gen = ask.open = ++ask.gen;
    memset(ask.rec, 0, (size_t)cfg.nodes * sizeof *ask.rec);
    waiter_init(&ask.w, (uint32_t)where_tree_neighbours()); /* a batch from each */
    pthread_mutex_unlock(&ask.mu);
    where_tree_ask(gen, lock);
    waiter_wait_until(&ask.w, now_s() + ANSWER_WAIT_S * where_tree_levels());
    pthread_mutex_lock(&ask.mu);
    ask.open = 0;
    pthread_mutex_unlock(&ask.mu);
}

/* " node 2 (last entered call #5 tsr_alloc(4096), returned from it)" */
static int describe_node(char *buf, size_t len, int j)
{
    const where_rec *r = &ask.rec[j];
    if (!r->answered)
        return snprintf(buf, len, " node %d (does not answer)", j);
    char call[96], lock[64] = "";
    if (r->lock >= 0)
        snprintf(lock, sizeof lock, "; waiting for lock %d", r->lock);
    else if (r->wait)
        snprintf(lock, sizeof lock, "; waiting in %s", where_wait_name[r->wait]);
    return snprintf(buf, len, " node %d (last entered call #%llu %s, %s%s)", j,
                    (unsigned long long)r->call, coll_describe(&r->sig, call, sizeof call),
                    r->inside ? "still in it" : "returned from it", lock);
}

/* Whom this node waits for: in a collective, the nodes not in the same
 * call; for a lock, its holders; for a message, its sender. */
static int waited_for(int j, int lock)
{
    const where_rec *r = &ask.rec[j];
    if (lock >= 0)
        return r->holds;
    if (atomic_load(&here.wait)) {
        int from = atomic_load(&here.from);
        return from < 0 || from == j;
    }
    return !r->answered || !r->inside || r->call != atomic_load(&here.call);
}

static void describe_stall(char *buf, size_t len, int lock, double seconds)
{
    char call[96];
    coll_sig sig = {atomic_load(&here.kind), atomic_load(&here.arg), atomic_load(&here.attr)};
    char thread[32] = ""; /* named when a program runs threads: 0 is the tsr_init one */
    if (atomic_load(&here.thread))
        snprintf(thread, sizeof thread, " at thread %d", (int)atomic_load(&here.thread));
    size_t n;
    if (lock >= 0)
        n = (size_t)snprintf(buf, len, "stalled %.0f s in tsr_lock(%d)%s; held by", seconds, lock,
                             thread);
    else if (atomic_load(&here.wait))
        n = (size_t)snprintf(buf, len, "stalled %.0f s in %s%s; waiting for", seconds,
                             where_wait_name[atomic_load(&here.wait)], thread);
    else
        n = (size_t)snprintf(buf, len, "stalled %.0f s in call #%llu %s%s; waiting for", seconds,
                             (unsigned long long)atomic_load(&here.call),
                             coll_describe(&sig, call, sizeof call), thread);
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

/* Whether no message that can end a message wait was on its way at some
 * moment between the previous round and this one: every node answered
 * both with the same counts, so each held them all that time, and the
 * sums of sent and received ones are equal. */
static int messages_settled(void)
{
    uint64_t sent = 0, got = 0;
    for (int j = 0; j < cfg.nodes; j++) {
        const where_rec *r = &ask.rec[j], *was = &ask.prev[j];
        if (!r->answered || !was->answered || r->sent != was->sent || r->got != was->got)
            return 0;
        sent += r->sent;
        got += r->got;
    }
    return sent == got;
}

/* After a round of questions: whether the answers, this node's own added,
 * show a cycle whose every node gave the previous round the same `moves`
 * (deadlock.c tells why that is a deadlock) and, if a node of it waits for
 * a message, none on its way; if so, the report names it. */
static int deadlocked(int lock, char *report, size_t len)
{
    where_now(&ask.rec[cfg.node], lock);
    int k = deadlock_find(ask.rec, cfg.nodes, cfg.node, ask.cycle);
    int still = k > 0, messages = 0;
    for (int i = 0; i < k; i++) {
        const where_rec *was = &ask.prev[ask.cycle[i]];
        still &= was->answered && was->moves == ask.rec[ask.cycle[i]].moves;
        messages |= ask.rec[ask.cycle[i]].wait != WAIT_NONE;
    }
    if (still && messages)
        still = messages_settled();
    if (still)
        deadlock_describe(report, len, ask.rec, ask.cycle, k);
    memcpy(ask.prev, ask.rec, (size_t)cfg.nodes * sizeof *ask.prev);
    return still;
}

/* In a collective call of a job wider than CHECK_NODES, node 0 alone asks
 * and warns: every waiting node asking every other at TSR_STALL_WARN was
 * an N(N-1) burst (a slow start-up's 512 nodes asked 261,000 questions at
 * 10 s, and over udp none was answered in time). Its report names the
 * nodes not in the call as well; and a deadlock through a collective
 * call holds a lock wait, whose node still looks for it. */
static int quiet(int lock, int what)
{
    return lock < 0 && what == WAIT_NONE && cfg.nodes > CHECK_NODES && cfg.node != 0;
}

/* One waiting thread of the node at a time asks and reports (the asking
 * side above is one question at a time); another thread's wait then goes
 * unwatched. */
static pthread_mutex_t asking = PTHREAD_MUTEX_INITIALIZER;

static void watched(waiter *w)
{
    pthread_mutex_lock(&here.mu);
    here.watched = w;
    pthread_mutex_unlock(&here.mu);
}

static void watch(waiter *w, int lock, int what, int from)
{
    if (!atomic_load(&w->pending)) /* answered before the wait: nothing to watch */
        return;
    if (pthread_mutex_trylock(&asking)) {
        waiter_wait(w);
        return;
    }
    atomic_store(&here.lock, lock);
    atomic_store(&here.wait, what);
    atomic_store(&here.from, from);
    atomic_store(&here.thread, lw_self());
    watched(w);
    stall_moved();
    memset(ask.prev, 0, (size_t)cfg.nodes * sizeof *ask.prev);
    double t0 = now_s();
    double warn_at = cfg.stall_warn_s && !quiet(lock, what) ? t0 + cfg.stall_warn_s : INFINITY;
    double abort_at = cfg.stall_abort_s ? t0 + cfg.stall_abort_s : INFINITY;
    double check_s = DEADLOCK_CHECK_S * (1 + (cfg.nodes - 1) / CHECK_NODES);
    double check_at = quiet(lock, what) ? INFINITY : t0 + check_s;
    while (waiter_wait_until(w, fmin(check_at, fmin(warn_at, abort_at)))) {
        char report[1000];
        ask_everyone(lock);
        if (!atomic_load(&w->pending))
            break;
        if (deadlocked(lock, report, sizeof report))
            am_abort(report);
        double t = now_s();
        check_s *= 2;
        check_at = t + check_s;
        if (t < fmin(warn_at, abort_at))
            continue;
        describe_stall(report, sizeof report, lock, t - t0);
        if (t >= abort_at)
            am_abort(report);
        log_warn("%s", report);
        warn_at += cfg.stall_warn_s;
    }
    watched(NULL);
    atomic_store(&here.lock, -1);
    atomic_store(&here.wait, WAIT_NONE);
    stall_moved();
    pthread_mutex_unlock(&asking);
}

void stall_wait(waiter *w, int lock) { watch(w, lock, WAIT_NONE, -1); }

void stall_wait_msg(waiter *w, int what, int from) { watch(w, -1, what, from); }
