/*
 * munin_manager.c - the page manager's decisions, on its comm thread: a
 * copy for whoever asks in the replicated protocols, and the transactions
 * of the single-writer protocols (conventional, migratory), which move the
 * master copy and invalidate the others before they grant. A request that
 * finds its page in such a transaction waits for the transaction's end.
 */
#include "coherence/munin/munin_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "util/log.h"

/* Orders the grants this comm thread sends after the copyset they join:
 * the manager's own releases read the copyset under it (munin_update.c). */
pthread_mutex_t mu_cs_mutex = PTHREAD_MUTEX_INITIALIZER;

static void grant(int dest, uint32_t p, uint32_t n, int access, int flags, uint64_t reply)
{
    uint64_t a0 = p | (uint64_t)n << 32 | (uint64_t)access << 48 | (uint64_t)flags << 56;
    int data = flags & G_DATA;
    mu_deliver(dest, MSG_MU_GRANT, a0, reply, 0, data ? page_rt(p) : NULL,
               data ? (size_t)n * PAGE_SIZE : 0, mu_on_grant);
}

/* ---- Requests that found their page busy, in arrival order ---------------- */

typedef struct deferred {
    struct deferred *next;
    int src, type;
    tsr_msg_hdr h;
    char payload[];
} deferred;
static deferred *waiting;
STATS_COUNTER(requests_deferred, "Munin requests a manager deferred behind a transaction");

static void defer(int src, const tsr_msg_hdr *h, const void *payload)
{
    deferred *d = malloc(sizeof *d + h->len);
    if (!d)
        log_die_status(1, "out of memory (Munin manager)");
    d->next = NULL;
    d->src = src;
    d->h = *h;
    if (h->len) /* an empty request's payload may be NULL */
        memcpy(d->payload, payload, h->len);
    deferred **at = &waiting;
    while (*at)
        at = &(*at)->next;
    *at = d;
    COUNTER_ADD(requests_deferred, 1);
}

static void on_req(int src, const tsr_msg_hdr *h, void *payload);
static void on_return(int src, const tsr_msg_hdr *h, void *payload);

/* The oldest request deferred on page p, taken off the list; NULL if none. */
static deferred *next_deferred(uint32_t p)
{
    for (deferred **at = &waiting; *at; at = &(*at)->next) {
        deferred *d = *at;
        if ((uint32_t)d->h.arg[0] == p) {
            *at = d->next;
            return d;
        }
    }
    return NULL;
}

/* The page's transaction ended: serve the requests that waited for it, in
 * arrival order, until one starts a transaction of its own (its end serves
 * the rest). A return, or a request served at once, starts none, so the
 * next one must be served now: nothing else would wake it. A request
 * served at once ends its transaction inside this loop and calls undefer
 * again for the same page; `draining` leaves that to the loop already
 * running. All of this runs on the comm thread. */
static void undefer(uint32_t p)
{
    static int64_t draining = -1;
    if (draining == p)
        return;
    int64_t outer = draining;
    draining = p;
    deferred *d;
    while (!has_flag(p, F_BUSY) && (d = next_deferred(p))) {
        if (d->h.type == MSG_MU_REQ)
            on_req(d->src, &d->h, d->payload);
        else
            on_return(d->src, &d->h, d->payload);
        free(d);
    }
    draining = outer;
}

/* ---- Single-writer protocols: ownership transactions ---------------------- */

/* The transaction's end: every invalidation it sent has been acked. */
static void own_done(mu_ctx *t)
{
    uint32_t p = t->page;
    mu_page *m = &mu[p];
    if (t->want == A_READ) {
        m->owner = (int16_t)cfg.node; /* the master copy is back in our rt */
        atomic_fetch_or(&m->cs, bit(t->src));
    } else {
        m->owner = (int16_t)t->src;
        atomic_store(&m->cs, bit(t->src));
    }
    grant(t->src, p, 1, t->want, t->want == A_READ || !t->had_copy ? G_DATA : 0, t->reply);
    clear_flag(p, F_BUSY);
    free(t);
    undefer(p);
}

static void local_inval(uint32_t p, int mode)
{
    if (access_of(p) != A_NONE)
        mu_set_access(p, 1, mode == INV_DROP ? A_NONE : A_READ);
}

/* Ivy's manager: a reader gets a copy once the writer (if any) has been
 * write-protected and has sent the master back; a writer gets the page once
 * every other copy is gone. */
