/*
 * lock.c - locks with TreadMarks' hand-off: the manager (id mod N) keeps
 * only the end of the queue; the releaser grants the next holder directly.
 *
 * A request goes to the manager. If the lock is free, the manager grants it
 * (its grant built from what releases left there). Otherwise it forwards
 * the request to the last node that asked (MSG_LOCK_FWD), which remembers
 * it as its successor and, at its release, sends the grant straight to it:
 * a contended hand-off is one message on the critical path, not a release
 * to the manager and a grant from there. A release with no successor goes
 * to the manager (MSG_LOCK_REL), which then holds the lock free.
 *
 * A forward can reach a node that has already released to the manager (the
 * two crossed): the forward names the request cycle it was meant for, and
 * one that finds that cycle over goes back (MSG_LOCK_BOUNCE); the manager,
 * which by then has merged the release, grants from there.
 *
 * A try (tsr_trylock, MSG_LOCK_TRY) asks the manager the same way but
 * never queues: the manager grants a lock free there and refuses a held
 * one (MSG_LOCK_REFUSED), which leaves no trace in the queue, so nothing
 * is forwarded for a refused cycle.
 *
 * TSR_LOCK_HANDOFF=manager turns the direct hand-off off, to measure it
 * (bench/tsr_micro): the manager then queues the requests for a held lock
 * itself, every release goes to it, and it grants the next in line, as
 * before TreadMarks' hand-off: two messages on the critical path.
 *
 * This file is the nodes' half: requests, successors, grants and the
 * public calls; the manager's half, which also refuses duplicate and
 * forged requests, releases and bounces, is lock_manager.c.
 *
 * What requests, grants and releases carry is the protocols' (payload.h).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/payload.h"
#include "coherence/protocol.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "sync/gather.h"
#include "sync/lock_manager.h"
#include "sync/stall.h"
#include "sync/sync.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* Node state of one lock: its request cycle (one per tsr_lock), whether the
 * cycle is still on (asked or held, not released), and its successor.
 * Shared with the comm thread (forwards) under node_mutex. */
typedef struct lock_node {
    uint32_t cycle;
    int on;
    successor next;
} lock_node;

static lock_node *mine;
static pthread_mutex_t node_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Read by the comm thread too, answering where-questions (stall.c). */
static _Atomic unsigned char held_here[COH_LOCK_SLOTS];
static _Atomic int nheld; /* locks this node holds */
/* Releases sent to each manager since the last barrier. A release has no
 * reply, so the barrier counts them (lock_count_releases): a manager
 * leaves the barrier only once it has every release of the epoch, which
 * also makes the statistics taken after tsr_finalize's barrier balance.
 * Forwards, bounces and direct grants need no count: the acquirer waits
 * for the grant that each of them leads to. */
static uint32_t *releases_sent;

/* The grant each lock's acquirer waits for: several threads of this node
 * may each wait for a lock of its own (one per lock: cohort.c lets one
 * thread at a time ask for a lock). `waiting` (WANT_*) is set before the
 * request goes and taken back by the grant, or the refusal of a try, that
 * ends the wait. */
enum { WANT_NONE, WANT_LOCK, WANT_TRY };
typedef struct lock_grant {
    waiter w;
    void *payload;
    size_t len;
    int refused;
    _Atomic int waiting;
} lock_grant;
static lock_grant *grants;
STATS_COUNTER(lock_tries_refused, "tsr_trylock calls the lock's manager refused (lock held)");

void lock_own(const char *why, int id)
{
    if (why)
        log_die_status(1, "lock %d: this node broke its own protocol: %s", id, why);
}

void lock_judge(int src, const tsr_msg_hdr *h, const char *why)
{
    if (why)
        am_reject(src, h, "%s", why);
}

_Static_assert(TSR_MAX_LOCKS == MSG_PROGRAM_LOCKS && TSR_MAX_FLAGS == MSG_FLAGS,
               "lock ids on the wire");
_Static_assert(TSR_MAX_LOCKS == TRACE_LOCKS, "every program lock's holds traced");

/* A pause flag's lock lies apart from the program's on the wire, whose
 * range the message rules keep. */
uint64_t lock_wire_id(int slot)
{
    return slot < TSR_MAX_LOCKS ? (uint64_t)slot
                                : MSG_FLAG_LOCKS + (uint64_t)(slot - TSR_MAX_LOCKS);
}

