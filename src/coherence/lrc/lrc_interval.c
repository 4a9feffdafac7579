/*
 * lrc_interval.c - intervals, vector timestamps and write notices of the
 * lazy protocol (lrc.h), and the lock and barrier payloads that carry them.
 *
 * Wire form of an interval: u32 writer, index, npages, vt[nodes],
 * pages[npages]. Every node keeps the intervals it knows in one log per
 * writer, indexed by interval; a lock's manager keeps, per lock, the
 * timestamp of what its releasers knew.
 *   request:   the acquirer's timestamp
 *   grant:     from the manager: the lock's timestamp, and every interval
 *              it covers that the acquirer's does not (from the manager's
 *              log); from the releaser (hand-off): the same from its own
 *              timestamp and log
 *   release:   (to the manager, no next holder) the releaser's timestamp,
 *              and the intervals it knows beyond the lock's timestamp at its
 *              last grant from the manager (the manager may lack them)
 *   arrival:   whether this node's memory passed half the GC bound, its
 *              timestamp, its own intervals since the last barrier
 *   departure: the same, merged: any node's request for GC, the maximum
 *              timestamp, every node's intervals since the last barrier
 * An acquirer applies the intervals its timestamp does not cover: a write
 * notice for each page they wrote (lrc_notice); then it takes the maximum.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/adopt.h"
#include "coherence/lrc/lrc.h"
#include "coherence/protocol.h"
#include "memory/region.h"
#include "util/config.h"
#include "util/log.h"

atomic_int lrc_active;

/* Application thread: this node's timestamp, the timestamp of the last
 * barrier and of the last GC (intervals at or below it are forgotten), the
 * pages written in the current interval, the GC request of the last
 * departure, and per lock the lock's timestamp at this node's last grant. */
static uint32_t *vt, *barrier_vt, *gc_vt;
static uint32_t *dirty, ndirty;
static int gc_requested;
static uint32_t **seen_vt;

/* Per writer, the intervals known here: iv[k] is interval base + k (NULL:
 * not known). The comm thread adds to it as a lock manager. */
typedef struct writer_log {
    lrc_interval **iv;
    uint32_t base, len;
} writer_log;
static writer_log *logs;
static pthread_mutex_t logs_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Lock manager: each managed lock's timestamp (its grant and merge hooks
 * run one at a time, under the lock manager's mutex). */
static uint32_t **lock_vt;

/* Barrier root (comm thread): the epoch's merged arrivals. */
static lrc_gather gathered;

static size_t vt_bytes(void) { return (size_t)cfg.nodes * sizeof(uint32_t); }

static uint32_t *new_vt(void)
{
    uint32_t *v = lrc_alloc(vt_bytes());
    memset(v, 0, vt_bytes());
    return v;
}

static void vt_max(uint32_t *into, const uint32_t *v)
{
    for (int q = 0; q < cfg.nodes; q++)
        if (v[q] > into[q])
            into[q] = v[q];
}

void lrc_interval_init(void)
{
    vt = new_vt();
    barrier_vt = new_vt();
    gc_vt = new_vt();
    lrc_gather_init(&gathered);
    dirty = region_page_table(sizeof *dirty, "the LRC dirty page list");
    logs = calloc((size_t)cfg.nodes, sizeof *logs);
    for (int q = 0; logs && q < cfg.nodes; q++)
        logs[q].base = 1;
    seen_vt = calloc(COH_LOCK_SLOTS, sizeof *seen_vt);
    lock_vt = calloc(COH_LOCK_SLOTS, sizeof *lock_vt);
    if (!logs || !seen_vt || !lock_vt)
        log_die("out of memory (LRC intervals)");
}

void lrc_dirty(uint32_t page) { dirty[ndirty++] = page; }

int lrc_gc_requested(void) { return gc_requested; }

/* ---- The log ------------------------------------------------------------- */

/* Called with logs_mutex held. */
static lrc_interval *log_get(uint32_t q, uint32_t index)
{
    writer_log *l = &logs[q];
    return index >= l->base && index - l->base < l->len ? l->iv[index - l->base] : NULL;
}

/* Adds iv unless known or forgotten; returns the logged interval (iv is
 * freed if not). Intervals of a writer arrive in any order (several locks,
 * the barrier), so the log's base stays just above the last GC. */
