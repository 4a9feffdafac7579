/*
 * munin.c - Munin's multiple consistency protocols (Carter, Bennett and
 * Zwaenepoel, SOSP 1991), over Tessera's transport, locks and barriers.
 *
 * Every page has a manager, its home (tsr_attr placement): the owner of the
 * fixed-owner protocols, the keeper of the page's copyset, and the master
 * copy's holder except while an ownership protocol has lent it out. All
 * manager decisions run on the manager's comm thread, including those for
 * its own application thread (which posts its requests to itself), so they
 * are serialized without locks.
 *
 *   read-only     a miss fetches a copy from the manager; a write stops the job.
 *   conventional  Ivy: a read miss gets a copy; a write miss makes the
 *                 manager invalidate every other copy (getting the master
 *                 back from a writer) before granting write access. Not delayed.
 *   migratory     the same with every miss treated as a write: the one copy moves.
 *   write-shared  the delayed update queue (DUQ): the first write after a
 *                 release twins the page and queues it; a release diffs it
 *                 and sends the diff to every copy holder, merged per
 *                 destination. The manager knows the copyset: its own
 *                 releases read it directly, other writers send their diffs
 *                 through the manager, which forwards them ("with the
 *                 owner's help", Section 3.3).
 *   producer-consumer  write-shared whose copyset freezes at the end of the
 *                 second barrier epoch with updates to the page (the first
 *                 is normally its initialization, the second the first
 *                 iteration that reads and writes it): the manager then
 *                 tells the writers the copyset, they update the consumers
 *                 directly, a page nobody else holds stops faulting, and a
 *                 miss by any other node is a runtime error.
 *   result        the DUQ, with diffs sent to the manager only, after which
 *                 the local copy is dropped.
 *   reduction     Fetch_and_Phi performed by the manager, which updates (or,
 *                 with I set, invalidates) the copies before it answers.
 *
 * Release consistency: a release (unlock, or acquire, which ends the
 * interval too) waits until its updates are applied everywhere; at a
 * barrier the updates go without acks and the barrier makes each receiver
 * wait for the number it was sent (coh_counted_arrival).
 */
#include "coherence/munin.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "coherence/coherence.h"
#include "coherence/diff.h"
#include "coherence/outbox.h"
#include "coherence/protocol.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* This node's access to a page; the protection of the application view follows it. */
enum { A_NONE, A_READ, A_WRITE /* twinned, queued */, A_OWNED /* writable, no twin */ };

enum {
    F_QUEUED = 1,  /* on the DUQ */
    F_FROZEN = 2,  /* stable copyset fixed (manager) or known (writer) */
    F_UPDATED = 4, /* manager: updated during this epoch */
    F_SINGLE = 8,  /* a miss fetches the whole object */
    F_BOUND = 16,  /* travels with a lock (tsr_hint_lock_data) */
    F_BUSY = 32,   /* manager: an ownership transaction is under way */
};

/* Grant flags (MSG_MU_GRANT arg0 bits 56..63). */
enum { G_DATA = 1, G_REFUSED = 2 };
/* Update entry flags (outbox flags). */
enum { U_FORWARD = 1 };
/* MSG_MU_INVAL modes. */
enum { INV_DROP, INV_DOWNGRADE };

typedef struct mu_page {
    _Atomic uint64_t cs;      /* manager: nodes with a copy; writer: the frozen copyset */
    _Atomic uint64_t writers; /* manager: nodes whose diffs it forwarded this epoch */
    uint32_t first, npages;   /* the object (allocation) */
    _Atomic uint8_t access;
    _Atomic uint8_t flags;
    uint8_t params, annot, mech;
    int16_t owner;            /* manager, ownership protocols: holder of the master copy */
    uint16_t lock;            /* F_BOUND: the lock */
    uint8_t quiet_epochs;     /* manager, stable pages: update epochs that reached nobody */
    atomic_flag busy;         /* twin and diff against an incoming update */
} mu_page;

static mu_page *mu;
/* The delayed update queue, and the copyset lock that orders a manager's
 * own releases after the page grants its comm thread has sent. */
static uint32_t *duq;
static uint32_t nduq;
static pthread_mutex_t cs_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Objects by first page, for walks over whole objects (application thread). */
typedef struct object {
    uint32_t first, n;
} object;
static object *objects;
static uint32_t nobjects, capobjects;

static uint64_t bit(int node) { return (uint64_t)1 << node; }
static int home(uint32_t p) { return region.meta[p].home; }
static int is_home(uint32_t p) { return home(p) == cfg.node; }
static int access_of(uint32_t p) { return atomic_load(&mu[p].access); }
static int has_flag(uint32_t p, int f) { return (atomic_load(&mu[p].flags) & f) != 0; }
static void set_flag(uint32_t p, int f) { atomic_fetch_or(&mu[p].flags, (uint8_t)f); }
static void clear_flag(uint32_t p, int f) { atomic_fetch_and(&mu[p].flags, (uint8_t)~f); }
static int stable(uint32_t p) { return (mu[p].params & TSR_MUNIN_STABLE) != 0; }

static void page_lock(uint32_t p)
{
    while (atomic_flag_test_and_set_explicit(&mu[p].busy, memory_order_acquire))
        cpu_relax();
}
static void page_unlock(uint32_t p) { atomic_flag_clear_explicit(&mu[p].busy, memory_order_release); }

static int prot_of(int access)
{
    return access == A_NONE ? PROT_NONE : access == A_READ ? PROT_READ : PROT_READ | PROT_WRITE;
}