static void own_serve(int src, uint32_t p, int want, uint64_t reply)
{
    mu_page *m = &mu[p];
    mu_ctx *t = mu_ctx_new(own_done, src, reply);
    uint64_t cs = atomic_load(&m->cs);
    uint32_t pending = 0;
    t->page = p;
    t->want = want;
    t->had_copy = (cs & bit(src)) != 0;
    if (want == A_READ) {
        if (m->owner == cfg.node)
            local_inval(p, INV_DOWNGRADE);
        else if (m->owner != src) {
            am_send(m->owner, MSG_MU_INVAL, p | (uint64_t)INV_DOWNGRADE << 32,
                    req_open(m->owner, MSG_MU_INVAL_ACK, t), 0, NULL, 0);
            pending++;
        }
    } else {
        for (int j = 0; j < cfg.nodes; j++) {
            if (j == src || !(cs & bit(j)))
                continue;
            if (j == cfg.node) {
                local_inval(p, INV_DROP);
                continue;
            }
            am_send(j, MSG_MU_INVAL, p | (uint64_t)INV_DROP << 32,
                    req_open(j, MSG_MU_INVAL_ACK, t), 0, NULL, 0);
            pending++;
        }
    }
    if (pending)
        set_flag(p, F_BUSY);
    mu_ctx_start(t, pending);
}

static void on_inval_ack(int src, const tsr_msg_hdr *h, void *payload)
{
    mu_ctx *t = req_ctx(h->arg[1]);
    if (h->arg[0] != t->page || (h->len && h->len != PAGE_SIZE)) {
        am_reject(src, h, "an ack for another page than the one invalidated");
        return;
    }
    req_close(h->arg[1]);
    if (h->len)
        memcpy(page_rt(t->page), payload, PAGE_SIZE);
    mu_ctx_ack(t);
}

/* ---- Replicated protocols: copies ----------------------------------------- */

/* A copy for whoever asks, who joins the copyset - unless the copyset is
 * frozen and it is not in it. The grant is sent with mu_cs_mutex held: a
 * release by this node that then finds the requester in the copyset sends
 * its update after the copy, on the same connection. A requester already
 * in the next barrier epoch is marked early: it read nothing of the epoch
 * whose end this node is about to judge (munin_freeze.c). */
static void share_serve(int src, uint32_t p, uint32_t n, uint64_t reply, int early)
{
    pthread_mutex_lock(&mu_cs_mutex);
    for (uint32_t i = 0; i < n; i++)
        if (has_flag(p + i, F_FROZEN) && !(atomic_load(&mu[p + i].cs) & bit(src))) {
            pthread_mutex_unlock(&mu_cs_mutex);
            grant(src, p + i, 1, A_NONE, G_REFUSED, reply);
            return;
        }
    for (uint32_t i = 0; i < n; i++) {
        if (early && !(atomic_load(&mu[p + i].cs) & bit(src)))
            atomic_fetch_or(&mu[p + i].early, bit(src));
        if (src == cfg.node)
            set_flag(p + i, F_MREAD);
        atomic_fetch_or(&mu[p + i].cs, bit(src));
    }
    grant(src, p, n, A_READ, G_DATA, reply);
    pthread_mutex_unlock(&mu_cs_mutex);
}

static int ownership(uint32_t p)
{
    return mu[p].mech == MECH_CONVENTIONAL || mu[p].mech == MECH_MIGRATORY;
}

static void on_req(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0], n = (uint32_t)(h->arg[0] >> 32) & 0xffff;
    int want = (int)(h->arg[0] >> 48) & 0xff, early = mu_join_early(h->arg[2]);
    if (!mu_managed_by(p, n, cfg.node) || (want != A_READ && want != A_OWNED) || early < 0) {
        am_reject(src, h, "a request for pages not managed here, for an unknown access, or "
                  "from an epoch neither this one nor the next");
        return;
    }
    if (!ownership(p)) {
        share_serve(src, p, n, h->arg[1], early);
        return;
    }
    if (has_flag(p, F_BUSY))
        defer(src, h, payload);
    else
        own_serve(src, p, want, h->arg[1]);
}

/* A node gives its copy up (tsr_hint_invalidate, change of annotation). */
static void on_return(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0];
    mu_page *m = &mu[p];
    if (!mu_managed_by(p, 1, cfg.node)) {
        am_reject(src, h, "returns a page not managed here");
        return;
    }
    if (ownership(p) && has_flag(p, F_BUSY)) {
        defer(src, h, payload);
        return;
    }
    pthread_mutex_lock(&mu_cs_mutex);
    if (ownership(p) && m->owner == src) {
        if (h->len)
            memcpy(page_rt(p), payload, PAGE_SIZE);
        m->owner = (int16_t)cfg.node;
    }
    atomic_fetch_and(&m->cs, ~bit(src));
    pthread_mutex_unlock(&mu_cs_mutex);
    grant(src, p, 1, A_NONE, 0, h->arg[1]);
}

void mu_manager_init(void)
{
    am_register(MSG_MU_REQ, on_req);
    am_register(MSG_MU_RETURN, on_return);
    am_register(MSG_MU_INVAL_ACK, on_inval_ack);
    stats_register(&requests_deferred);
}