static lrc_interval *log_put(lrc_interval *iv)
{
    pthread_mutex_lock(&logs_mutex);
    writer_log *l = &logs[iv->writer];
    lrc_interval *have = log_get(iv->writer, iv->index);
    if (have || iv->index < l->base) {
        pthread_mutex_unlock(&logs_mutex);
        lrc_free(iv);
        return have;
    }
    uint32_t k = iv->index - l->base;
    if (k >= l->len) {
        uint32_t len = k + 1 > 2 * l->len ? k + 1 : 2 * l->len;
        lrc_interval **grown = lrc_alloc(len * sizeof *grown);
        memset(grown, 0, len * sizeof *grown);
        if (l->len)
            memcpy(grown, l->iv, l->len * sizeof *grown);
        lrc_free(l->iv);
        l->iv = grown;
        l->len = len;
    }
    l->iv[k] = iv;
    pthread_mutex_unlock(&logs_mutex);
    return iv;
}

static lrc_interval *new_interval(uint32_t writer, uint32_t index, uint32_t npages,
                                  const uint32_t *v, const uint32_t *pages)
{
    lrc_interval *iv = lrc_alloc(sizeof *iv + (size_t)npages * 4 + vt_bytes());
    iv->writer = writer;
    iv->index = index;
    iv->npages = npages;
    iv->vt = iv->pages + npages;
    memcpy(iv->pages, pages, (size_t)npages * 4);
    memcpy(iv->vt, v, vt_bytes());
    iv->order = 0;
    for (int q = 0; q < cfg.nodes; q++)
        iv->order += v[q];
    return iv;
}

void lrc_close_interval(void)
{
    if (!ndirty)
        return;
    vt[cfg.node]++;
    lrc_interval *iv = new_interval((uint32_t)cfg.node, vt[cfg.node], ndirty, vt, dirty);
    for (uint32_t i = 0; i < ndirty; i++)
        lrc_written(dirty[i], vt[cfg.node]);
    ndirty = 0;
    log_put(iv);
}

/* ---- Wire form ------------------------------------------------------------ */

static void put_interval(pbuf *out, const lrc_interval *iv)
{
    uint32_t hdr[3] = {iv->writer, iv->index, iv->npages};
    pbuf_put(out, hdr, sizeof hdr);
    pbuf_put(out, iv->vt, vt_bytes());
    pbuf_put(out, iv->pages, (size_t)iv->npages * 4);
}

/* Writer q's logged intervals in (lo, hi]. Called with logs_mutex held. */
static void put_writer(pbuf *out, uint32_t q, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = (lo > gc_vt[q] ? lo : gc_vt[q]) + 1; i <= hi; i++) {
        lrc_interval *iv = log_get(q, i);
        if (!iv)
            log_die_status(1, "LRC: interval %u of node %u is not known here", i, q);
        put_interval(out, iv);
    }
}

/* Every logged interval that `to` covers and `from` (NULL: nothing) does not. */
static void put_range(pbuf *out, const uint32_t *from, const uint32_t *to)
{
    pthread_mutex_lock(&logs_mutex);
    for (uint32_t q = 0; q < (uint32_t)cfg.nodes; q++)
        put_writer(out, q, from ? from[q] : 0, to[q]);
    pthread_mutex_unlock(&logs_mutex);
}

/* Reads a timestamp at *at; NULL if it does not fit. */
static const uint32_t *take_vt(const char **at, const char *end)
{
    if ((size_t)(end - *at) < vt_bytes())
        return NULL;
    const uint32_t *v = (const uint32_t *)*at;
    *at += vt_bytes();
    return v;
}

/* Reads the intervals from at to end, handing each to fn; -1 if malformed. */
static int each_interval(const char *at, const char *end, void (*fn)(lrc_interval *))
{
    while (at < end) {
        uint32_t hdr[3];
        if ((size_t)(end - at) < sizeof hdr)
            return -1;
        memcpy(hdr, at, sizeof hdr);
        at += sizeof hdr;
        const uint32_t *v = take_vt(&at, end);
        if (!v || hdr[0] >= (uint32_t)cfg.nodes || !hdr[1] || hdr[2] > region.npages ||
            (size_t)(end - at) < (size_t)hdr[2] * 4 || v[hdr[0]] != hdr[1])
            return -1;
        const uint32_t *pages = (const uint32_t *)at;
        for (uint32_t i = 0; i < hdr[2]; i++)
            if (pages[i] >= region.npages)
                return -1;
        at += (size_t)hdr[2] * 4;
        if (fn)
            fn(new_interval(hdr[0], hdr[1], hdr[2], v, pages));
    }
    return 0;
}