static void set_access(uint32_t p, uint32_t n, int access)
{
    for (uint32_t i = 0; i < n; i++)
        atomic_store(&mu[p + i].access, (uint8_t)access);
    page_protect(p, n, prot_of(access));
}

/* ---- Parameters ----------------------------------------------------------- */

int munin_mech_of(unsigned params, const char **why)
{
    unsigned I = params & TSR_MUNIN_INVALIDATE, R = params & TSR_MUNIN_REPLICAS,
             D = params & TSR_MUNIN_DELAYED, FO = params & TSR_MUNIN_FIXED_OWNER,
             M = params & TSR_MUNIN_MULTI_WRITER, Fl = params & TSR_MUNIN_FLUSH_OWNER;
    *why = NULL;
    if (!(params & TSR_MUNIN_WRITABLE))
        return MECH_READ_ONLY;
    if (!R) {
        if (FO || M)
            *why = "a single copy can neither stay at a fixed owner nor have several writers";
        return *why ? -1 : MECH_MIGRATORY;
    }
    if (D && M) {
        if (Fl)
            return MECH_RESULT;
        if (I)
            *why = "delayed invalidations with multiple writers were never built in Munin";
        else if (FO)
            *why = "delayed updates relayed by a fixed owner are not implemented (use FLUSH_OWNER)";
        return *why ? -1 : MECH_UPDATE;
    }
    if (D || M || Fl)
        *why = "delayed operations, multiple writers and flush-to-owner only exist together";
    else if (FO)
        return MECH_REDUCTION;
    else if (!I)
        *why = "immediate updates without a fixed owner are not implemented";
    return *why ? -1 : MECH_CONVENTIONAL;
}

const char *munin_annot_name(int annot)
{
    static const char *const names[] = {"conventional", "read_only", "migratory",
                                        "write_shared", "producer_consumer", "reduction",
                                        "result", "parameters"};
    return annot >= 0 && annot <= TSR_ANNOT_PARAMS ? names[annot] : "?";
}

/* ---- Runtime errors ------------------------------------------------------- */

static void die_on(uint32_t p, const char *what)
{
    mu_page *m = &mu[p];
    log_die_status(1, "%s shared variable at %p (annotation %s, parameters 0x%02x; object at %p, "
                   "%zu bytes)", what, (void *)page_app(p), munin_annot_name(m->annot), m->params,
                   (void *)page_app(m->first), (size_t)m->npages * PAGE_SIZE);
}

/* ---- Requests to the manager (application thread, signal-safe) ------------- */

typedef struct mu_reply {
    waiter w;
    _Atomic uint32_t refused; /* 1 + a page the manager refused */
    uint64_t value;           /* reductions: the old value */
} mu_reply;

/* Posts one request per run of pages that share a manager and waits for
 * all the grants: the misses of a whole object in one exchange per manager. */
#define MAX_RUNS 16
static void request_runs(uint32_t first, uint32_t n, int want)
{
    mu_reply r = {0};
    am_msg m[MAX_RUNS];
    int runs = 0;
    uint32_t i = 0;
    double t0 = now_s();
    waiter_init(&r.w, 0);
    while (i < n) {
        if (access_of(first + i) != A_NONE && want == A_READ) {
            i++;
            continue;
        }
        uint32_t j = i + 1;
        while (j < n && j - i < 0xffff && home(first + j) == home(first + i) &&
               access_of(first + j) == A_NONE)
            j++;
        if (runs == MAX_RUNS) { /* wait for this batch before posting more */
            waiter_wait(&r.w);
            runs = 0;
        }
        atomic_fetch_add(&r.w.pending, 1);
        uint64_t a0 = (first + i) | (uint64_t)(j - i) << 32 | (uint64_t)want << 48;
        am_post(home(first + i), &m[runs++], MSG_MU_REQ, a0, (uintptr_t)&r, 0, NULL, 0);
        i = j;
    }
    waiter_wait(&r.w);
    STAT_TIME(fault_wait_s, now_s() - t0);
    uint32_t refused = atomic_load(&r.refused);
    if (refused)
        die_on(refused - 1, "access outside the stable sharing pattern (call "
                            "tsr_hint_phase_change first) to");
}

static void fetch(uint32_t p)
{
    if (has_flag(p, F_SINGLE))
        request_runs(mu[p].first, mu[p].npages, A_READ);
    else
        request_runs(p, 1, A_READ);
}

void munin_fetch(uint32_t first, uint32_t n)
{
    for (uint32_t p = first; p < first + n; p++) {
        int mech = mu[p].mech;
        if (access_of(p) != A_NONE || has_flag(p, F_BOUND))
            continue;
        if (mech == MECH_CONVENTIONAL || mech == MECH_MIGRATORY)
            request_runs(p, 1, mech == MECH_MIGRATORY ? A_OWNED : A_READ);
        else
            request_runs(p, first + n - p, A_READ);
    }
}

/* ---- Faults (SIGSEGV handler context) ------------------------------------- */

static void enqueue(uint32_t p)
{
    if (has_flag(p, F_QUEUED))
        return;
    set_flag(p, F_QUEUED);
    duq[nduq++] = p;
}

/* The first write since the last release: twin the page, queue it. The twin
 * is taken under the page lock so that an update applied meanwhile lands
 * in both the copy and the twin, and is never mistaken for a local write. */
static void twin_and_queue(uint32_t p)
{
    page_lock(p);
    memcpy(page_twin(p), page_rt(p), PAGE_SIZE);
    atomic_store(&mu[p].access, A_WRITE);
    page_unlock(p);
    enqueue(p);
    page_protect(p, 1, PROT_READ | PROT_WRITE);
    STAT_ADD(twins, 1);
}

