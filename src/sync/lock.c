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
 * answered at the release. */
typedef struct peeker {
    struct peeker *next;
    int node;
    uint64_t reply;
} peeker;

/* A request waiting in a lock's queue, with its payload (the grant is
 * built from it when the lock comes free). */
typedef struct waiting {
    int node;
    void *req;
    size_t len;
} waiting;

/* Manager state of one lock. `queue` is a ring of waiting requests; a node
 * waits for at most one lock, so cfg.nodes slots always suffice. What the
 * lock's grants and releases carry is the protocols' (payload.h). */
typedef struct lock_mgr {
    int held;
    waiting *queue;
    int qhead, qlen;
    peeker *peekers;
} lock_mgr;

static lock_mgr *mgr;
static pthread_mutex_t mgr_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned char held_here[TSR_MAX_LOCKS];
/* Releases sent to each manager since the last barrier. A release has no
 * reply, so the barrier counts them (lock_count_releases): a manager
 * leaves the barrier only once it has every release of the epoch, which
 * also makes the statistics taken after tsr_finalize's barrier balance. */
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

/* A lock id from the wire: one this node manages. */
static int wire_lock(int src, const tsr_msg_hdr *h)
{
    uint64_t id = h->arg[0];
    if (id >= TSR_MAX_LOCKS || manager_of((int)id) != cfg.node)
        log_die_status(1, "protocol error: node %d names lock %llu, not managed here", src,
                       (unsigned long long)id);
    return (int)id;
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

/* Called with mgr_mutex held. */
static void mgr_grant(int id, int node, const void *req, size_t rlen)
{
    mgr[id].held = 1;
    pbuf out = {0};
    if (coh_lock_grant(id, node, req, rlen, &out))
        log_die_status(1, "protocol error: malformed request of lock %d from node %d", id, node);
    if (node == cfg.node)
        deliver_grant(out.p, out.len);
    else
        am_send(node, MSG_LOCK_GRANT, (uint64_t)id, 0, 0, out.p, out.len);
    pbuf_free(&out);
}

static void mgr_acquire(int id, int node, const void *req, size_t rlen)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (!l->held) {
        mgr_grant(id, node, req, rlen);
    } else {
        if (!l->queue && !(l->queue = malloc((size_t)cfg.nodes * sizeof *l->queue)))
            log_die_status(1, "out of memory (lock queue)");
        if (l->qlen == cfg.nodes)
            log_die_status(1, "protocol error: node %d asks for lock %d twice", node, id);
        l->queue[(l->qhead + l->qlen++) % cfg.nodes] = (waiting){node, copy_of(req, rlen), rlen};
    }
    pthread_mutex_unlock(&mgr_mutex);
}

static void answer_peek(int id, int node, uint64_t reply)
{
    pbuf out = {0};
    coh_lock_peek(id, &out);
    am_send(node, MSG_LOCK_DATA, (uint64_t)id, reply, 0, out.p, out.len);
    pbuf_free(&out);
}

static void mgr_release(int id, int node, const void *payload, size_t len)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (!l->held || coh_lock_merge(id, node, payload, len))
        log_die_status(1, "protocol error: malformed release of lock %d from node %d", id, node);
    for (peeker *pk = l->peekers, *next; pk; pk = next) {
        next = pk->next;
        answer_peek(id, pk->node, pk->reply);
        free(pk);
    }
    l->peekers = NULL;
    if (l->qlen) {
        waiting next = l->queue[l->qhead];
        l->qhead = (l->qhead + 1) % cfg.nodes;
        l->qlen--;
        mgr_grant(id, next.node, next.req, next.len);
        free(next.req);
    } else {
        l->held = 0;
    }
    pthread_mutex_unlock(&mgr_mutex);
}

static void on_lock_acq(int src, const tsr_msg_hdr *h, void *payload)
{
    mgr_acquire(wire_lock(src, h), src, payload, h->len);
}

static void on_lock_rel(int src, const tsr_msg_hdr *h, void *payload)
{
    mgr_release(wire_lock(src, h), src, payload, h->len);
    coh_counted_arrival((uint32_t)h->arg[2]);
}

static void on_lock_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    deliver_grant(payload, h->len);
}

/* A node reads the lock's bound data without the lock: now if the lock is
 * free, else when it is released. */
static void on_lock_peek(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = wire_lock(src, h);
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (!l->held) {
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
    mgr = calloc(TSR_MAX_LOCKS, sizeof *mgr);
    releases_sent = calloc((size_t)cfg.nodes, sizeof *releases_sent);
    if (!mgr || !releases_sent)
        log_die("out of memory (lock table)");
    am_register(MSG_LOCK_ACQ, on_lock_acq);
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
    if (held_here[id])
        log_die("tsr_lock(%d): this node already holds the lock (locks are not recursive)", id);
    double t0 = now_s();
    int m = manager_of(id);
    waiter_init(&grant.w, 1);
    pbuf req = {0};
    coh_lock_request(id, &req);
    if (m == cfg.node) {
        mgr_acquire(id, cfg.node, req.p, req.len);
    } else {
        am_send(m, MSG_LOCK_ACQ, (uint64_t)id, 0, 0, req.p, req.len);
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

void tsr_unlock(int id)
{
    guard_check("tsr_unlock");
    check_id("tsr_unlock", id);
    if (!held_here[id])
        log_die("tsr_unlock(%d): this node does not hold the lock", id);
    coh_release();
    pbuf rel = {0};
    coh_lock_release(id, &rel);
    held_here[id] = 0;
    int m = manager_of(id);
    if (m == cfg.node) {
        mgr_release(id, cfg.node, rel.p, rel.len);
    } else {
        am_send(m, MSG_LOCK_REL, (uint64_t)id, 0, coh_epoch(), rel.p, rel.len);
        releases_sent[m]++;
    }
    pbuf_free(&rel);
}
