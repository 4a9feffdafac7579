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
#include "sync/stall.h"
#include "sync/sync.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/guard.h"
#include "util/log.h"

/* A node reading a lock's bound data while the lock is held: it is
 * answered at the next release that reaches the manager. */
typedef struct peeker {
    struct peeker *next;
    int node;
    uint64_t reply;
} peeker;

/* What the manager knows of one node's requests of one lock it manages, so
 * that it can tell a duplicate or forged message from an honest one. A
 * cycle is `open` from its request until its release reaches the manager
 * or the node asks again (a node with a successor hands the lock on
 * without telling the manager, and can only ask again after that). */
typedef struct asker {
    uint32_t cycle; /* its last request cycle (cycles count up by one) */
    uint8_t open;
    int16_t succ;   /* the node whose request went to it in that cycle, or -1 */
    int16_t bounce; /* the node whose request it owes back (its release
                     * crossed that forward), or -1 */
} asker;

/* A request waiting at its predecessor, with its payload (the grant is
 * built from it); under TSR_LOCK_HANDOFF=manager, in the manager's queue. */
typedef struct successor {
    int node; /* -1: none */
    void *req;
    size_t len;
    struct successor *next;
} successor;

/* Manager state of one lock: the last node that asked (-1: the lock is
 * free here) and the cycle of its request; the requests it queues itself
 * (TSR_LOCK_HANDOFF=manager), oldest first. */
typedef struct lock_mgr {
    int tail;
    uint32_t tail_cycle;
    peeker *peekers;
    successor *queue, **queue_end;
} lock_mgr;

/* Node state of one lock: its request cycle (one per tsr_lock), whether the
 * cycle is still on (asked or held, not released), and its successor.
 * Shared with the comm thread (forwards) under node_mutex. */
typedef struct lock_node {
    uint32_t cycle;
    int on;
    successor next;
} lock_node;

static lock_mgr *mgr;
static asker *askers; /* per managed lock, one per node (asker_of) */
static lock_node *mine;
static pthread_mutex_t mgr_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t node_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned char held_here[COH_LOCK_SLOTS];
static int nheld; /* locks this node holds */
/* Releases sent to each manager since the last barrier. A release has no
 * reply, so the barrier counts them (lock_count_releases): a manager
 * leaves the barrier only once it has every release of the epoch, which
 * also makes the statistics taken after tsr_finalize's barrier balance.
 * Forwards, bounces and direct grants need no count: the acquirer waits
 * for the grant that each of them leads to. */
static uint32_t *releases_sent;

/* The grant this node's application thread waits for: `lock` is the lock
 * it waits for (-1: none), taken back by the grant that ends the wait. */
static struct {
    waiter w;
    void *payload;
    size_t len;
    _Atomic int lock;
} grant = {.lock = -1};

static int manager_of(int id) { return id % cfg.nodes; }

static asker *asker_of(int id, int node) { return &askers[(id / cfg.nodes) * cfg.nodes + node]; }

static void check_id(const char *fn, int id)
{
    if (id < 0 || id >= TSR_MAX_LOCKS)
        log_die("%s(%d): lock id out of range [0, %d)", fn, id, TSR_MAX_LOCKS);
}

/* The manager's and a node's steps return a verdict: NULL when the step
 * was taken, else the rule its message broke, and then it changed nothing.
 * A handler rejects such a message (judge); on this node's own path the
 * same verdict is a bug, and stops the node. */
static void own(const char *why, int id)
{
    if (why)
        log_die_status(1, "lock %d: this node broke its own protocol: %s", id, why);
}

_Static_assert(TSR_MAX_LOCKS == MSG_PROGRAM_LOCKS && TSR_MAX_FLAGS == MSG_FLAGS,
               "lock ids on the wire");

/* A lock slot (payload.h) as the wire names it: a pause flag's lock lies
 * apart from the program's, whose range the message rules keep. */
