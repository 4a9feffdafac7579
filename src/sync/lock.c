#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
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

/* Manager state of one lock. `queue` is a ring of waiting node ids; a node
 * waits for at most one lock, so cfg.nodes slots always suffice. `notices`
 * gathers what the lock's releasers knew; `given[node]` is its clock when
 * `node` was last granted the lock, so that a grant carries only what that
 * node has not been given yet (it applied the rest at its earlier grants)
 * and costs what changed, not all that the epoch has gathered. `data` is
 * the data bound to the lock (coh_lock_data) as its last holder left it. */
typedef struct lock_mgr {
    int held;
    int *queue;
    int qhead, qlen;
    notice_set notices;
    uint32_t *given;
    void *data;
    size_t dlen;
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
    void *notices, *data;
    size_t len, dlen;
} grant;

static int manager_of(int id) { return id % cfg.nodes; }

static void check_id(const char *fn, int id)
{
    if (id < 0 || id >= TSR_MAX_LOCKS)
        log_die("%s(%d): lock id out of range [0, %d)", fn, id, TSR_MAX_LOCKS);
}

static void *copy_of(const void *p, size_t len)
{
    void *c = malloc(len + 1);
    if (!c)
        log_die_status(1, "out of memory (lock grant)");
    memcpy(c, p, len);
    return c;
}

/* A grant's or release's payload: the notices (nlen bytes), then the data. */
static void deliver_grant(const char *payload, size_t nlen, size_t len)
{
    grant.notices = copy_of(payload, nlen);
    grant.len = nlen;
    grant.data = copy_of(payload + nlen, len - nlen);
    grant.dlen = len - nlen;
    waiter_done(&grant.w);
}

/* Called with mgr_mutex held. */
static void mgr_grant(int id, int node)
{
    lock_mgr *l = &mgr[id];
    l->held = 1;
    if (!l->given && !(l->given = calloc((size_t)cfg.nodes, sizeof *l->given)))
        log_die_status(1, "out of memory (lock grant)");
    uint32_t since = l->given[node];
    l->given[node] = l->notices.clock;
    char *buf = malloc((size_t)notice_count_since(&l->notices, since) * NOTICE_WIRE + l->dlen + 1);
    if (!buf)
        log_die_status(1, "out of memory (lock grant)");
    size_t nlen = notice_encode(&l->notices, since, buf);
    if (l->dlen)
        memcpy(buf + nlen, l->data, l->dlen);
    if (node == cfg.node)
        deliver_grant(buf, nlen, nlen + l->dlen);
    else
        am_send(node, MSG_LOCK_GRANT, (uint64_t)id, nlen, 0, buf, nlen + l->dlen);
    free(buf);
}

/* Called with mgr_mutex held. */
static void set_data(lock_mgr *l, const void *data, size_t len)
{
    free(l->data);
    l->data = copy_of(data, len);
    l->dlen = len;
}

static void mgr_acquire(int id, int node)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (!l->held) {
        mgr_grant(id, node);
    } else {
        if (!l->queue)
            l->queue = malloc((size_t)cfg.nodes * sizeof *l->queue);
        l->queue[(l->qhead + l->qlen++) % cfg.nodes] = node;
    }
    pthread_mutex_unlock(&mgr_mutex);
}

static void mgr_release(int id, int node, const char *payload, size_t nlen, size_t len)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (nlen > len || notice_merge_wire(&l->notices, payload, nlen))
        log_die_status(1, "protocol error: malformed notices released with lock %d", id);
    /* Nobody else released the lock while `node` held it: it now knows
     * every notice of the set, its own included. */
    l->given[node] = l->notices.clock;
    if (len > nlen)
        set_data(l, payload + nlen, len - nlen);
    for (peeker *pk = l->peekers, *next; pk; pk = next) {
        next = pk->next;
        am_send(pk->node, MSG_LOCK_DATA, (uint64_t)id, pk->reply, 0, l->data, l->dlen);
        free(pk);
    }
    l->peekers = NULL;
    if (l->qlen) {
        int next = l->queue[l->qhead];
        l->qhead = (l->qhead + 1) % cfg.nodes;
        l->qlen--;
        mgr_grant(id, next);
    } else {
        l->held = 0;
    }
    pthread_mutex_unlock(&mgr_mutex);
}

static void on_lock_acq(int src, const tsr_msg_hdr *h, void *payload)
{
    mgr_acquire((int)h->arg[0], src);
}

static void on_lock_rel(int src, const tsr_msg_hdr *h, void *payload)
{
    mgr_release((int)h->arg[0], src, payload, h->arg[1], h->len);
    coh_counted_arrival((uint32_t)h->arg[2]);
}

static void on_lock_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[1] > h->len)
        log_die_status(1, "protocol error: malformed grant of lock %d", (int)h->arg[0]);
    deliver_grant(payload, h->arg[1], h->len);
}

/* A node reads the lock's bound data without the lock: now if the lock is
 * free, else when it is released. */
static void on_lock_peek(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = (int)h->arg[0];
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (!l->held) {
        am_send(src, MSG_LOCK_DATA, (uint64_t)id, h->arg[1], 0, l->data, l->dlen);
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
    coh_lock_install((int)h->arg[0], payload, h->len, 0);
    waiter_done((waiter *)(uintptr_t)h->arg[1]);
}

void lock_set_data(int id, const void *data, size_t len)
{
    pthread_mutex_lock(&mgr_mutex);
    set_data(&mgr[id], data, len);
    pthread_mutex_unlock(&mgr_mutex);
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

void lock_prune(const notice_set *global)
{
    pthread_mutex_lock(&mgr_mutex);
    for (int id = cfg.node; id < TSR_MAX_LOCKS; id += cfg.nodes)
        if (mgr[id].notices.n)
            notice_prune(&mgr[id].notices, global);
    pthread_mutex_unlock(&mgr_mutex);
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
    if (m == cfg.node) {
        mgr_acquire(id, cfg.node);
    } else {
        am_send(m, MSG_LOCK_ACQ, (uint64_t)id, 0, 0, NULL, 0);
        STAT_ADD(remote_lock_acquires, 1);
    }
    stall_wait(&grant.w, id);
    held_here[id] = 1;
    coh_acquire(grant.notices, grant.len);
    if (grant.dlen)
        coh_lock_install(id, grant.data, grant.dlen, 1);
    free(grant.notices);
    free(grant.data);
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
    size_t nlen, dlen;
    void *notices = coh_lock_notices(id, &nlen);
    void *data = coh_lock_data(id, &dlen);
    char *msg = malloc(nlen + dlen + 1);
    if (!msg)
        log_die("out of memory (lock release)");
    memcpy(msg, notices, nlen);
    if (dlen)
        memcpy(msg + nlen, data, dlen);
    held_here[id] = 0;
    int m = manager_of(id);
    if (m == cfg.node) {
        mgr_release(id, cfg.node, msg, nlen, nlen + dlen);
    } else {
        am_send(m, MSG_LOCK_REL, (uint64_t)id, nlen, coh_epoch(), msg, nlen + dlen);
        releases_sent[m]++;
    }
    free(notices);
    free(data);
    free(msg);
}