static void bound_fault(uint32_t p, int is_write);

static void fault(uint32_t p, int is_write)
{
    mu_page *m = &mu[p];
    int acc = access_of(p);
    if (is_write < 0)
        is_write = acc != A_NONE;
    if (acc == A_OWNED || acc == A_WRITE || (acc == A_READ && !is_write))
        return; /* granted by the comm thread since the fault */
    if (is_write)
        STAT_ADD(write_faults, 1);
    else
        STAT_ADD(read_faults, 1);
    if (has_flag(p, F_BOUND)) {
        bound_fault(p, is_write);
        return;
    }
    switch (m->mech) {
    case MECH_READ_ONLY:
        if (is_write)
            die_on(p, "write to read-only");
        fetch(p);
        return;
    case MECH_REDUCTION:
        if (is_write)
            die_on(p, "plain write (use tsr_reduce_i64/f64) to reduction");
        fetch(p);
        return;
    case MECH_CONVENTIONAL:
        request_runs(p, 1, is_write ? A_OWNED : A_READ);
        return;
    case MECH_MIGRATORY:
        request_runs(p, 1, A_OWNED);
        return;
    default: /* MECH_UPDATE, MECH_RESULT: the delayed update queue */
        if (acc == A_NONE)
            fetch(p);
        if (is_write)
            twin_and_queue(p);
        else if (m->mech == MECH_RESULT)
            enqueue(p); /* a result copy is dropped at the next release */
    }
}

/* ---- Grants and invalidations (requester's comm thread) -------------------- */

static void on_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0], n = (uint32_t)(h->arg[0] >> 32) & 0xffff;
    int access = (int)(h->arg[0] >> 48) & 0xff, flags = (int)(h->arg[0] >> 56);
    mu_reply *r = (mu_reply *)(uintptr_t)h->arg[1];
    if (flags & G_REFUSED) {
        atomic_store(&r->refused, p + 1);
    } else {
        if (h->len) {
            memcpy(page_rt(p), payload, (size_t)n * PAGE_SIZE);
            STAT_ADD(page_fetches, n);
        }
        set_access(p, n, access);
    }
    waiter_done(&r->w);
}

static void on_inval(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0];
    int mode = (int)(h->arg[0] >> 32);
    int was_owner = access_of(p) == A_OWNED;
    /* Protect before reading: no write may slip in after the copy is taken. */
    if (access_of(p) != A_NONE)
        set_access(p, 1, mode == INV_DROP ? A_NONE : A_READ);
    am_send(src, MSG_MU_INVAL_ACK, p, h->arg[1], 0, was_owner ? page_rt(p) : NULL,
            was_owner ? PAGE_SIZE : 0);
    STAT_ADD(invalidations, 1);
}

/* ---- The manager (its comm thread) ------------------------------------------ */

/* A manager action waiting for acks: the app thread's release, or a
 * continuation run by the comm thread when the last ack arrives. */
typedef struct mu_ctx {
    waiter w;
    void (*done)(struct mu_ctx *);
    int src;          /* who asked */
    uint64_t reply;   /* and its reply handle */
    uint64_t value;   /* reduction: the old value */
    uint32_t page;
    int want, had_copy;
} mu_ctx;

static mu_ctx *ctx_new(void (*done)(mu_ctx *), int src, uint64_t reply)
{
    mu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        log_die_status(1, "out of memory (Munin manager)");
    c->done = done;
    c->src = src;
    c->reply = reply;
    return c;
}

static void ctx_ack(mu_ctx *c)
{
    if (!c->done)
        waiter_done(&c->w);
    else if (atomic_fetch_sub(&c->w.pending, 1) == 1)
        c->done(c);
}

/* Runs a continuation now if nothing is pending, else once the acks are in. */
static void ctx_start(mu_ctx *c, uint32_t pending)
{
    if (!pending)
        c->done(c);
    else
        atomic_store(&c->w.pending, pending);
}

/* Messages from the manager to itself skip the transport: the comm thread
 * runs the handler at once. */
static void deliver(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                    const void *payload, size_t len, am_handler_fn self_handler)
{
    if (dest != cfg.node) {
        am_send(dest, type, a0, a1, a2, payload, len);
        return;
    }
    tsr_msg_hdr h = {0, (uint16_t)type, (uint16_t)cfg.node, {a0, a1, a2}};
    self_handler(cfg.node, &h, NULL); /* the data is already here */
}

static void grant(int dest, uint32_t p, uint32_t n, int access, int flags, uint64_t reply)
{
    uint64_t a0 = p | (uint64_t)n << 32 | (uint64_t)access << 48 | (uint64_t)flags << 56;
    int data = flags & G_DATA;
    deliver(dest, MSG_MU_GRANT, a0, reply, 0, data ? page_rt(p) : NULL,
            data ? (size_t)n * PAGE_SIZE : 0, on_grant);
}

/* Requests that found their page busy, in arrival order. */
typedef struct deferred {
    struct deferred *next;
    int src, type;
    tsr_msg_hdr h;
    char payload[];
} deferred;
static deferred *waiting;

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
}

static void on_req(int src, const tsr_msg_hdr *h, void *payload);
static void on_return(int src, const tsr_msg_hdr *h, void *payload);

/* The page's transaction ended: serve the oldest request that waited for it. */
static void undefer(uint32_t p)
{
    for (deferred **at = &waiting; *at; at = &(*at)->next) {
        deferred *d = *at;
        if ((uint32_t)d->h.arg[0] != p)
            continue;
        *at = d->next;
        if (d->h.type == MSG_MU_REQ)
            on_req(d->src, &d->h, d->payload);
        else
            on_return(d->src, &d->h, d->payload);
        free(d);
        return;
    }
}

