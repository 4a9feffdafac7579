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
 * What requests, grants and releases carry is the protocols' (payload.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/payload.h"
#include "coherence/protocol.h"
#include "stats/stats.h"
#include "sync/stall.h"
#include "sync/sync.h"
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

/* Manager state of one lock: the last node that asked (-1: the lock is
 * free here) and the cycle of its request. */
typedef struct lock_mgr {
    int tail;
    uint32_t tail_cycle;
    peeker *peekers;
} lock_mgr;

/* A request waiting at its predecessor, with its payload (the grant is
 * built from it). */
typedef struct successor {
    int node; /* -1: none */
    void *req;
    size_t len;
} successor;

/* Node state of one lock: its request cycle (one per tsr_lock), whether the
 * cycle is still on (asked or held, not released), and its successor.
 * Shared with the comm thread (forwards) under node_mutex. */
typedef struct lock_node {
    uint32_t cycle;
    int on;
    successor next;
} lock_node;

static lock_mgr *mgr;
static lock_node *mine;
static pthread_mutex_t mgr_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t node_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned char held_here[COH_LOCK_SLOTS];
/* Releases sent to each manager since the last barrier. A release has no
 * reply, so the barrier counts them (lock_count_releases): a manager
 * leaves the barrier only once it has every release of the epoch, which
 * also makes the statistics taken after tsr_finalize's barrier balance.
 * Forwards, bounces and direct grants need no count: the acquirer waits
 * for the grant that each of them leads to. */
static uint32_t *releases_sent;

/* The grant this node's application thread waits for. */
static struct {
    waiter w;
    void *payload;
    size_t len;
} grant;

static int manager_of(int id) { return id % cfg.nodes; }

static void check_id(const char *fn, int id)
{
    if (id < 0 || id >= TSR_MAX_LOCKS)
        log_die("%s(%d): lock id out of range [0, %d)", fn, id, TSR_MAX_LOCKS);
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

/* The slot of a lock id from the wire; `managed`: one this node manages. */
static int wire_lock(int src, const tsr_msg_hdr *h, int managed)
{
    uint64_t id = h->arg[0];
    uint64_t slot = id < TSR_MAX_LOCKS ? id : id - MSG_FLAG_LOCKS + TSR_MAX_LOCKS;
    if (slot >= COH_LOCK_SLOTS || (managed && manager_of((int)slot) != cfg.node))
        log_die_status(1, "protocol error: node %d names lock %llu%s", src,
                       (unsigned long long)id, managed ? ", not managed here" : "");
    return (int)slot;
}

/* A node id from the wire. */
static int wire_node(int src, uint64_t node)
{
    if (node >= (uint64_t)cfg.nodes)
        log_die_status(1, "protocol error: node %d names node %llu", src, (unsigned long long)node);
    return (int)node;
}

static void *copy_of(const void *p, size_t len)
{
    void *c = malloc(len + 1);
    if (!c)
        log_die_status(1, "out of memory (lock grant)");
    memcpy(c, p, len);
    return c;
}

static void deliver_grant(const void *payload, size_t len)
{
    grant.payload = copy_of(payload, len);
    grant.len = len;
    waiter_done(&grant.w);
}

static void send_grant(int id, int node, const pbuf *out)
{
    if (node == cfg.node)
        deliver_grant(out->p, out->len);
    else
        am_send(node, MSG_LOCK_GRANT, wire_id(id), 0, 0, out->p, out->len);
}

/* The manager grants a free lock (or one a bounce hands back). */
static void mgr_grant(int id, int node, const void *req, size_t rlen)
{
    pbuf out = {0};
    if (coh_lock_grant(id, node, req, rlen, &out))
        log_die_status(1, "protocol error: malformed request of lock %d from node %d", id, node);
    send_grant(id, node, &out);
    pbuf_free(&out);
}

/* ---- Node side: forwards and bounces --------------------------------------- */

static void bounce(int id, int node, const void *req, size_t rlen);

/* A request forwarded to this node for its cycle `cycle` of lock id. */
static void forwarded(int id, int node, uint32_t cycle, const void *req, size_t rlen)
{
    pthread_mutex_lock(&node_mutex);
    lock_node *l = &mine[id];
    int keep = l->on && l->cycle == cycle && l->next.node < 0;
    if (keep)
        l->next = (successor){node, copy_of(req, rlen), rlen};
    pthread_mutex_unlock(&node_mutex);
    if (!keep)
        bounce(id, node, req, rlen);
}

/* ---- Manager side ---------------------------------------------------------- */

static void forward(int id, int tail, uint32_t cycle, int node, const void *req, size_t rlen)
{
    if (tail == cfg.node)
        forwarded(id, node, cycle, req, rlen);
    else
        am_send(tail, MSG_LOCK_FWD, wire_id(id), (uint64_t)node, cycle, req, rlen);
}

static void mgr_acquire(int id, int node, uint32_t cycle, const void *req, size_t rlen)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    int tail = l->tail;
    uint32_t tail_cycle = l->tail_cycle;
    l->tail = node;
    l->tail_cycle = cycle;
    if (tail < 0)
        mgr_grant(id, node, req, rlen);
    pthread_mutex_unlock(&mgr_mutex);
    if (tail >= 0)
        forward(id, tail, tail_cycle, node, req, rlen);
}

static void answer_peek(int id, int node, uint64_t reply)
{
    pbuf out = {0};
    coh_lock_peek(id, &out);
    am_send(node, MSG_LOCK_DATA, wire_id(id), reply, 0, out.p, out.len);
    pbuf_free(&out);
}

