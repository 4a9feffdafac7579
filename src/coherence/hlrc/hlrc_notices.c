/*
 * hlrc_notices.c - the home-based protocol's synchronization payloads:
 * write notices (page, version) on locks and barriers (notice.h).
 *
 * A node keeps the notices it produced or learned since the last barrier
 * (`known`) and passes them on transitively: a releaser hands the lock's
 * manager what it learned or made since it last released that lock; the
 * manager merges them into the lock's set and grants each acquirer only the
 * part of the set it was not given at its previous grant of the lock. A
 * releaser that hands the lock straight to the next holder sends what it
 * knows that it did not send that node at its previous such hand-off. A
 * barrier's root gathers every node's notices and sends back their union,
 * after which every node has acted on them: sets are cleared or pruned.
 */
#include <pthread.h>
#include <stdlib.h>

#include "coherence/hlrc/hlrc.h"
#include "coherence/notice.h"
#include "coherence/protocol.h"
#include "memory/region.h"
#include "util/config.h"
#include "util/log.h"

/* Node side: notices known since the last barrier, and per lock the set's
 * clock when this node last released it (application thread only). */
static notice_set known;
static uint32_t lock_sent[COH_LOCK_SLOTS];

/* Manager side, per lock it manages: what the lock's releasers knew, and
 * `given[node]`, the set's clock when `node` last got the lock, so that a
 * grant costs what changed, not all that the epoch gathered. The grant and
 * merge hooks run under the lock manager's mutex; the barrier's pruning
 * comes from the application thread, hence a mutex of its own. */
typedef struct lock_notices {
    notice_set set;
    uint32_t *given;
} lock_notices;
static lock_notices *managed;
static pthread_mutex_t managed_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Releaser side, per lock: `handed[node]`, this node's clock when it last
 * handed the lock straight to `node`, which then got all it knew (the same
 * argument as `given`; application thread only). */
static uint32_t **handed;

/* Barrier root (comm thread): the union of the epoch's arrivals. Node:
 * the union received, for pruning. */
static notice_set gathered, global;

void hlrc_note(uint32_t page, uint32_t version) { notice_add(&known, page, version); }

static void encode(const notice_set *s, uint32_t since, pbuf *out)
{
    void *at = pbuf_room(out, (size_t)notice_count_since(s, since) * NOTICE_WIRE);
    notice_encode(s, since, at);
}

/* The notice applies if the page is still the home-based protocol's (it
 * may have been freed since the notice was made). */
static void apply(uint32_t page, uint32_t version)
{
    if (page < region.npages && coh_protocol_of(page) == &hlrc_protocol)
        hlrc_invalidate(page, version);
}

static lock_notices *managed_lock(int lock)
{
    if (!managed && !(managed = calloc(COH_LOCK_SLOTS, sizeof *managed)))
        log_die_status(1, "out of memory (lock notices)");
    lock_notices *l = &managed[lock];
    if (!l->given && !(l->given = calloc((size_t)cfg.nodes, sizeof *l->given)))
        log_die_status(1, "out of memory (lock notices)");
    return l;
}

/* Every payload of this protocol is a list of notices, each for a page of
 * the region. */
int hlrc_payload_check(payload_kind kind, int lock, const void *p, size_t len)
{
    if (len % NOTICE_WIRE)
        return -1;
    const uint32_t *w = p;
    for (size_t i = 0; i < len / NOTICE_WIRE; i++)
        if (w[2 * i] >= region.npages)
            return -1;
    return 0;
}

void hlrc_lock_release(int lock, pbuf *out)
{
    encode(&known, lock_sent[lock], out);
    lock_sent[lock] = known.clock;
}

int hlrc_lock_merge(int lock, int node, const void *p, size_t len)
{
    pthread_mutex_lock(&managed_mutex);
    lock_notices *l = managed_lock(lock);
    int bad = notice_merge_wire(&l->set, p, len);
    /* Nobody else released the lock while `node` held it: it now knows
     * every notice of the set, its own included. */
    l->given[node] = l->set.clock;
    pthread_mutex_unlock(&managed_mutex);
    return bad;
}

int hlrc_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out)
{
    if (req)
        return -1; /* acquirers send nothing */
    pthread_mutex_lock(&managed_mutex);
    lock_notices *l = managed_lock(lock);
    encode(&l->set, l->given[node], out);
    l->given[node] = l->set.clock;
    pthread_mutex_unlock(&managed_mutex);
    return 0;
}

int hlrc_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out)
{
    if (req)
        return -1; /* acquirers send nothing */
    if (!handed && !(handed = calloc(COH_LOCK_SLOTS, sizeof *handed)))
        log_die_status(1, "out of memory (lock notices)");
    if (!handed[lock] && !(handed[lock] = calloc((size_t)cfg.nodes, sizeof *handed[lock])))
        log_die_status(1, "out of memory (lock notices)");
    encode(&known, handed[lock][node], out);
    handed[lock][node] = known.clock;
    return 0;
}

int hlrc_lock_acquire(int lock, const void *p, size_t len)
{
    if (len % NOTICE_WIRE)
        return -1;
    const uint32_t *w = p;
    for (size_t i = 0; i < len / NOTICE_WIRE; i++) {
        apply(w[2 * i], w[2 * i + 1]);
        hlrc_note(w[2 * i], w[2 * i + 1]);
    }
    return 0;
}

void hlrc_barrier_arrival(pbuf *out) { encode(&known, 0, out); }

int hlrc_barrier_merge(int node, const void *p, size_t len)
{
    return notice_merge_wire(&gathered, p, len);
}

void hlrc_barrier_departure(pbuf *out)
{
    encode(&gathered, 0, out);
    notice_clear(&gathered);
}

/* Every node acts on the union, so a lock's set no longer needs what it
 * covers. */
int hlrc_barrier_apply(const void *p, size_t len)
{
    notice_clear(&global);
    if (notice_merge_wire(&global, p, len))
        return -1;
    for (uint32_t i = 0; i < global.n; i++)
        apply(global.e[i].page, global.e[i].version);
    pthread_mutex_lock(&managed_mutex);
    for (int id = cfg.node; managed && id < COH_LOCK_SLOTS; id += cfg.nodes)
        if (managed[id].set.n)
            notice_prune(&managed[id].set, &global);
    pthread_mutex_unlock(&managed_mutex);
    return 0;
}

void hlrc_barrier_done(void) { notice_clear(&known); }