/* Ownership protocols (conventional, migratory): the transaction's end. */
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
        set_access(p, 1, mode == INV_DROP ? A_NONE : A_READ);
}

/* Ivy's manager: a reader gets a copy once the writer (if any) has been
 * write-protected and has sent the master back; a writer gets the page once
 * every other copy is gone. */
static void own_serve(int src, uint32_t p, int want, uint64_t reply)
{
    mu_page *m = &mu[p];
    mu_ctx *t = ctx_new(own_done, src, reply);
    uint64_t cs = atomic_load(&m->cs);
    uint32_t pending = 0;
    t->page = p;
    t->want = want;
    t->had_copy = (cs & bit(src)) != 0;
    if (want == A_READ) {
        if (m->owner == cfg.node)
            local_inval(p, INV_DOWNGRADE);
        else if (m->owner != src) {
            am_send(m->owner, MSG_MU_INVAL, p | (uint64_t)INV_DOWNGRADE << 32, (uintptr_t)t, 0,
                    NULL, 0);
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
            am_send(j, MSG_MU_INVAL, p | (uint64_t)INV_DROP << 32, (uintptr_t)t, 0, NULL, 0);
            pending++;
        }
    }
    if (pending)
        set_flag(p, F_BUSY);
    ctx_start(t, pending);
}

static void on_inval_ack(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0];
    if (h->len)
        memcpy(page_rt(p), payload, PAGE_SIZE);
    ctx_ack((mu_ctx *)(uintptr_t)h->arg[1]);
}

/* Replicated protocols: a copy for whoever asks, who joins the copyset -
 * unless the copyset is frozen and it is not in it. The grant is sent with
 * cs_mutex held: a release by this node that then finds the requester in
 * the copyset sends its update after the copy, on the same connection. */
static void share_serve(int src, uint32_t p, uint32_t n, uint64_t reply)
{
    pthread_mutex_lock(&cs_mutex);
    for (uint32_t i = 0; i < n; i++)
        if (has_flag(p + i, F_FROZEN) && !(atomic_load(&mu[p + i].cs) & bit(src))) {
            pthread_mutex_unlock(&cs_mutex);
            grant(src, p + i, 1, A_NONE, G_REFUSED, reply);
            return;
        }
    for (uint32_t i = 0; i < n; i++)
        atomic_fetch_or(&mu[p + i].cs, bit(src));
    grant(src, p, n, A_READ, G_DATA, reply);
    pthread_mutex_unlock(&cs_mutex);
}

static int ownership(uint32_t p)
{
    return mu[p].mech == MECH_CONVENTIONAL || mu[p].mech == MECH_MIGRATORY;
}

static void on_req(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0], n = (uint32_t)(h->arg[0] >> 32) & 0xffff;
    int want = (int)(h->arg[0] >> 48) & 0xff;
    if (p >= region.npages || p + n > region.npages || !is_home(p) || !mu[p].npages)
        log_die_status(1, "protocol error: Munin request for page %u from node %d", p, src);
    if (!ownership(p)) {
        share_serve(src, p, n, h->arg[1]);
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
    if (ownership(p) && has_flag(p, F_BUSY)) {
        defer(src, h, payload);
        return;
    }
    pthread_mutex_lock(&cs_mutex);
    if (ownership(p) && m->owner == src) {
        if (h->len)
            memcpy(page_rt(p), payload, PAGE_SIZE);
        m->owner = (int16_t)cfg.node;
    }
    atomic_fetch_and(&m->cs, ~bit(src));
    pthread_mutex_unlock(&cs_mutex);
    grant(src, p, 1, A_NONE, 0, h->arg[1]);
}

/* ---- Updates ---------------------------------------------------------------- */

/* Applies one diff to this node's copy, and to its twin when the page is
 * being written here too (its own diff must not contain these bytes). */
static void apply_update(int src, uint32_t p, const uint8_t *diff, size_t len)
{
    if (p >= region.npages || !mu[p].npages)
        log_die_status(1, "protocol error: Munin update for page %u from node %d", p, src);
    page_lock(p);
    int acc = access_of(p);
    int bad = acc != A_NONE && diff_apply((uint8_t *)page_rt(p), diff, len);
    if (acc == A_WRITE)
        bad |= diff_apply((uint8_t *)page_twin(p), diff, len);
    page_unlock(p);
    if (bad)
        log_die_status(1, "protocol error: bad Munin diff for page %u from node %d", p, src);
    STAT_ADD(diffs_applied, 1);
}

static void send_update(int dest, outbox *o, mu_ctx *ack_ctx)
{
    am_send(dest, MSG_MU_UPDATE, o->count, (uintptr_t)ack_ctx, coh_epoch(), o->buf, o->len);
    STAT_ADD(updates_sent, 1);
}

static void ack_update(mu_ctx *c)
{
    am_send(c->src, MSG_MU_UPDATE_ACK, 0, c->reply, 0, NULL, 0);
    free(c);
}

/* The manager relays a non-manager's diff to the other copy holders. */
static void forward(int src, uint32_t p, const uint8_t *diff, size_t len, outbox *fwd)
{
    uint64_t to = atomic_load(&mu[p].cs) & ~bit(src) & ~bit(cfg.node);
    atomic_fetch_or(&mu[p].writers, bit(src));
    set_flag(p, F_UPDATED);
    for (int j = 0; j < cfg.nodes; j++)
        if (to & bit(j))
            outbox_add(&fwd[j], p, 0, diff, len);
}