static uint64_t wire_id(int slot)
{
    return slot < TSR_MAX_LOCKS ? (uint64_t)slot
                                : MSG_FLAG_LOCKS + (uint64_t)(slot - TSR_MAX_LOCKS);
}

/* The slot a message's lock id names (the table checked it is a program's
 * lock or a flag's). */
static int slot_of(const tsr_msg_hdr *h)
{
    uint64_t id = h->arg[0];
    return (int)(id < TSR_MAX_LOCKS ? id : id - MSG_FLAG_LOCKS + TSR_MAX_LOCKS);
}

/* The lock of a message to the lock's manager: NULL if this node manages
 * it. */
static const char *not_managed(const tsr_msg_hdr *h)
{
    return manager_of(slot_of(h)) == cfg.node ? NULL : "a lock this node does not manage";
}

static void *copy_of(const void *p, size_t len)
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
    int want = id;
    return atomic_compare_exchange_strong(&grant.lock, &want, -1)
               ? NULL
               : "a grant of a lock this node does not wait for";
}

static void deliver_grant(const void *payload, size_t len)
{
    grant.payload = copy_of(payload, len);
    grant.len = len;
    waiter_done(&grant.w);
}

static void send_grant(int id, int node, const pbuf *out)
{
    if (node == cfg.node) {
        own(take_grant(id), id);
        deliver_grant(out->p, out->len);
    } else {
        am_send(node, MSG_LOCK_GRANT, wire_id(id), 0, 0, out->p, out->len);
    }
}

/* The manager grants a free lock (or one a bounce hands back). The request
 * was checked when it arrived (coh_lock_request_check). */
static void mgr_grant(int id, int node, const void *req, size_t rlen)
{
    pbuf out = {0};
    own(coh_lock_grant(id, node, req, rlen, &out) ? "its protocols refused a checked request"
                                                   : NULL, id);
    send_grant(id, node, &out);
    pbuf_free(&out);
}

/* ---- Node side: forwards and bounces --------------------------------------- */

static void bounce(int id, int node, const void *req, size_t rlen);

/* A request of `node` forwarded to this node for its cycle `cycle` of lock
 * id: kept as the successor if that cycle is on, else sent back. */
static const char *forwarded(int id, int node, uint32_t cycle, const void *req, size_t rlen)
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
        l->next = (successor){node, copy_of(req, rlen), rlen, NULL};
    pthread_mutex_unlock(&node_mutex);
    if (!why && !now)
        bounce(id, node, req, rlen);
    return why;
}

/* ---- Manager side ---------------------------------------------------------- */

static void forward(int id, int tail, uint32_t cycle, int node, const void *req, size_t rlen)
{
    if (tail == cfg.node)
        own(forwarded(id, node, cycle, req, rlen), id);
    else
        am_send(tail, MSG_LOCK_FWD, wire_id(id), (uint64_t)node, cycle, req, rlen);
}

/* TSR_LOCK_HANDOFF=manager: a request for a held lock waits here. Called
 * with mgr_mutex held. */
static void enqueue(lock_mgr *l, int node, const void *req, size_t rlen)
{
    successor *w = malloc(sizeof *w);
    if (!w)
        log_die_status(1, "out of memory (lock queue)");
    *w = (successor){node, copy_of(req, rlen), rlen, NULL};
    if (!l->queue)
        l->queue_end = &l->queue;
    *l->queue_end = w;
    l->queue_end = &w->next;
}

/* A node may not ask while it is the last that asked (it holds the lock or
 * waits for it, nobody after it: only its release ends that cycle), and
 * each of its requests is the next cycle of its own. */
static const char *acquire_refused(int id, int node, uint32_t cycle)
{
    const asker *a = asker_of(id, node);
    if (a->open && mgr[id].tail == node)
        return "a request from a node that holds the lock or waits for it";
    if (cycle != a->cycle + 1)
        return "a request cycle that is not the node's next (a duplicate)";
    return NULL;
}

