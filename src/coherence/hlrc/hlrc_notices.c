/*
 * hlrc_notices.c - the home-based protocol's synchronization payloads:
 * write notices (page, version) on locks and barriers (notice.h), under
 * one of two memory models, each a policy with state of its own.
 *
 * Release consistency (hlrc): a node keeps the notices it produced or
 * learned since the last barrier (`known`) and passes them on
 * transitively: a releaser hands the lock's manager what it learned or
 * made since it last released that lock.
 *
 * Scope consistency (scope, JIAJIA's lock-based notices as the Nautilus
 * paper describes them): a node keeps per lock the notices associated
 * with it (`held`): those its grants of the lock brought, and those it
 * made in its own critical sections of the lock. A release passes on only
 * these, so a write made under another lock, or outside any, reaches a
 * node that takes this lock only at the next barrier. Unlike JIAJIA, the
 * manager does not keep the critical section's intervals: notices name
 * versions (notice.h), so the lock's set merges them and keeps the newest.
 *
 * Under both, the manager merges a release into the lock's set and grants
 * each acquirer only the part of the set it was not given at its previous
 * grant of the lock. A releaser that hands the lock straight to the next
 * holder sends what it would send the manager that it did not send that
 * node at its previous such hand-off. A barrier's root gathers every
 * node's notices and sends back their union, after which every node has
 * acted on them: sets are cleared or pruned.
 */
#include <pthread.h>
#include <stdlib.h>

#include "coherence/hlrc/hlrc.h"
#include "coherence/notice.h"
#include "coherence/protocol.h"
#include "memory/region.h"
#include "util/config.h"
#include "util/log.h"

/* Manager side, per lock it manages: what the lock's releasers sent, and
 * `given[node]`, the set's clock when `node` last got the lock, so that a
 * grant costs what changed, not all that the epoch gathered. */
typedef struct lock_notices {
    notice_set set;
    uint32_t *given;
} lock_notices;

typedef struct policy {
    const tsr_protocol *proto; /* the pages whose notices it carries */
    int scoped;
    /* Node side (application thread only): under release consistency the
     * notices known since the last barrier, under scope consistency those
     * made here since then; per lock, the clock of the set a release of
     * the lock sends from, when this node last released it. */
    notice_set known;
    uint32_t lock_sent[COH_LOCK_SLOTS];
    /* Scope consistency: the notices of the pages homed here (homed),
     * which every release passes on as release consistency does: a home
     * announces a version once, not at each section that writes the page
     * (hlrc.c), and sticky pages' writes belong to no known interval; per lock, the notices of the lock known here,
     * known.clock at this node's last acquire of it and homed.clock at
     * its last release; and the lock
     * being acquired (1 + its id, 0: none), whose section begins at the
     * end of the interval that the acquire closes. */
    notice_set homed;
    notice_set *held;
    uint32_t *opened, *homed_sent;
    int opening;
    /* The grant and merge hooks run under the lock manager's mutex; the
     * barrier's pruning comes from the application thread, hence a mutex
     * of its own. */
    lock_notices *managed;
    pthread_mutex_t managed_mutex;
    /* Releaser side, per lock: `handed[node]`, the source set's clock when
     * this node last handed the lock straight to `node`, which then got
     * all of it (the same argument as `given`; application thread only). */
    uint32_t **handed;
    /* Barrier root (comm thread): the union of the epoch's arrivals, and
     * their home migration reports, (page, version, node) each
     * (hlrc_migrate.c). Node: the union received, for pruning. */
    notice_set gathered, global;
    uint32_t *moves, nmoves, moves_cap;
} policy;

static policy rc = {.proto = &hlrc_protocol, .managed_mutex = PTHREAD_MUTEX_INITIALIZER};
static policy scope = {
    .proto = &scope_protocol, .scoped = 1, .managed_mutex = PTHREAD_MUTEX_INITIALIZER};

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p)
        log_die_status(1, "out of memory (lock notices)");
    return p;
}

void hlrc_note(uint32_t page, uint32_t version, int home)
{
    if (coh_protocol_of(page) != &scope_protocol) {
        notice_add(&rc.known, page, version);
        return;
    }
    notice_add(&scope.known, page, version);
    if (home)
        notice_add(&scope.homed, page, version);
}

static void encode(const notice_set *s, uint32_t since, pbuf *out)
{
    void *at = pbuf_room(out, (size_t)notice_count_since(s, since) * NOTICE_WIRE);
    notice_encode(s, since, at);
}

/* The notice applies if the page is still the policy's (it may have been
 * freed since the notice was made). */
static int apply(const policy *pol, uint32_t page, uint32_t version)
{
    return page < region.npages && coh_protocol_of(page) == pol->proto &&
           hlrc_invalidate(page, version);
}

static lock_notices *managed_lock(policy *pol, int lock)
{
    if (!pol->managed)
        pol->managed = zalloc(COH_LOCK_SLOTS, sizeof *pol->managed);
    lock_notices *l = &pol->managed[lock];
    if (!l->given)
        l->given = zalloc((size_t)cfg.nodes, sizeof *l->given);
    return l;
}