/* The table checked that the id is a program's lock or a flag's. */
int lock_slot(const tsr_msg_hdr *h)
{
    uint64_t id = h->arg[0];
    return (int)(id < TSR_MAX_LOCKS ? id : id - MSG_FLAG_LOCKS + TSR_MAX_LOCKS);
}

void *lock_copy(const void *p, size_t len)
{
    void *c = malloc(len + 1);
    if (!c)
        log_die_status(1, "out of memory (lock grant)");
    memcpy(c, p, len);
    return c;
}

/* Takes the grant of lock id that this node waits for: NULL, or why this
 * node cannot take one now. */
static const char *take_grant(int id)
{
    int want = atomic_load(&grants[id].waiting);
    return want != WANT_NONE && atomic_compare_exchange_strong(&grants[id].waiting, &want, 0)
               ? NULL
               : "a grant of a lock this node does not wait for";
}

/* Takes the refusal of this node's try of lock id in request cycle
 * `cycle`: NULL, or why this node cannot take one now. */
static const char *take_refusal(int id, uint32_t cycle)
{
    pthread_mutex_lock(&node_mutex);
    int now = mine[id].on && mine[id].cycle == cycle;
    pthread_mutex_unlock(&node_mutex);
    int want = WANT_TRY;
    if (!now)
        return "a refusal for a request cycle this node is not in";
    return atomic_compare_exchange_strong(&grants[id].waiting, &want, 0)
               ? NULL
               : "a refusal of a lock this node does not try";
}

static void deliver_refusal(int id)
{
    grants[id].refused = 1;
    waiter_done(&grants[id].w);
}

static void deliver_grant(int id, const void *payload, size_t len)
{
    grants[id].payload = lock_copy(payload, len);
    grants[id].len = len;
    waiter_done(&grants[id].w);
}

void lock_send_grant(int id, int node, const pbuf *out)
{
    if (node == cfg.node) {
        lock_own(take_grant(id), id);
        deliver_grant(id, out->p, out->len);
    } else {
        am_send(node, MSG_LOCK_GRANT, lock_wire_id(id), 0, 0, out->p, out->len);
    }
}

void lock_send_refusal(int id, int node, uint32_t cycle)
{
    if (node == cfg.node) {
        lock_own(take_refusal(id, cycle), id);
        deliver_refusal(id);
    } else {
        am_send(node, MSG_LOCK_REFUSED, lock_wire_id(id), cycle, 0, NULL, 0);
    }
}

/* ---- Forwards and bounces -------------------------------------------------- */

/* Sends a forwarded request back to the manager, whose grant it awaits. */
static void bounce(int id, int node, const void *req, size_t rlen)
{
    if (lock_manager_of(id) == cfg.node)
        lock_own(lock_mgr_bounced(id, cfg.node, node, req, rlen), id);
    else
        am_send(lock_manager_of(id), MSG_LOCK_BOUNCE, lock_wire_id(id), (uint64_t)node, 0, req,
                rlen);
}

/* A request of `node` (a node of the job: ARG_NODE) forwarded to this node
 * for its cycle `cycle` of lock id: kept as the successor if that cycle is
 * on, else sent back. */
const char *lock_forwarded(int id, int node, uint32_t cycle, const void *req, size_t rlen)
{
    if (node == cfg.node)
        return "a forward of this node's own request";
    if (coh_lock_request_check(req, rlen))
        return "a malformed request";
    const char *why = NULL;
    pthread_mutex_lock(&node_mutex);
    lock_node *l = &mine[id];
    int now = l->on && l->cycle == cycle;
    if ((int32_t)(cycle - l->cycle) > 0)
        why = "a forward for a cycle this node has not begun";
    else if (now && l->next.node >= 0)
        why = "a second successor in one cycle";
    else if (now)
        l->next = (successor){node, lock_copy(req, rlen), rlen, NULL};
    pthread_mutex_unlock(&node_mutex);
    if (!why && !now)
        bounce(id, node, req, rlen);
    return why;
}

/* ---- Handlers -------------------------------------------------------------- */

static void on_lock_fwd(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = lock_slot(h);
    if (src != lock_manager_of(id))
        lock_judge(src, h, "a forward not from the lock's manager");
    else
        lock_judge(src, h,
                   lock_forwarded(id, (int)h->arg[1], (uint32_t)h->arg[2], payload, h->len));
}