static const char *mgr_acquire(int id, int node, uint32_t cycle, const void *req, size_t rlen)
{
    if (coh_lock_request_check(req, rlen))
        return "a malformed request";
    pthread_mutex_lock(&mgr_mutex);
    const char *why = acquire_refused(id, node, cycle);
    lock_mgr *l = &mgr[id];
    int tail = l->tail;
    uint32_t tail_cycle = l->tail_cycle;
    if (!why) {
        asker *a = asker_of(id, node);
        *a = (asker){cycle, 1, -1, a->bounce};
        if (tail >= 0 && !cfg.handoff_via_manager)
            asker_of(id, tail)->succ = (int16_t)node;
        l->tail = node;
        l->tail_cycle = cycle;
        if (tail < 0)
            mgr_grant(id, node, req, rlen);
        else if (cfg.handoff_via_manager)
            enqueue(l, node, req, rlen);
    }
    pthread_mutex_unlock(&mgr_mutex);
    if (!why && tail >= 0 && !cfg.handoff_via_manager)
        forward(id, tail, tail_cycle, node, req, rlen);
    return why;
}

static void answer_peek(int id, int node, uint64_t reply)
{
    pbuf out = {0};
    coh_lock_peek(id, &out);
    am_send(node, MSG_LOCK_DATA, wire_id(id), reply, 0, out.p, out.len);
    pbuf_free(&out);
}

/* Only a node whose cycle `cycle` is open here releases; one whose release
 * crosses the forward of its successor owes that request back (a bounce)
 * before its next release. */
static const char *release_refused(const asker *a, uint32_t cycle)
{
    if (!a->open || a->cycle != cycle)
        return "a release from a node that does not hold the lock";
    if (a->bounce >= 0)
        return "a release before the bounce the node owes";
    return NULL;
}

static const char *mgr_release(int id, int node, uint32_t cycle, const void *payload,
                               size_t len)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    asker *a = asker_of(id, node);
    const char *why = release_refused(a, cycle);
    if (!why && coh_lock_merge(id, node, payload, len))
        why = "a malformed release";
    if (!why) {
        *a = (asker){a->cycle, 0, -1, a->succ};
        for (peeker *pk = l->peekers, *next; pk; pk = next) {
            next = pk->next;
            answer_peek(id, pk->node, pk->reply);
            free(pk);
        }
        l->peekers = NULL;
        successor *w = l->queue;
        if (w) { /* TSR_LOCK_HANDOFF=manager: the next in line */
            l->queue = w->next;
            mgr_grant(id, w->node, w->req, w->len);
            free(w->req);
            free(w);
        } else if (l->tail == node) { /* nobody asked since: the lock is free */
            l->tail = -1;
        }
    }
    pthread_mutex_unlock(&mgr_mutex);
    return why;
}

/* Node `from` sends back `node`'s request, forwarded to it in a cycle its
 * release had ended: that release is merged here (it came first on the
 * same connection), so grant from here. */
static const char *mgr_bounced(int id, int from, int node, const void *req, size_t rlen)
{
    if (coh_lock_request_check(req, rlen))
        return "a malformed request";
    pthread_mutex_lock(&mgr_mutex);
    asker *a = asker_of(id, from);
    const char *why = a->bounce == node ? NULL : "a bounce of a request the node does not owe";
    if (!why) {
        a->bounce = -1;
        mgr_grant(id, node, req, rlen);
    }
    pthread_mutex_unlock(&mgr_mutex);
    return why;
}

static void bounce(int id, int node, const void *req, size_t rlen)
{
    if (manager_of(id) == cfg.node)
        own(mgr_bounced(id, cfg.node, node, req, rlen), id);
    else
        am_send(manager_of(id), MSG_LOCK_BOUNCE, wire_id(id), (uint64_t)node, 0, req, rlen);
}

/* ---- Handlers -------------------------------------------------------------- */

/* Rejects h if `why` says it breaks a rule (see own()). */
static void judge(int src, const tsr_msg_hdr *h, const char *why)
{
    if (why)
        am_reject(src, h, "%s", why);
}

static void on_lock_acq(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = not_managed(h);
    judge(src, h, why ? why : mgr_acquire(slot_of(h), src, (uint32_t)h->arg[1], payload,
                                          h->len));
}