static notice_set *held_set(policy *pol, int lock)
{
    if (!pol->held) {
        pol->held = zalloc(COH_LOCK_SLOTS, sizeof *pol->held);
        pol->opened = zalloc(COH_LOCK_SLOTS, sizeof *pol->opened);
        pol->homed_sent = zalloc(COH_LOCK_SLOTS, sizeof *pol->homed_sent);
    }
    return &pol->held[lock];
}

/* The set a release of `lock` sends from: all this node knows, or, under
 * scope consistency, the lock's notices, to which the critical section
 * that ends adds the notices it made (the release has flushed it), and
 * the home's notices made since the lock's previous release here (the
 * section may have written a home page announced before). */
static notice_set *release_source(policy *pol, int lock)
{
    if (!pol->scoped)
        return &pol->known;
    notice_set *h = held_set(pol, lock);
    notice_merge_since(h, &pol->known, pol->opened[lock]);
    notice_merge_since(h, &pol->homed, pol->homed_sent[lock]);
    pol->opened[lock] = pol->known.clock;
    pol->homed_sent[lock] = pol->homed.clock;
    return h;
}

/* Checks a list of n notices. */
static int notices_check(const uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (w[2 * i] >= region.npages)
            return -1;
    return 0;
}

/* A barrier frame: u32 count, that many home migration reports (arrival:
 * page, version; departure: page, version, node), then notices. */
static int barrier_frame_check(payload_kind kind, const void *p, size_t len)
{
    size_t each = kind == PL_ARRIVAL ? MIGRATE_REPORT_WIRE : MIGRATE_MOVE_WIRE;
    const uint32_t *w = p;
    if (len < 4 || (uint64_t)w[0] * each > len - 4 || (len - 4 - w[0] * each) % NOTICE_WIRE)
        return -1;
    for (uint32_t i = 0; i < w[0]; i++) {
        const uint32_t *e = (const uint32_t *)((const char *)p + 4 + i * each);
        if (e[0] >= region.npages || (kind == PL_DEPARTURE && e[2] >= (uint32_t)cfg.nodes))
            return -1;
    }
    size_t at = 4 + w[0] * each;
    return notices_check((const uint32_t *)((const char *)p + at), (len - at) / NOTICE_WIRE);
}

/* Lock payloads are lists of notices, each for a page of the region;
 * barrier payloads begin with home migration reports. */
int hlrc_payload_check(payload_kind kind, int lock, const void *p, size_t len)
{
    (void)lock;
    if (kind == PL_ARRIVAL || kind == PL_DEPARTURE)
        return barrier_frame_check(kind, p, len);
    if (len % NOTICE_WIRE)
        return -1;
    return notices_check(p, len / NOTICE_WIRE);
}

static void lock_release(policy *pol, int lock, pbuf *out)
{
    notice_set *s = release_source(pol, lock);
    encode(s, pol->lock_sent[lock], out);
    pol->lock_sent[lock] = s->clock;
}

static int lock_merge(policy *pol, int lock, int node, const void *p, size_t len)
{
    pthread_mutex_lock(&pol->managed_mutex);
    lock_notices *l = managed_lock(pol, lock);
    int bad = notice_merge_wire(&l->set, p, len);
    /* Nobody else released the lock while `node` held it: it now knows
     * every notice of the set, its own included. */
    l->given[node] = l->set.clock;
    pthread_mutex_unlock(&pol->managed_mutex);
    return bad;
}

static int lock_grant(policy *pol, int lock, int node, const void *req, pbuf *out)
{
    if (req)
        return -1; /* acquirers send nothing */
    pthread_mutex_lock(&pol->managed_mutex);
    lock_notices *l = managed_lock(pol, lock);
    encode(&l->set, l->given[node], out);
    l->given[node] = l->set.clock;
    pthread_mutex_unlock(&pol->managed_mutex);
    return 0;
}

static int lock_handoff(policy *pol, int lock, int node, const void *req, pbuf *out)
{
    if (req)
        return -1; /* acquirers send nothing */
    if (!pol->handed)
        pol->handed = zalloc(COH_LOCK_SLOTS, sizeof *pol->handed);
    if (!pol->handed[lock])
        pol->handed[lock] = zalloc((size_t)cfg.nodes, sizeof *pol->handed[lock]);
    notice_set *s = release_source(pol, lock);
    encode(s, pol->handed[lock][node], out);
    pol->handed[lock][node] = s->clock;
    return 0;
}

/* Under scope consistency the grant's notices stay the lock's: they travel
 * with no other lock. */
static int lock_acquire(policy *pol, int lock, const void *p, size_t len)
{
    if (len % NOTICE_WIRE)
        return -1;
    notice_set *into = pol->scoped ? held_set(pol, lock) : &pol->known;
    const uint32_t *w = p;
    for (size_t i = 0; i < len / NOTICE_WIRE; i++) {
        apply(pol, w[2 * i], w[2 * i + 1]);
        notice_add(into, w[2 * i], w[2 * i + 1]);
    }
    return 0;
}

