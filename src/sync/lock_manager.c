/*
 * lock_manager.c - the manager's half of the lock hand-off (lock.c tells
 * the algorithm): lock id mod N keeps the last node that asked for each
 * lock it manages, forwards a request to it, merges the releases that
 * reach it, and answers reads of the lock's bound data. It knows which
 * request cycle of each node is open, so that a duplicate or forged
 * acquire, release or bounce is refused and changes nothing.
 */
#include <pthread.h>
#include <stdlib.h>

#include "coherence/payload.h"
#include "coherence/protocol.h"
#include "sync/lock_manager.h"
#include "transport/transport.h"
#include "util/config.h"
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
    int16_t succ;   /* the node whose request went to it in that cycle, or NO_NODE */
    int16_t bounce; /* the node whose request it owes back (its release
                     * crossed that forward), or NO_NODE */
} asker;

/* "Nobody" in succ and bounce. A node named by a message is one of the job
 * (ARG_NODE), so it never matches. */
#define NO_NODE (-1)

/* Manager state of one lock: the last node that asked (-1: the lock is
 * free here) and the cycle of its request; the requests it queues itself
 * (TSR_LOCK_HANDOFF=manager), oldest first. */
typedef struct lock_mgr {
    int tail;
    uint32_t tail_cycle;
    peeker *peekers;
    successor *queue, **queue_end;
} lock_mgr;

static lock_mgr *mgr;
static asker *askers; /* per managed lock, one per node (asker_of) */
static pthread_mutex_t mgr_mutex = PTHREAD_MUTEX_INITIALIZER;

static asker *asker_of(int id, int node) { return &askers[(id / cfg.nodes) * cfg.nodes + node]; }

/* The lock of a message to the lock's manager: NULL if this node manages
 * it. */
static const char *not_managed(const tsr_msg_hdr *h)
{
    return lock_manager_of(lock_slot(h)) == cfg.node ? NULL : "a lock this node does not manage";
}

/* The manager grants a free lock (or one a bounce hands back). The request
 * was checked when it arrived (coh_lock_request_check). */
static void mgr_grant(int id, int node, const void *req, size_t rlen)
{
    pbuf out = {0};
    lock_own(coh_lock_grant(id, node, req, rlen, &out)
                 ? "its protocols refused a checked request" : NULL, id);
    lock_send_grant(id, node, &out);
    pbuf_free(&out);
}

static void forward(int id, int tail, uint32_t cycle, int node, const void *req, size_t rlen)
{
    if (tail == cfg.node)
        lock_own(lock_forwarded(id, node, cycle, req, rlen), id);
    else
        am_send(tail, MSG_LOCK_FWD, lock_wire_id(id), (uint64_t)node, cycle, req, rlen);
}

/* TSR_LOCK_HANDOFF=manager: a request for a held lock waits here. Called
 * with mgr_mutex held. */