static void on_update(int src, const tsr_msg_hdr *h, void *payload)
{
    outbox *fwd = NULL;
    size_t pos = 0;
    for (uint32_t i = 0; i < (uint32_t)h->arg[0]; i++) {
        uint32_t p;
        uint8_t flags;
        const uint8_t *diff;
        size_t len;
        if (outbox_next(payload, h->len, &pos, &p, &flags, &diff, &len))
            log_die_status(1, "protocol error: truncated Munin update from node %d", src);
        apply_update(src, p, diff, len);
        if (flags & U_FORWARD) {
            if (!fwd && !(fwd = calloc((size_t)cfg.nodes, sizeof *fwd)))
                log_die_status(1, "out of memory (Munin forward)");
            forward(src, p, diff, len, fwd);
        }
    }
    STAT_ADD(updates_applied, 1);
    if (!h->arg[1]) {
        coh_counted_arrival((uint32_t)h->arg[2]);
        return;
    }
    mu_ctx *c = ctx_new(ack_update, src, h->arg[1]);
    uint32_t pending = 0;
    for (int j = 0; fwd && j < cfg.nodes; j++)
        if (fwd[j].count) {
            send_update(j, &fwd[j], c);
            pending++;
        }
    for (int j = 0; fwd && j < cfg.nodes; j++)
        outbox_free(&fwd[j]);
    free(fwd);
    ctx_start(c, pending);
}

static void on_update_ack(int src, const tsr_msg_hdr *h, void *payload)
{
    ctx_ack((mu_ctx *)(uintptr_t)h->arg[1]);
}

/* A producer_consumer page's copyset froze: update its consumers directly. */
static void on_frozen(int src, const tsr_msg_hdr *h, void *payload)
{
    size_t pos = 0;
    for (uint64_t i = 0; i < h->arg[0]; i++) {
        uint32_t p;
        uint8_t flags;
        const uint8_t *cs;
        size_t len;
        if (outbox_next(payload, h->len, &pos, &p, &flags, &cs, &len) || len != 8 ||
            p >= region.npages)
            log_die_status(1, "protocol error: bad copyset message from node %d", src);
        uint64_t v;
        memcpy(&v, cs, sizeof v);
        atomic_store(&mu[p].cs, v);
        set_flag(p, F_FROZEN);
    }
}

/* ---- Release: flushing the DUQ -------------------------------------------------- */

/* Where a written page's diff goes: 0 bits and U_FORWARD when only the
 * manager knows (it relays), else the copy holders. */
static uint64_t destinations(uint32_t p, uint8_t *flags)
{
    *flags = 0;
    if (mu[p].mech == MECH_RESULT)
        return bit(home(p));
    if (is_home(p)) {
        set_flag(p, F_UPDATED);
        pthread_mutex_lock(&cs_mutex);
        uint64_t cs = atomic_load(&mu[p].cs);
        pthread_mutex_unlock(&cs_mutex);
        return cs & ~bit(cfg.node);
    }
    if (has_flag(p, F_FROZEN))
        return atomic_load(&mu[p].cs) & ~bit(cfg.node);
    *flags = U_FORWARD;
    return bit(home(p));
}

/* Ends the page's interval: write-protects it and adds its diff to the
 * outbox of each destination. A result copy is dropped afterwards. */
static void flush_page(uint32_t p, outbox *box, uint8_t *acked)
{
    static uint8_t scratch[DIFF_MAX];
    int acc = access_of(p);
    clear_flag(p, F_QUEUED);
    if (acc == A_WRITE) {
        page_protect(p, 1, PROT_READ);
        uint8_t flags;
        uint64_t to = destinations(p, &flags);
        page_lock(p);
        size_t len = to ? diff_encode((uint8_t *)page_twin(p), (uint8_t *)page_rt(p), scratch) : 0;
        atomic_store(&mu[p].access, A_READ);
        page_unlock(p);
        if (len) {
            STAT_ADD(diffs_created, 1);
            STAT_ADD(diff_bytes, len);
        }
        for (int j = 0; len && j < cfg.nodes; j++)
            if (to & bit(j)) {
                outbox_add(&box[j], p, flags, scratch, len);
                acked[j] |= flags & U_FORWARD;
            }
    }
    if (mu[p].mech == MECH_RESULT || has_flag(p, F_BOUND))
        set_access(p, 1, A_NONE);
}

/* Flushes the queued pages of [lo, hi): one message per destination. */
static void flush_range(uint32_t lo, uint32_t hi, uint32_t *sent)
{
    if (!nduq)
        return;
    outbox *box = calloc((size_t)cfg.nodes, sizeof *box);
    uint8_t *acked = calloc((size_t)cfg.nodes, 1);
    if (!box || !acked)
        log_die("out of memory (Munin release)");
    uint32_t kept = 0;
    for (uint32_t i = 0; i < nduq; i++) {
        uint32_t p = duq[i];
        if (p < lo || p >= hi)
            duq[kept++] = p;
        else
            flush_page(p, box, acked);
    }
    nduq = kept;
    mu_ctx c = {0};
    waiter_init(&c.w, 0);
    for (int j = 0; j < cfg.nodes; j++) {
        if (!box[j].count)
            continue;
        if (sent && !acked[j]) {
            sent[j]++;
            send_update(j, &box[j], NULL);
        } else {
            atomic_fetch_add(&c.w.pending, 1);
            send_update(j, &box[j], &c);
        }
    }
    waiter_wait(&c.w);
    for (int j = 0; j < cfg.nodes; j++)
        outbox_free(&box[j]);
    free(box);
    free(acked);
}