static void mgr_release(int id, int node, const void *payload, size_t len)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (l->tail < 0 || coh_lock_merge(id, node, payload, len))
        log_die_status(1, "protocol error: malformed release of lock %d from node %d", id, node);
    for (peeker *pk = l->peekers, *next; pk; pk = next) {
        next = pk->next;
        answer_peek(id, pk->node, pk->reply);
        free(pk);
    }
    l->peekers = NULL;
    if (l->tail == node) /* nobody asked since: the lock is free */
        l->tail = -1;
    pthread_mutex_unlock(&mgr_mutex);
}

/* A forward found its cycle over: the release it crossed is merged here
 * (it came first on the same connection), so grant from here. */
static void mgr_bounced(int id, int node, const void *req, size_t rlen)
{
    pthread_mutex_lock(&mgr_mutex);
    mgr_grant(id, node, req, rlen);
    pthread_mutex_unlock(&mgr_mutex);
}

static void bounce(int id, int node, const void *req, size_t rlen)
{
    if (manager_of(id) == cfg.node)
        mgr_bounced(id, node, req, rlen);
    else
        am_send(manager_of(id), MSG_LOCK_BOUNCE, wire_id(id), (uint64_t)node, 0, req, rlen);
}

/* ---- Handlers -------------------------------------------------------------- */

static void on_lock_acq(int src, const tsr_msg_hdr *h, void *payload)
{
    mgr_acquire(wire_lock(src, h, 1), src, (uint32_t)h->arg[1], payload, h->len);
}

static void on_lock_fwd(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = wire_lock(src, h, 0);
    forwarded(id, wire_node(src, h->arg[1]), (uint32_t)h->arg[2], payload, h->len);
}

static void on_lock_bounce(int src, const tsr_msg_hdr *h, void *payload)
{
    mgr_bounced(wire_lock(src, h, 1), wire_node(src, h->arg[1]), payload, h->len);
}

static void on_lock_rel(int src, const tsr_msg_hdr *h, void *payload)
{
    mgr_release(wire_lock(src, h, 1), src, payload, h->len);
    coh_counted_arrival((uint32_t)h->arg[2]);
}

static void on_lock_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    deliver_grant(payload, h->len);
}

/* A node reads the lock's bound data without the lock: now if the lock is
 * free, else when a release reaches the manager. */
static void on_lock_peek(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = wire_lock(src, h, 1);
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (l->tail < 0) {
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

static void on_lock_data(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[0] >= TSR_MAX_LOCKS || coh_lock_peeked((int)h->arg[0], payload, h->len))
        log_die_status(1, "protocol error: malformed data of lock %d from node %d",
                       (int)h->arg[0], src);
    waiter_done((waiter *)(uintptr_t)h->arg[1]);
}

void lock_init(void)
{
    mgr = calloc(COH_LOCK_SLOTS, sizeof *mgr);
    mine = calloc(COH_LOCK_SLOTS, sizeof *mine);
    releases_sent = calloc((size_t)cfg.nodes, sizeof *releases_sent);
    if (!mgr || !mine || !releases_sent)
        log_die("out of memory (lock table)");
    for (int id = 0; id < COH_LOCK_SLOTS; id++) {
        mgr[id].tail = -1;
        mine[id].next.node = -1;
    }
    am_register(MSG_LOCK_ACQ, on_lock_acq);
    am_register(MSG_LOCK_FWD, on_lock_fwd);
    am_register(MSG_LOCK_BOUNCE, on_lock_bounce);
    am_register(MSG_LOCK_REL, on_lock_rel);
    am_register(MSG_LOCK_GRANT, on_lock_grant);
    am_register(MSG_LOCK_PEEK, on_lock_peek);
    am_register(MSG_LOCK_DATA, on_lock_data);
}

int lock_held_here(int id) { return held_here[id]; }

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
    double t0 = now_s();
    int m = manager_of(id);
    waiter_init(&grant.w, 1);
    pthread_mutex_lock(&node_mutex);
    uint32_t cycle = ++mine[id].cycle;
    mine[id].on = 1;
    pthread_mutex_unlock(&node_mutex);
    pbuf req = {0};
    coh_lock_request(id, &req);
    if (m == cfg.node) {
        mgr_acquire(id, cfg.node, cycle, req.p, req.len);
    } else {
        am_send(m, MSG_LOCK_ACQ, wire_id(id), cycle, 0, req.p, req.len);
        STAT_ADD(remote_lock_acquires, 1);
    }
    pbuf_free(&req);
    stall_wait(&grant.w, id);
    held_here[id] = 1;
    if (coh_lock_acquire(id, grant.payload, grant.len))
        log_die_status(1, "protocol error: malformed grant of lock %d", id);
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
    coh_release();
    held_here[id] = 0;
    pbuf out = {0};
    pthread_mutex_lock(&node_mutex);
    successor next = mine[id].next;
    mine[id].next.node = -1;
    if (next.node < 0) {
        coh_lock_release(id, &out);
        int m = manager_of(id);
        if (m == cfg.node) {
            mgr_release(id, cfg.node, out.p, out.len);
        } else {
            am_send(m, MSG_LOCK_REL, wire_id(id), 0, coh_epoch(), out.p, out.len);
            releases_sent[m]++;
        }
    }
    mine[id].on = 0;
    pthread_mutex_unlock(&node_mutex);
    if (next.node >= 0) {
        if (coh_lock_handoff(id, next.node, next.req, next.len, &out))
            log_die_status(1, "protocol error: malformed request of lock %d from node %d", id,
                           next.node);
        send_grant(id, next.node, &out);
        free(next.req);
    }
    pbuf_free(&out);
}
