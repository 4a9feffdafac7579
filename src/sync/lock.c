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
 * thread at a time ask for a lock). `waiting` is set before the request
 * goes and taken back by the grant that ends the wait. */
typedef struct lock_grant {
    waiter w;
    void *payload;
    size_t len;
    _Atomic int waiting;
} lock_grant;
static lock_grant *grants;

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
    int want = 1;
    return atomic_compare_exchange_strong(&grants[id].waiting, &want, 0)
               ? NULL
               : "a grant of a lock this node does not wait for";
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
    coh_lend_sync(&(coh_sync_ops){tsr_barrier, lock_peek});
    am_register(MSG_LOCK_FWD, on_lock_fwd);
    am_register(MSG_LOCK_GRANT, on_lock_grant);
    am_register(MSG_LOCK_DATA, on_lock_data);
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

/* The protocols' calls go under the node's protocol lock (coh_enter),
 * never a wait for the grant: another thread of this node may hold the
 * lock asked for and need the protocol lock to release it. */
void lock_acquire(int id)
{
    if (held_here[id])
        log_die("tsr_lock(%d): this node already holds the lock (locks are not recursive)", id);
    lock_grant *g = &grants[id];
    double t0 = now_s();
    uint64_t traced = trace_begin();
    coh_enter();
    if (!atomic_load(&nheld))
        coh_sync_point(0);
    am_wait_room();
    int m = lock_manager_of(id);
    waiter_init(&g->w, 1);
    atomic_store(&g->waiting, 1); /* before any grant can come */
    pthread_mutex_lock(&node_mutex);
    uint32_t cycle = ++mine[id].cycle;
    mine[id].on = 1;
    pthread_mutex_unlock(&node_mutex);
    pbuf req = {0};
    coh_lock_request(id, &req);
    coh_leave();
    if (m == cfg.node) {
        lock_own(lock_mgr_acquire(id, cfg.node, cycle, req.p, req.len), id);
    } else {
        am_send(m, MSG_LOCK_ACQ, lock_wire_id(id), cycle, 0, req.p, req.len);
        STAT_ADD(remote_lock_acquires, 1);
    }
    pbuf_free(&req);
    stall_wait(&g->w, id);
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
    STAT_TIME(lock_wait_s, now_s() - t0);
    TRACE_SPAN(traced, EV_LOCK_WAIT, 0, (uint32_t)id, 0);
    trace_hold(id, 1);
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