static void flush(uint32_t *sent) { flush_range(0, region.npages, sent); }

void munin_flush_object(uint32_t first, uint32_t n) { flush_range(first, first + n, NULL); }

/* ---- Barrier: freezing producer_consumer copysets ------------------------------ */

/* Producer_consumer learns each page's sharing pattern from its updates:
 * the first epoch whose update reaches another node shows who its consumers
 * are, and its copyset is fixed then. An update that reaches nobody teaches
 * nothing (an owner initialising its data, or red-black SOR's first sweep
 * over the red matrix, which nobody has read yet); a page updated in
 * QUIET_EPOCHS epochs that reached nobody is taken to be private. */
#define QUIET_EPOCHS 3

static int reached_others(uint32_t p)
{
    return ((atomic_load(&mu[p].cs) | atomic_load(&mu[p].writers)) & ~bit(cfg.node)) != 0;
}

/* Fixes a page's copyset: the manager tells the writers that went through
 * it, and a page only the manager holds becomes private (writable, no more
 * faults). */
static void freeze(uint32_t p, outbox *tell)
{
    set_flag(p, F_FROZEN);
    uint64_t cs = atomic_load(&mu[p].cs), writers = atomic_load(&mu[p].writers);
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node && (writers & bit(j)))
            outbox_add(&tell[j], p, 0, &cs, sizeof cs);
    if (cs == bit(cfg.node) && access_of(p) == A_READ)
        set_access(p, 1, A_OWNED);
}

static void barrier_done(void)
{
    outbox *tell = calloc((size_t)cfg.nodes, sizeof *tell);
    if (!tell)
        log_die("out of memory (Munin barrier)");
    for (uint32_t o = 0; o < nobjects; o++) {
        uint32_t first = objects[o].first;
        if (mu[first].mech != MECH_UPDATE || !stable(first))
            continue;
        for (uint32_t p = first; p < first + objects[o].n; p++) {
            if (!is_home(p) || !has_flag(p, F_UPDATED) || has_flag(p, F_FROZEN))
                continue;
            clear_flag(p, F_UPDATED);
            if (reached_others(p) || ++mu[p].quiet_epochs >= QUIET_EPOCHS)
                freeze(p, tell);
        }
    }
    for (int j = 0; j < cfg.nodes; j++) {
        if (tell[j].count)
            am_send(j, MSG_MU_FROZEN, tell[j].count, 0, 0, tell[j].buf, tell[j].len);
        outbox_free(&tell[j]);
    }
    free(tell);
}

/* ---- Reductions: Fetch_and_Phi at the owner ------------------------------------ */

#define OFFSET_MASK (((uint64_t)1 << 48) - 1)

static uint64_t apply_op(tsr_op op, int is_double, uint64_t cur, uint64_t operand)
{
    if (op == TSR_OP_SWAP)
        return operand;
    if (is_double) {
        double a, b, r;
        memcpy(&a, &cur, 8);
        memcpy(&b, &operand, 8);
        r = op == TSR_OP_ADD ? a + b : op == TSR_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
        memcpy(&cur, &r, 8);
        return cur;
    }
    int64_t a = (int64_t)cur, b = (int64_t)operand;
    int64_t r = op == TSR_OP_ADD ? (int64_t)((uint64_t)a + (uint64_t)b)
                : op == TSR_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
    return (uint64_t)r;
}

static void on_reduce_rep(int src, const tsr_msg_hdr *h, void *payload)
{
    mu_reply *r = (mu_reply *)(uintptr_t)h->arg[1];
    r->value = h->arg[2];
    waiter_done(&r->w);
}

static void reduce_done(mu_ctx *c)
{
    deliver(c->src, MSG_MU_REDUCE_REP, 0, c->reply, c->value, NULL, 0, on_reduce_rep);
    free(c);
}

/* The owner performs the operation, then updates (or invalidates) every
 * other copy before it answers: the result is visible to all once the
 * caller has it. */
static void on_reduce(int src, const tsr_msg_hdr *h, void *payload)
{
    uint64_t off = h->arg[0] & OFFSET_MASK;
    tsr_op op = (tsr_op)((h->arg[0] >> 48) & 0xff);
    int is_double = (int)(h->arg[0] >> 56);
    uint32_t p = (uint32_t)(off >> PAGE_SHIFT);
    uint64_t old, now;
    memcpy(&old, region.rt + off, 8);
    now = apply_op(op, is_double, old, h->arg[2]);
    memcpy(region.rt + off, &now, 8);
    STAT_ADD(reductions, 1);

    mu_ctx *c = ctx_new(reduce_done, src, h->arg[1]);
    c->value = old;
    uint64_t others = atomic_load(&mu[p].cs) & ~bit(cfg.node);
    uint32_t pending = 0;
    outbox diff = {0};
    uint16_t run[2] = {(uint16_t)(off & (PAGE_SIZE - 1)), 8};
    uint8_t enc[12];
    memcpy(enc, run, 4);
    memcpy(enc + 4, &now, 8);
    outbox_add(&diff, p, 0, enc, sizeof enc);
    for (int j = 0; j < cfg.nodes; j++) {
        if (!(others & bit(j)))
            continue;
        if (mu[p].params & TSR_MUNIN_INVALIDATE) {
            atomic_fetch_and(&mu[p].cs, ~bit(j));
            am_send(j, MSG_MU_INVAL, p | (uint64_t)INV_DROP << 32, (uintptr_t)c, 0, NULL, 0);
        } else {
            send_update(j, &diff, c);
        }
        pending++;
    }
    outbox_free(&diff);
    ctx_start(c, pending);
}

