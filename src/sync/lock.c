#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "stats/stats.h"
#include "sync/sync.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* Manager state of one lock. `queue` is a ring of waiting node ids; a node
 * waits for at most one lock, so cfg.nodes slots always suffice. */
typedef struct lock_mgr {
    int held;
    int *queue;
    int qhead, qlen;
    notice_set notices;
} lock_mgr;

static lock_mgr *mgr;
static pthread_mutex_t mgr_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned char held_here[TSR_MAX_LOCKS];

/* The grant this node's application thread waits for. */
static struct {
    waiter w;
    void *notices;
    size_t len;
} grant;

static int manager_of(int id) { return id % cfg.nodes; }

static void check_id(const char *fn, int id)
{
    if (id < 0 || id >= TSR_MAX_LOCKS)
        log_die("%s(%d): lock id out of range [0, %d)", fn, id, TSR_MAX_LOCKS);
}

static void deliver_grant(const void *notices, size_t len)
{
    grant.notices = malloc(len + 1);
    if (!grant.notices)
        log_die_status(1, "out of memory (lock grant)");
    memcpy(grant.notices, notices, len);
    grant.len = len;
    waiter_done(&grant.w);
}

/* Called with mgr_mutex held. */
static void mgr_grant(int id, int node)
{
    lock_mgr *l = &mgr[id];
    l->held = 1;
    void *buf = malloc((size_t)l->notices.n * NOTICE_WIRE + 1);
    size_t len = notice_encode(&l->notices, 0, buf);
    if (node == cfg.node)
        deliver_grant(buf, len);
    else
        am_send(node, MSG_LOCK_GRANT, (uint64_t)id, 0, 0, buf, len);
    free(buf);
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

static void mgr_release(int id, const void *notices, size_t len)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (notice_merge_wire(&l->notices, notices, len))
        log_die_status(1, "protocol error: malformed notices released with lock %d", id);
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
    mgr_release((int)h->arg[0], payload, h->len);
}

static void on_lock_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    deliver_grant(payload, h->len);
}

void lock_init(void)
{
    mgr = calloc(TSR_MAX_LOCKS, sizeof *mgr);
    if (!mgr)
        log_die("out of memory (lock table)");
    am_register(MSG_LOCK_ACQ, on_lock_acq);
    am_register(MSG_LOCK_REL, on_lock_rel);
    am_register(MSG_LOCK_GRANT, on_lock_grant);
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
    waiter_wait(&grant.w);
    held_here[id] = 1;
    coh_acquire(grant.notices, grant.len);
    free(grant.notices);
    STAT_ADD(lock_acquires, 1);
    STAT_TIME(lock_wait_s, now_s() - t0);
}

void tsr_unlock(int id)
{
    check_id("tsr_unlock", id);
    if (!held_here[id])
        log_die("tsr_unlock(%d): this node does not hold the lock", id);
    coh_release();
    size_t len;
    void *notices = coh_lock_notices(id, &len);
    held_here[id] = 0;
    int m = manager_of(id);
    if (m == cfg.node)
        mgr_release(id, notices, len);
    else
        am_send(m, MSG_LOCK_REL, (uint64_t)id, 0, 0, notices, len);
    free(notices);
}