/* The head of a grant's or a barrier's payload: a u32 flag, a vector
 * timestamp, then intervals, all checked; NULL if any part is malformed. */
static const uint32_t *take_head(const char **at, const char *end, uint32_t *flag)
{
    if ((size_t)(end - *at) < sizeof *flag)
        return NULL;
    memcpy(flag, *at, sizeof *flag);
    *at += sizeof *flag;
    const uint32_t *v = take_vt(at, end);
    return v && !each_interval(*at, end, NULL) ? v : NULL;
}

static void just_log(lrc_interval *iv) { log_put(iv); }

/* A release is a timestamp and intervals; a grant, an arrival and a
 * departure have a head (take_head), whose flag a grant keeps to 0 or 1. */
int lrc_payload_check(payload_kind kind, int lock, const void *p, size_t len)
{
    const char *at = p, *end = at + len;
    if (kind == PL_RELEASE) {
        const uint32_t *v = take_vt(&at, end);
        return v && !each_interval(at, end, NULL) ? 0 : -1;
    }
    uint32_t flag;
    if (!take_head(&at, end, &flag))
        return -1;
    return kind == PL_GRANT && flag > 1 ? -1 : 0;
}

/* An interval this node has not seen: a write notice for each page. A page
 * of another node's arena not known here is adopted (adopt.h): its notice
 * must not be lost, since no home keeps its bytes. */
static void apply_interval(lrc_interval *iv)
{
    if (iv->writer == (uint32_t)cfg.node || iv->index <= vt[iv->writer]) {
        lrc_free(iv);
        return;
    }
    iv = log_put(iv);
    for (uint32_t i = 0; i < iv->npages; i++) {
        uint32_t p = iv->pages[i];
        if (!region.meta[p].proto)
            adopt_noticed(p, TSR_PROTO_LRC + 1); /* protocol.h: index = proto + 1 */
        if (coh_protocol_of(p) == &lrc_protocol)
            lrc_notice(p, iv);
    }
}

/* ---- Locks --------------------------------------------------------------- */

void lrc_lock_request(int lock, pbuf *out)
{
    if (lrc_active)
        pbuf_put(out, vt, vt_bytes());
}

/* A request is the acquirer's timestamp, once the protocol is in use. */
int lrc_lock_request_check(const void *req, size_t len)
{
    if (!lrc_active)
        return req ? -1 : 0;
    return req && len == vt_bytes() ? 0 : -1;
}

/* A grant: u32 from the manager (1) or the releaser (0), the timestamp
 * granted, the intervals it covers that the request's does not. */
static int grant(const void *req, size_t len, uint32_t from_manager, const uint32_t *v, pbuf *out)
{
    if (lrc_lock_request_check(req, len))
        return -1;
    if (!lrc_active)
        return 0;
    pbuf_put(out, &from_manager, sizeof from_manager);
    pbuf_put(out, v, vt_bytes());
    put_range(out, req, v);
    return 0;
}

int lrc_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out)
{
    if (lrc_active && !lock_vt[lock])
        lock_vt[lock] = new_vt();
    return grant(req, len, 1, lock_vt[lock], out);
}

int lrc_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out)
{
    return grant(req, len, 0, vt, out);
}

void lrc_lock_release(int lock, pbuf *out)
{
    if (!lrc_active)
        return;
    pbuf_put(out, vt, vt_bytes());
    put_range(out, seen_vt[lock], vt);
}

int lrc_lock_merge(int lock, int node, const void *p, size_t len)
{
    const char *at = p, *end = at + len;
    const uint32_t *v = take_vt(&at, end);
    if (!v || each_interval(at, end, NULL))
        return -1;
    each_interval(at, end, just_log);
    if (!lock_vt[lock])
        lock_vt[lock] = new_vt();
    vt_max(lock_vt[lock], v);
    return 0;
}

/* Only a grant from the manager says what the manager's log holds: a later
 * release to it sends every interval beyond that. */
int lrc_lock_acquire(int lock, const void *p, size_t len)
{
    const char *at = p, *end = at + len;
    uint32_t from_manager;
    const uint32_t *v = take_head(&at, end, &from_manager);
    if (!v || from_manager > 1)
        return -1;
    each_interval(at, end, apply_interval);
    vt_max(vt, v);
    if (from_manager) {
        if (!seen_vt[lock])
            seen_vt[lock] = new_vt();
        memcpy(seen_vt[lock], v, vt_bytes());
    }
    return 0;
}