uint64_t munin_reduce(void *addr, tsr_op op, int is_double, uint64_t operand)
{
    uint32_t p = page_of(addr);
    if (!region_contains(addr) || !mu[p].npages || mu[p].mech != MECH_REDUCTION)
        log_die("tsr_reduce: %p is not in a Munin reduction object", addr);
    if ((uintptr_t)addr % 8 || op < TSR_OP_ADD || op > TSR_OP_SWAP)
        log_die("tsr_reduce: %p is not 8-byte aligned, or the operation %d is unknown", addr,
                (int)op);
    mu_reply r = {0};
    uint64_t off = (uint64_t)((char *)addr - region.app);
    waiter_init(&r.w, 1);
    am_send(home(p), MSG_MU_REDUCE, off | (uint64_t)op << 48 | (uint64_t)is_double << 56,
            (uintptr_t)&r, operand, NULL, 0);
    waiter_wait(&r.w);
    return r.value;
}

/* ---- Data bound to locks (tsr_hint_lock_data) ------------------------------------- */

/* Objects bound to locks, in binding order (the same on every node). The
 * holder of the lock has them writable; a grant brings them, a release
 * takes them away; a node reading them without the lock gets a read-only
 * copy from the lock's manager, dropped at its next synchronization. */
static object *bound;
static uint16_t *bound_lock;
static uint32_t nbound;

void munin_bind(uint32_t first, uint32_t n, int lock)
{
    for (uint32_t b = 0; b < nbound; b++)
        if (bound_lock[b] == lock)
            log_die("tsr_hint_lock_data(%d, %p): the lock already carries the object at %p", lock,
                    (void *)page_app(first), (void *)page_app(bound[b].first));
    if (has_flag(first, F_BOUND))
        log_die("tsr_hint_lock_data(%d, %p): the object is already bound to lock %d", lock,
                (void *)page_app(first), mu[first].lock);
    bound = realloc(bound, (nbound + 1) * sizeof *bound);
    bound_lock = realloc(bound_lock, (nbound + 1) * sizeof *bound_lock);
    if (!bound || !bound_lock)
        log_die("out of memory (Munin lock data)");
    bound[nbound] = (object){first, n};
    bound_lock[nbound++] = (uint16_t)lock;
    for (uint32_t p = first; p < first + n; p++) {
        mu[p].lock = (uint16_t)lock;
        set_flag(p, F_BOUND);
    }
    set_access(first, n, A_NONE);
}

/* Copies the bytes of every object bound to `lock` into out (NULL: only
 * measures); with `give_up`, this node's access to them ends first. */
static size_t bound_bytes(int lock, void *out, int give_up)
{
    size_t len = 0;
    for (uint32_t b = 0; b < nbound; b++) {
        if (bound_lock[b] != lock)
            continue;
        size_t bytes = (size_t)bound[b].n * PAGE_SIZE;
        if (out) {
            if (give_up)
                set_access(bound[b].first, bound[b].n, A_NONE);
            memcpy((char *)out + len, page_rt(bound[b].first), bytes);
        }
        len += bytes;
    }
    return len;
}

static size_t lock_data(int lock, void *out) { return bound_bytes(lock, out, 1); }

/* Installs the bound objects' bytes with the given access. */
static void lock_install(int lock, const void *data, size_t len, int writable)
{
    if (len != bound_bytes(lock, NULL, 0))
        log_die_status(1, "protocol error: lock %d carries %zu bytes of bound data", lock, len);
    size_t at = 0;
    for (uint32_t b = 0; b < nbound; b++) {
        if (bound_lock[b] != lock)
            continue;
        size_t bytes = (size_t)bound[b].n * PAGE_SIZE;
        memcpy(page_rt(bound[b].first), (const char *)data + at, bytes);
        set_access(bound[b].first, bound[b].n, writable ? A_OWNED : A_READ);
        at += bytes;
    }
}

static void bound_fault(uint32_t p, int is_write)
{
    int lock = mu[p].lock;
    if (is_write)
        die_on(p, "write without holding the lock it is bound to (tsr_hint_lock_data) to");
    waiter w;
    am_msg m;
    waiter_init(&w, 1);
    am_post(lock % cfg.nodes, &m, MSG_LOCK_PEEK, (uint64_t)lock, (uintptr_t)&w, 0, NULL, 0);
    waiter_wait(&w);
    /* Read copies: dropped when this node next synchronizes. */
    for (uint32_t b = 0; b < nbound; b++)
        if (bound_lock[b] == lock)
            for (uint32_t q = bound[b].first; q < bound[b].first + bound[b].n; q++)
                enqueue(q);
}

/* ---- Objects ----------------------------------------------------------------------- */

static int initial_access(uint32_t p)
{
    if (!is_home(p))
        return A_NONE;
    int mech = mu[p].mech;
    return mech == MECH_RESULT || mech == MECH_CONVENTIONAL || mech == MECH_MIGRATORY ? A_OWNED
                                                                                      : A_READ;
}

/* Gives pages [first, first+n) the protocol of (annot, params), in its
 * starting state: the manager holds the only copy. */