static void on_lock_fwd(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = slot_of(h);
    if (src != manager_of(id))
        judge(src, h, "a forward not from the lock's manager");
    else
        judge(src, h, forwarded(id, (int)h->arg[1], (uint32_t)h->arg[2], payload, h->len));
}

static void on_lock_bounce(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = not_managed(h);
    judge(src, h, why ? why : mgr_bounced(slot_of(h), src, (int)h->arg[1], payload, h->len));
}

static void on_lock_rel(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = not_managed(h);
    if (!why)
        why = mgr_release(slot_of(h), src, (uint32_t)h->arg[1], payload, h->len);
    judge(src, h, why);
    if (!why)
        coh_counted_arrival((uint32_t)h->arg[2]);
}

static void on_lock_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why =
        coh_payload_check(PL_GRANT, slot_of(h), payload, h->len) ? "a malformed grant" : NULL;
    if (!why)
        why = take_grant(slot_of(h));
    judge(src, h, why);
    if (!why)
        deliver_grant(payload, h->len);
}

/* A node has one application thread, so at most one peek of a lock waits
 * for it: a second is a duplicate (and the waiting list stays bounded). */
static int peek_waits(const lock_mgr *l, int node)
{
    for (const peeker *pk = l->peekers; pk; pk = pk->next)
        if (pk->node == node)
            return 1;
    return 0;
}

/* A node reads the lock's bound data without the lock: now if the lock is
 * free, else when a release reaches the manager. */
static void on_lock_peek(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = slot_of(h);
    if (manager_of(id) != cfg.node) {
        judge(src, h, not_managed(h));
        return;
    }
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (peek_waits(l, src)) {
        judge(src, h, "a second peek while the node's first waits");
    } else if (l->tail < 0) {
        answer_peek(id, src, h->arg[1]);
    } else {
        peeker *pk = malloc(sizeof *pk);
        if (!pk)
            log_die_status(1, "out of memory (lock data)");
        *pk = (peeker){l->peekers, src, h->arg[1]};
        l->peekers = pk;
    }
    pthread_mutex_unlock(&mgr_mutex);
}

/* A peek's wait (lock_peek): the request id names it. */
typedef struct peek_wait {
    waiter w;
    int lock;
} peek_wait;

static void on_lock_data(int src, const tsr_msg_hdr *h, void *payload)
{
    peek_wait *pw = req_ctx(h->arg[1]);
    if (pw->lock != slot_of(h)) {
        judge(src, h, "the data of another lock than the one asked for");
        return;
    }
    if (coh_lock_peeked(pw->lock, payload, h->len)) {
        judge(src, h, "malformed lock data");
        return;
    }
    req_close(h->arg[1]);
    waiter_done(&pw->w);
}

void lock_peek(int id)
{
    peek_wait pw = {.lock = id};
    am_msg m;
    int to = manager_of(id);
    waiter_init(&pw.w, 1);
    am_post(to, &m, MSG_LOCK_PEEK, wire_id(id), req_open(to, MSG_LOCK_DATA, &pw), 0, NULL, 0);
    waiter_wait(&pw.w);
}

void lock_init(void)
{
    /* One asker per node for each lock this node manages. */
    size_t nask = (size_t)(COH_LOCK_SLOTS / cfg.nodes + 1) * (size_t)cfg.nodes;
    mgr = calloc(COH_LOCK_SLOTS, sizeof *mgr);
    askers = calloc(nask, sizeof *askers);
    mine = calloc(COH_LOCK_SLOTS, sizeof *mine);
    releases_sent = calloc((size_t)cfg.nodes, sizeof *releases_sent);
    if (!mgr || !askers || !mine || !releases_sent)
        log_die("out of memory (lock table)");
    for (int id = 0; id < COH_LOCK_SLOTS; id++) {
        mgr[id].tail = -1;
        mine[id].next.node = -1;
    }
    for (size_t k = 0; k < nask; k++)
        askers[k].succ = askers[k].bounce = -1;
    am_register(MSG_LOCK_ACQ, on_lock_acq);
    am_register(MSG_LOCK_FWD, on_lock_fwd);
    am_register(MSG_LOCK_BOUNCE, on_lock_bounce);
    am_register(MSG_LOCK_REL, on_lock_rel);
    am_register(MSG_LOCK_GRANT, on_lock_grant);
    am_register(MSG_LOCK_PEEK, on_lock_peek);
    am_register(MSG_LOCK_DATA, on_lock_data);
}