/* ---- Barriers ------------------------------------------------------------ */

void lrc_barrier_arrival(pbuf *out)
{
    if (!lrc_active)
        return;
    uint32_t gc = (uint32_t)lrc_gc_due();
    pbuf_put(out, &gc, sizeof gc);
    pbuf_put(out, vt, vt_bytes());
    pthread_mutex_lock(&logs_mutex);
    put_writer(out, (uint32_t)cfg.node, barrier_vt[cfg.node], vt[cfg.node]);
    pthread_mutex_unlock(&logs_mutex);
}

void lrc_gather_init(lrc_gather *g) { *g = (lrc_gather){0, new_vt(), {0}}; }

int lrc_gather_merge(lrc_gather *g, const void *p, size_t len)
{
    const char *at = p, *end = at + len;
    uint32_t gc;
    const uint32_t *v = take_head(&at, end, &gc);
    if (!v)
        return -1;
    g->gc |= gc;
    vt_max(g->vt, v);
    pbuf_put(&g->records, at, (size_t)(end - at));
    return 0;
}

void lrc_gather_out(lrc_gather *g, pbuf *out)
{
    pbuf_put(out, &g->gc, sizeof g->gc);
    pbuf_put(out, g->vt, vt_bytes());
    pbuf_put(out, g->records.p, g->records.len);
    lrc_gather_reset(g);
}

void lrc_gather_reset(lrc_gather *g)
{
    g->gc = 0;
    g->records.len = 0;
}

void lrc_gather_add(lrc_gather *into, const lrc_gather *g)
{
    into->gc |= g->gc;
    vt_max(into->vt, g->vt);
    pbuf_put(&into->records, g->records.p, g->records.len);
}

lrc_gather *lrc_barrier_gather(void) { return &gathered; }

/* A barrier arrival also stands for the node in a collection round under
 * way (lrc_gc.c). */
int lrc_barrier_merge(int node, const void *p, size_t len)
{
    if (lrc_gather_merge(&gathered, p, len))
        return -1;
    lrc_round_barrier_arrival(node);
    return 0;
}

/* A collection asked for while nodes are parked for a fork waits for the
 * next barrier. Its diffs would be freed at the next barrier's end, where
 * a parked node only starts the collection, asking for them: at 4 nodes,
 * fork/join under TSR_LRC_GC_BYTES=64K waited forever for diffs freed
 * (mp/fork_counted lrc-gc). */
void lrc_barrier_departure(pbuf *out)
{
    int held = lrc_round_barrier_departure();
    if (!lrc_active)
        return;
    uint32_t gc = gathered.gc;
    if (held)
        gathered.gc = 0;
    lrc_gather_out(&gathered, out);
    gathered.gc = held ? gc : 0;
}

int lrc_barrier_apply(const void *p, size_t len)
{
    const char *at = p, *end = at + len;
    uint32_t gc;
    const uint32_t *v = take_head(&at, end, &gc);
    if (!v)
        return -1;
    each_interval(at, end, apply_interval);
    vt_max(vt, v);
    memcpy(barrier_vt, vt, vt_bytes());
    gc_requested = gc != 0;
    return 0;
}

/* ---- Garbage collection ------------------------------------------------ */

/* Every page here is up to date, and every node's timestamp is this one:
 * nobody will ask for an interval it covers again. */
void lrc_interval_collect(void)
{
    pthread_mutex_lock(&logs_mutex);
    for (int q = 0; q < cfg.nodes; q++) {
        writer_log *l = &logs[q];
        uint32_t shift = barrier_vt[q] + 1 - l->base, kept = l->len > shift ? l->len - shift : 0;
        for (uint32_t k = 0; k < l->len - kept; k++)
            lrc_free(l->iv[k]);
        if (kept) /* a writer with no interval yet has no log at all */
            memmove(l->iv, l->iv + (l->len - kept), kept * sizeof *l->iv);
        l->len = kept;
        l->base = barrier_vt[q] + 1;
    }
    memcpy(gc_vt, barrier_vt, vt_bytes());
    pthread_mutex_unlock(&logs_mutex);
}

uint32_t lrc_own_index(void) { return vt[cfg.node]; }