/* An acquire's request goes out before the acquire ends the interval
 * (coh_lock_acquire): the writes of that interval are outside the
 * critical section, whose notices begin after it (hlrc_interval_done).
 * The grant may bring no frame of this protocol, so this request, which
 * every acquire makes, is where the acquire is seen. */
void scope_lock_request(int lock, pbuf *out)
{
    (void)out;
    held_set(&scope, lock);
    scope.opening = lock + 1;
}

/* The request carries nothing (scope_lock_request writes no frame). */
int scope_lock_request_check(const void *req, size_t len)
{
    (void)len;
    return req ? -1 : 0;
}

void hlrc_interval_done(void)
{
    if (scope.opening) {
        scope.opened[scope.opening - 1] = scope.known.clock;
        scope.opening = 0;
    }
}

static void barrier_arrival(policy *pol, pbuf *out)
{
    hlrc_migrate_report(pol->proto, out);
    encode(&pol->known, 0, out);
}

/* The reports (checked: hlrc_payload_check) name their sender. */
static int barrier_merge(policy *pol, int node, const void *p, size_t len)
{
    const uint32_t *w = p;
    uint32_t n = w[0];
    if (pol->nmoves + n > pol->moves_cap) {
        pol->moves_cap = 2 * (pol->nmoves + n);
        pol->moves = realloc(pol->moves, (size_t)pol->moves_cap * MIGRATE_MOVE_WIRE);
        if (!pol->moves)
            log_die_status(1, "out of memory (%u home migration reports)", pol->moves_cap);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t *m = pol->moves + 3 * pol->nmoves++;
        m[0] = w[1 + 2 * i];
        m[1] = w[2 + 2 * i];
        m[2] = (uint32_t)node;
    }
    size_t at = 4 + (size_t)n * MIGRATE_REPORT_WIRE;
    return notice_merge_wire(&pol->gathered, (const char *)p + at, len - at);
}

static void barrier_departure(policy *pol, pbuf *out)
{
    pbuf_put(out, &pol->nmoves, 4);
    pbuf_put(out, pol->moves, (size_t)pol->nmoves * MIGRATE_MOVE_WIRE);
    pol->nmoves = 0;
    encode(&pol->gathered, 0, out);
    notice_clear(&pol->gathered);
}

/* Every node acts on the union, so a lock's set no longer needs what it
 * covers. */
static int barrier_apply(policy *pol, const void *p, size_t len)
{
    const uint32_t *moves = (const uint32_t *)p + 1;
    size_t at = 4 + (size_t)moves[-1] * MIGRATE_MOVE_WIRE;
    notice_clear(&pol->global);
    if (notice_merge_wire(&pol->global, (const char *)p + at, len - at))
        return -1;
    for (uint32_t i = 0; i < pol->global.n; i++)
        if (apply(pol, pol->global.e[i].page, pol->global.e[i].version))
            hlrc_prefetch_note(pol->global.e[i].page);
    hlrc_migrate_apply(pol->proto, moves, moves[-1], &pol->global);
    pthread_mutex_lock(&pol->managed_mutex);
    for (int id = cfg.node; pol->managed && id < COH_LOCK_SLOTS; id += cfg.nodes)
        if (pol->managed[id].set.n)
            notice_prune(&pol->managed[id].set, &pol->global);
    pthread_mutex_unlock(&pol->managed_mutex);
    return 0;
}

static void barrier_done(policy *pol)
{
    hlrc_migrate_done();
    notice_clear(&pol->known);
    notice_clear(&pol->homed);
    for (int id = 0; pol->held && id < COH_LOCK_SLOTS; id++)
        if (pol->held[id].n)
            notice_clear(&pol->held[id]);
}

/* The hooks of each protocol's table (hlrc.h), bound to its policy. */
#define POLICY_HOOKS(pfx, pol)                                                          \
    void pfx##_lock_release(int lock, pbuf *out) { lock_release(&pol, lock, out); }     \
    int pfx##_lock_merge(int lock, int node, const void *p, size_t len)                 \
    {                                                                                   \
        return lock_merge(&pol, lock, node, p, len);                                    \
    }                                                                                   \
    int pfx##_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out)    \
    {                                                                                   \
        return lock_grant(&pol, lock, node, req, out);                                  \
    }                                                                                   \
    int pfx##_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out)  \
    {                                                                                   \
        return lock_handoff(&pol, lock, node, req, out);                                \
    }                                                                                   \
    int pfx##_lock_acquire(int lock, const void *p, size_t len)                         \
    {                                                                                   \
        return lock_acquire(&pol, lock, p, len);                                        \
    }                                                                                   \
    void pfx##_barrier_arrival(pbuf *out) { barrier_arrival(&pol, out); }               \
    int pfx##_barrier_merge(int node, const void *p, size_t len)                        \
    {                                                                                   \
        return barrier_merge(&pol, node, p, len);                                       \
    }                                                                                   \
    void pfx##_barrier_departure(pbuf *out) { barrier_departure(&pol, out); }           \
    int pfx##_barrier_apply(const void *p, size_t len) { return barrier_apply(&pol, p, len); } \
    void pfx##_barrier_done(void) { barrier_done(&pol); }

POLICY_HOOKS(hlrc, rc)
POLICY_HOOKS(scope, scope)