int lock_held_here(int id) { return held_here[id]; }

int lock_held_count(void) { return nheld; }

void lock_count_releases(uint32_t *sent)
{
    for (int j = 0; j < cfg.nodes; j++)
        sent[j] += releases_sent[j];
    memset(releases_sent, 0, (size_t)cfg.nodes * sizeof *releases_sent);
}

void tsr_lock(int id)
{
    guard_check("tsr_lock");
    check_id("tsr_lock", id);
    lock_acquire(id);
}

void tsr_unlock(int id)
{
    guard_check("tsr_unlock");
    check_id("tsr_unlock", id);
    lock_release(id);
}

void lock_acquire(int id)
{
    if (held_here[id])
        log_die("tsr_lock(%d): this node already holds the lock (locks are not recursive)", id);
    if (!nheld)
        coh_sync_point(0);
    double t0 = now_s();
    am_wait_room();
    int m = manager_of(id);
    waiter_init(&grant.w, 1);
    atomic_store(&grant.lock, id); /* before any grant can come */
    pthread_mutex_lock(&node_mutex);
    uint32_t cycle = ++mine[id].cycle;
    mine[id].on = 1;
    pthread_mutex_unlock(&node_mutex);
    pbuf req = {0};
    coh_lock_request(id, &req);
    if (m == cfg.node) {
        own(mgr_acquire(id, cfg.node, cycle, req.p, req.len), id);
    } else {
        am_send(m, MSG_LOCK_ACQ, wire_id(id), cycle, 0, req.p, req.len);
        STAT_ADD(remote_lock_acquires, 1);
    }
    pbuf_free(&req);
    stall_wait(&grant.w, id);
    held_here[id] = 1;
    nheld++;
    own(coh_lock_acquire(id, grant.payload, grant.len) ? "its protocols refused a checked grant"
                                                        : NULL, id);
    free(grant.payload);
    STAT_ADD(lock_acquires, 1);
    STAT_TIME(lock_wait_s, now_s() - t0);
}

/* With a successor, the grant goes straight to it; else the release goes
 * to the manager. The cycle ends, and the release is sent, under
 * node_mutex: a forward that then finds the cycle over bounces behind the
 * release, on the same connection, so the manager merges it first. */
void lock_release(int id)
{
    if (!held_here[id])
        log_die("tsr_unlock(%d): this node does not hold the lock", id);
    am_wait_room();
    coh_release();
    held_here[id] = 0;
    nheld--;
    pbuf out = {0};
    pthread_mutex_lock(&node_mutex);
    successor next = mine[id].next;
    uint32_t cycle = mine[id].cycle;
    mine[id].next.node = -1;
    if (next.node < 0) {
        coh_lock_release(id, &out);
        int m = manager_of(id);
        if (m == cfg.node) {
            own(mgr_release(id, cfg.node, cycle, out.p, out.len), id);
        } else {
            am_send(m, MSG_LOCK_REL, wire_id(id), cycle, coh_epoch(), out.p, out.len);
            releases_sent[m]++;
        }
    }
    mine[id].on = 0;
    pthread_mutex_unlock(&node_mutex);
    if (next.node >= 0) {
        own(coh_lock_handoff(id, next.node, next.req, next.len, &out)
                ? "its protocols refused a checked request" : NULL, id);
        send_grant(id, next.node, &out);
        free(next.req);
    }
    pbuf_free(&out);
    if (!nheld)
        coh_sync_point(0);
}