static void on_lock_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why =
        coh_payload_check(PL_GRANT, lock_slot(h), payload, h->len) ? "a malformed grant" : NULL;
    if (!why)
        why = take_grant(lock_slot(h));
    lock_judge(src, h, why);
    if (!why)
        deliver_grant(lock_slot(h), payload, h->len);
}

static void on_lock_refused(int src, const tsr_msg_hdr *h, void *payload)
{
    (void)payload;
    int id = lock_slot(h);
    const char *why = src != lock_manager_of(id) ? "a refusal not from the lock's manager"
                                                 : take_refusal(id, (uint32_t)h->arg[1]);
    lock_judge(src, h, why);
    if (!why)
        deliver_refusal(id);
}

/* A peek's wait (lock_peek): the request id names it. */
typedef struct peek_wait {
    waiter w;
    int lock;
} peek_wait;

static void on_lock_data(int src, const tsr_msg_hdr *h, void *payload)
{
    peek_wait *pw = req_ctx(h->arg[1]);
    if (pw->lock != lock_slot(h)) {
        lock_judge(src, h, "the data of another lock than the one asked for");
        return;
    }
    if (coh_lock_peeked(pw->lock, payload, h->len)) {
        lock_judge(src, h, "malformed lock data");
        return;
    }
    req_close(h->arg[1]);
    waiter_done(&pw->w);
}

void lock_peek(int id)
{
    peek_wait pw = {.lock = id};
    am_msg m;
    int to = lock_manager_of(id);
    waiter_init(&pw.w, 1);
    am_post(to, &m, MSG_LOCK_PEEK, lock_wire_id(id), req_open(to, MSG_LOCK_DATA, &pw), 0, NULL,
            0);
    waiter_wait(&pw.w);
}

void lock_init(void)
{
    mine = calloc(COH_LOCK_SLOTS, sizeof *mine);
    releases_sent = calloc((size_t)cfg.nodes, sizeof *releases_sent);
    grants = calloc(COH_LOCK_SLOTS, sizeof *grants);
    if (!mine || !releases_sent || !grants)
        log_die("out of memory (lock table)");
    for (int id = 0; id < COH_LOCK_SLOTS; id++)
        mine[id].next.node = -1;
    lock_manager_init();
    cohort_init();
    coh_lend_sync(&(coh_sync_ops){tsr_barrier, lock_peek, gather_flush});
    am_register(MSG_LOCK_FWD, on_lock_fwd);
    am_register(MSG_LOCK_GRANT, on_lock_grant);
    am_register(MSG_LOCK_DATA, on_lock_data);
    am_register(MSG_LOCK_REFUSED, on_lock_refused);
    stats_register(&lock_tries_refused);
}

int lock_held_here(int id) { return held_here[id]; }

int lock_successor(int id)
{
    pthread_mutex_lock(&node_mutex);
    int node = mine[id].on ? mine[id].next.node : -1;
    pthread_mutex_unlock(&node_mutex);
    return node;
}

int lock_held_count(void) { return atomic_load(&nheld); }

int lock_held_list(int32_t *out, int max)
{
    int n = 0;
    for (int id = 0; id < COH_LOCK_SLOTS; id++)
        if (held_here[id] && n++ < max)
            out[n - 1] = id;
    return n;
}

void lock_count_releases(uint32_t *sent)
{
    for (int j = 0; j < cfg.nodes; j++)
        sent[j] += releases_sent[j];
    memset(releases_sent, 0, (size_t)cfg.nodes * sizeof *releases_sent);
}

/* Asks lock id's manager for the lock (want: WANT_LOCK, or WANT_TRY,
 * which the manager may refuse), and waits for its answer. The protocols'
 * calls go under the node's protocol lock (coh_enter), never a wait for
 * the answer: another thread of this node may hold the lock asked for and
 * need the protocol lock to release it. */