static void setup(uint32_t first, uint32_t n, int annot, unsigned params)
{
    const char *why;
    int mech = munin_mech_of(params, &why);
    if (mech < 0)
        log_die("Munin parameters 0x%02x (annotation %s): %s", params, munin_annot_name(annot),
                why);
    for (uint32_t p = first; p < first + n; p++) {
        mu_page *m = &mu[p];
        atomic_store(&m->cs, bit(home(p)));
        atomic_store(&m->writers, 0);
        atomic_fetch_and(&m->flags, (uint8_t)F_SINGLE);
        m->quiet_epochs = 0;
        m->params = (uint8_t)params;
        m->annot = (uint8_t)annot;
        m->mech = (uint8_t)mech;
        m->owner = (int16_t)home(p);
    }
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        int acc = initial_access(first + i);
        while (j < n && initial_access(first + j) == acc)
            j++;
        set_access(first + i, j - i, acc);
        i = j;
    }
}

static void map(uint32_t first, uint32_t n, const tsr_attr *attr)
{
    if (cfg.nodes > MUNIN_MAX_NODES)
        log_die("tsr_alloc_attr: Munin memory supports at most %d nodes (copysets are bitmaps), "
                "this job has %d", MUNIN_MAX_NODES, cfg.nodes);
    if (attr->annot < TSR_CONVENTIONAL || attr->annot > TSR_ANNOT_PARAMS)
        log_die("tsr_alloc_attr: unknown Munin annotation %d", (int)attr->annot);
    unsigned params = attr->annot == TSR_ANNOT_PARAMS ? attr->munin_params
                                                      : tsr_munin_params(attr->annot);
    if (params > 0xff)
        log_die("tsr_alloc_attr: Munin parameters 0x%x have unknown bits", params);
    for (uint32_t p = first; p < first + n; p++) {
        memset(&mu[p], 0, sizeof mu[p]);
        mu[p].first = first;
        mu[p].npages = n;
    }
    setup(first, n, attr->annot, params);
    if (nobjects == capobjects) {
        capobjects = capobjects ? capobjects * 2 : 64;
        objects = realloc(objects, capobjects * sizeof *objects);
        if (!objects)
            log_die("out of memory (Munin objects)");
    }
    objects[nobjects++] = (object){first, n};
}

static void forget(object *list, uint16_t *tags, uint32_t *count, uint32_t first)
{
    for (uint32_t i = 0; i < *count; i++)
        if (list[i].first == first) {
            memmove(&list[i], &list[i + 1], (*count - i - 1) * sizeof *list);
            if (tags)
                memmove(&tags[i], &tags[i + 1], (*count - i - 1) * sizeof *tags);
            (*count)--;
            return;
        }
}

static void unmap(uint32_t first, uint32_t n)
{
    forget(objects, NULL, &nobjects, first);
    forget(bound, bound_lock, &nbound, first);
    memset(&mu[first], 0, (size_t)n * sizeof *mu);
}

void munin_object(const char *fn, const void *ptr, uint32_t *first, uint32_t *n)
{
    uint32_t p = region_contains(ptr) ? page_of(ptr) : 0;
    if (!region_contains(ptr) || !mu[p].npages)
        log_die("%s(%p): not an address in Munin shared memory", fn, ptr);
    *first = mu[p].first;
    *n = mu[p].npages;
}

void munin_attrs(uint32_t page, int *annot, unsigned *params)
{
    *annot = mu[page].annot;
    *params = mu[page].params;
}

void munin_set_single(uint32_t first, uint32_t n)
{
    for (uint32_t p = first; p < first + n; p++)
        set_flag(p, F_SINGLE);
}

void munin_reset(uint32_t first, uint32_t n, int annot, unsigned params)
{
    if (has_flag(first, F_BOUND))
        log_die("object at %p is bound to lock %d: its annotation cannot change",
                (void *)page_app(first), mu[first].lock);
    setup(first, n, annot, params);
}

/* Sends this node's pending changes, then gives every copy it holds of a
 * page managed elsewhere back to the manager (with the master copy, if it
 * has it). */
void munin_drop(uint32_t first, uint32_t n)
{
    flush_range(first, first + n, NULL);
    mu_reply r = {0};
    waiter_init(&r.w, 0);
    for (uint32_t p = first; p < first + n; p++) {
        int acc = access_of(p);
        if (acc == A_NONE || is_home(p) || has_flag(p, F_BOUND))
            continue;
        atomic_fetch_add(&r.w.pending, 1);
        am_send(home(p), MSG_MU_RETURN, p, (uintptr_t)&r, 0,
                acc == A_OWNED ? page_rt(p) : NULL, acc == A_OWNED ? PAGE_SIZE : 0);
    }
    waiter_wait(&r.w);
}

static void init(void)
{
    mu = region_page_table(sizeof *mu, "Munin's page directory");
    duq = region_page_table(sizeof *duq, "Munin's delayed update queue");
    am_register(MSG_MU_REQ, on_req);
    am_register(MSG_MU_GRANT, on_grant);
    am_register(MSG_MU_RETURN, on_return);
    am_register(MSG_MU_INVAL, on_inval);
    am_register(MSG_MU_INVAL_ACK, on_inval_ack);
    am_register(MSG_MU_UPDATE, on_update);
    am_register(MSG_MU_UPDATE_ACK, on_update_ack);
    am_register(MSG_MU_FROZEN, on_frozen);
    am_register(MSG_MU_REDUCE, on_reduce);
    am_register(MSG_MU_REDUCE_REP, on_reduce_rep);
}

const tsr_protocol munin_protocol = {
    .name = "munin",
    .init = init,
    .map = map,
    .unmap = unmap,
    .fault = fault,
    .flush = flush,
    .invalidate = NULL,
    .barrier_done = barrier_done,
    .lock_data = lock_data,
    .lock_install = lock_install,
};