static void enqueue(lock_mgr *l, int node, const void *req, size_t rlen)
{
    successor *w = malloc(sizeof *w);
    if (!w)
        log_die_status(1, "out of memory (lock queue)");
    *w = (successor){node, lock_copy(req, rlen), rlen, NULL};
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

/* A request, or a try (tsr_trylock), which is granted as a request when
 * the lock is free here and refused, never queued, when a node holds it or
 * waits for it: the refused cycle is then the node's last, closed, so its
 * next request is the following cycle and no release is due for it. */
static const char *ask(int id, int node, uint32_t cycle, const void *req, size_t rlen, int try)
{
    if (coh_lock_request_check(req, rlen))
        return "a malformed request";
    pthread_mutex_lock(&mgr_mutex);
    const char *why = acquire_refused(id, node, cycle);
    lock_mgr *l = &mgr[id];
    int tail = l->tail;
    uint32_t tail_cycle = l->tail_cycle;
    asker *a = asker_of(id, node);
    if (!why && try && tail >= 0) {
        *a = (asker){cycle, 0, NO_NODE, a->bounce};
        pthread_mutex_unlock(&mgr_mutex);
        lock_send_refusal(id, node, cycle); /* outside mgr_mutex, as forward() */
        return NULL;
    }
    if (!why) {
        *a = (asker){cycle, 1, NO_NODE, a->bounce};
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

const char *lock_mgr_acquire(int id, int node, uint32_t cycle, const void *req, size_t rlen)
{
    return ask(id, node, cycle, req, rlen, 0);
}

const char *lock_mgr_try(int id, int node, uint32_t cycle, const void *req, size_t rlen)
{
    return ask(id, node, cycle, req, rlen, 1);
}

static void answer_peek(int id, int node, uint64_t reply)
{
    pbuf out = {0};
    coh_lock_peek(id, &out);
    am_send(node, MSG_LOCK_DATA, lock_wire_id(id), reply, 0, out.p, out.len);
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

const char *lock_mgr_release(int id, int node, uint32_t cycle, const void *payload, size_t len)
{
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    asker *a = asker_of(id, node);
    const char *why = release_refused(a, cycle);
    if (!why && coh_lock_merge(id, node, payload, len))
        why = "a malformed release";
    if (!why) {
        *a = (asker){a->cycle, 0, NO_NODE, a->succ};
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
const char *lock_mgr_bounced(int id, int from, int node, const void *req, size_t rlen)
{
    if (coh_lock_request_check(req, rlen))
        return "a malformed request";
    pthread_mutex_lock(&mgr_mutex);
    asker *a = asker_of(id, from);
    int owed = a->bounce != NO_NODE && a->bounce == node;
    const char *why = owed ? NULL : "a bounce of a request the node does not owe";
    if (!why) {
        a->bounce = NO_NODE;
        mgr_grant(id, node, req, rlen);
    }
    pthread_mutex_unlock(&mgr_mutex);
    return why;
}

/* ---- Handlers -------------------------------------------------------------- */

static void on_lock_acq(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = not_managed(h);
    lock_judge(src, h, why ? why : lock_mgr_acquire(lock_slot(h), src, (uint32_t)h->arg[1],
                                                    payload, h->len));
}

static void on_lock_try(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = not_managed(h);
    lock_judge(src, h, why ? why : lock_mgr_try(lock_slot(h), src, (uint32_t)h->arg[1], payload,
                                                h->len));
}

static void on_lock_bounce(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = not_managed(h);
    lock_judge(src, h, why ? why : lock_mgr_bounced(lock_slot(h), src, (int)h->arg[1], payload,
                                                    h->len));
}

static void on_lock_rel(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = not_managed(h);
    if (!why)
        why = lock_mgr_release(lock_slot(h), src, (uint32_t)h->arg[1], payload, h->len);
    lock_judge(src, h, why);
    if (!why)
        coh_counted_arrival((uint32_t)h->arg[2]);
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
    int id = lock_slot(h);
    if (lock_manager_of(id) != cfg.node) {
        lock_judge(src, h, not_managed(h));
        return;
    }
    pthread_mutex_lock(&mgr_mutex);
    lock_mgr *l = &mgr[id];
    if (peek_waits(l, src)) {
        lock_judge(src, h, "a second peek while the node's first waits");
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

void lock_manager_init(void)
{
    /* One asker per node for each lock this node manages. */
    size_t nask = (size_t)(COH_LOCK_SLOTS / cfg.nodes + 1) * (size_t)cfg.nodes;
    mgr = calloc(COH_LOCK_SLOTS, sizeof *mgr);
    askers = calloc(nask, sizeof *askers);
    if (!mgr || !askers)
        log_die("out of memory (lock table)");
    for (int id = 0; id < COH_LOCK_SLOTS; id++)
        mgr[id].tail = -1;
    for (size_t k = 0; k < nask; k++)
        askers[k].succ = askers[k].bounce = NO_NODE;
    am_register(MSG_LOCK_ACQ, on_lock_acq);
    am_register(MSG_LOCK_TRY, on_lock_try);
    am_register(MSG_LOCK_BOUNCE, on_lock_bounce);
    am_register(MSG_LOCK_REL, on_lock_rel);
    am_register(MSG_LOCK_PEEK, on_lock_peek);
}