static void ask(int id, int want)
{
    lock_grant *g = &grants[id];
    coh_enter();
    if (!atomic_load(&nheld))
        coh_sync_point(0);
    am_wait_room();
    int m = lock_manager_of(id);
    waiter_init(&g->w, 1);
    g->refused = 0;
    atomic_store(&g->waiting, want); /* before any answer can come */
    pthread_mutex_lock(&node_mutex);
    uint32_t cycle = ++mine[id].cycle;
    mine[id].on = 1;
    pthread_mutex_unlock(&node_mutex);
    pbuf req = {0};
    coh_lock_request(id, &req);
    coh_leave();
    if (m == cfg.node) {
        lock_own(want == WANT_TRY ? lock_mgr_try(id, cfg.node, cycle, req.p, req.len)
                                  : lock_mgr_acquire(id, cfg.node, cycle, req.p, req.len), id);
    } else {
        am_send(m, want == WANT_TRY ? MSG_LOCK_TRY : MSG_LOCK_ACQ, lock_wire_id(id), cycle, 0,
                req.p, req.len);
    }
    pbuf_free(&req);
    stall_wait(&g->w, id);
}

/* The grant came: the node holds the lock once its protocols applied it. */
static void taken(int id, double t0, uint64_t traced)
{
    lock_grant *g = &grants[id];
    held_here[id] = 1;
    atomic_fetch_add(&nheld, 1);
    stall_moved();
    coh_enter();
    int refused = coh_lock_acquire(id, g->payload, g->len);
    coh_leave();
    lock_own(refused ? "its protocols refused a checked grant" : NULL, id);
    free(g->payload);
    sync_acquired();
    STAT_ADD(lock_acquires, 1);
    if (lock_manager_of(id) != cfg.node)
        STAT_ADD(remote_lock_acquires, 1);
    STAT_TIME(lock_wait_s, now_s() - t0);
    TRACE_SPAN(traced, EV_LOCK_WAIT, 0, (uint32_t)id, 0);
    trace_hold(id, 1);
}

static void check_not_held(const char *fn, int id)
{
    if (held_here[id])
        log_die("%s(%d): this node already holds the lock (locks are not recursive)", fn, id);
}

void lock_acquire(int id)
{
    check_not_held("tsr_lock", id);
    double t0 = now_s();
    uint64_t traced = trace_begin();
    ask(id, WANT_LOCK);
    taken(id, t0, traced);
}

/* A refused try ends its cycle here: nothing was forwarded for it (the
 * manager made no successor of it). Its request's protocol side (scope
 * consistency notes the lock being opened) is redone by the next request
 * of the lock before it matters. */
int lock_try(int id)
{
    check_not_held("tsr_trylock", id);
    double t0 = now_s();
    uint64_t traced = trace_begin();
    ask(id, WANT_TRY);
    if (!grants[id].refused) {
        taken(id, t0, traced);
        return 1;
    }
    pthread_mutex_lock(&node_mutex);
    mine[id].on = 0;
    pthread_mutex_unlock(&node_mutex);
    COUNTER_ADD(lock_tries_refused, 1);
    return 0;
}

/* With a successor, the grant goes straight to it; else the release goes
 * to the manager. The cycle ends, and the release is sent, under
 * node_mutex: a forward that then finds the cycle over bounces behind the
 * release, on the same connection, so the manager merges it first. */
void lock_release(int id)
{
    if (!held_here[id])
        log_die("tsr_unlock(%d): this node does not hold the lock", id);
    trace_hold(id, 0);
    sync_releasing();
    coh_enter();
    am_wait_room();
    coh_release();
    held_here[id] = 0;
    atomic_fetch_sub(&nheld, 1);
    stall_moved();
    pbuf out = {0};
    pthread_mutex_lock(&node_mutex);
    successor next = mine[id].next;
    uint32_t cycle = mine[id].cycle;
    mine[id].next.node = -1;
    if (next.node < 0) {
        coh_lock_release(id, &out);
        int m = lock_manager_of(id);
        if (m == cfg.node) {
            lock_own(lock_mgr_release(id, cfg.node, cycle, out.p, out.len), id);
        } else {
            am_send(m, MSG_LOCK_REL, lock_wire_id(id), cycle, coh_epoch(), out.p, out.len);
            releases_sent[m]++;
        }
    }
    mine[id].on = 0;
    pthread_mutex_unlock(&node_mutex);
    if (next.node >= 0) {
        lock_own(coh_lock_handoff(id, next.node, next.req, next.len, &out)
                 ? "its protocols refused a checked request" : NULL, id);
        lock_send_grant(id, next.node, &out);
        free(next.req);
    }
    pbuf_free(&out);
    if (!atomic_load(&nheld))
        coh_sync_point(0);
    coh_leave();
}
