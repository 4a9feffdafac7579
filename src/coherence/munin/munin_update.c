/*
 * munin_update.c - the delayed update queue (Section 3.3) and the updates
 * it sends. The first write to a page after a release twins it and queues
 * it; a release diffs every queued page and sends one message per
 * destination with all its diffs. Receivers apply them to their copies;
 * the manager also relays a non-manager's diffs to the other copy holders.
 */
#include "coherence/munin/munin_int.h"

#include <stdlib.h>
#include <string.h>

#include "coherence/diff.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "util/log.h"

static uint32_t *duq;
static uint32_t nduq;

STATS_COUNTER(updates_sent, "Munin update messages sent");
STATS_COUNTER(updates_applied, "Munin update messages applied here");

void mu_enqueue(uint32_t p)
{
    if (has_flag(p, F_QUEUED))
        return;
    set_flag(p, F_QUEUED);
    duq[nduq++] = p;
}

/* The first write since the last release: twin the page, queue it. The twin
 * is taken under the page lock so that an update applied meanwhile lands
 * in both the copy and the twin, and is never mistaken for a local write. */
void mu_twin_and_queue(uint32_t p)
{
    page_lock(p);
    memcpy(page_twin(p), page_rt(p), PAGE_SIZE);
    atomic_store(&mu[p].access, A_WRITE);
    page_unlock(p);
    mu_enqueue(p);
    detect_set_access(p, 1, ACCESS_WRITE);
    STAT_ADD(twins, 1);
}

/* ---- Receiving updates ------------------------------------------------------ */

/* Applies one diff (checked by bad_update) to this node's copy, and to its
 * twin when the page is being written here too (its own diff must not
 * contain these bytes). The manager's master copy always takes it; while a
 * stable page's copyset is being learned, the manager also hides the page
 * from its own application until it reads it again, so that a manager
 * reading the page shows as a consumer (munin_freeze.c). */
static void apply_update(uint32_t p, const uint8_t *diff, size_t len)
{
    page_lock(p);
    int acc = access_of(p);
    if (acc != A_NONE || is_home(p))
        diff_apply((uint8_t *)page_rt(p), diff, len);
    if (acc == A_WRITE)
        diff_apply((uint8_t *)page_twin(p), diff, len);
    if (acc == A_READ && is_home(p) && is_stable(p) && !has_flag(p, F_FROZEN))
        mu_set_access(p, 1, A_NONE);
    page_unlock(p);
    STAT_ADD(diffs_applied, 1);
    TRACE_MARK(EV_DIFF_APPLY, 0, p, len);
}

/* What is wrong with an update message, NULL if nothing: every entry must
 * be a well-formed diff of a Munin page, forwarded only by its manager.
 * Checked whole before any entry is applied. */
static const char *bad_update(const tsr_msg_hdr *h, const void *payload)
{
    size_t pos = 0;
    for (uint32_t i = 0; i < (uint32_t)h->arg[0]; i++) {
        outbox_entry e;
        if (outbox_next(payload, h->len, &pos, &e))
            return "fewer entries than its count";
        if (!mu_managed_by(e.page, 1, -1))
            return "an update of a page Munin does not keep";
        if (e.flags & ~(U_FORWARD | U_DROPPED))
            return "unknown entry flags";
        if ((e.flags & U_FORWARD) && !is_home(e.page))
            return "an update to forward for a page not managed here";
        if ((e.flags & U_DROPPED) && (!(e.flags & U_FORWARD) || !is_stable(e.page)))
            return "a dropped copy that was not a stable page's, sent to its manager";
        if (diff_apply(NULL, e.bytes, e.len))
            return "a malformed diff";
    }
    return NULL;
}

void mu_send_update(int dest, outbox *o, mu_ctx *ack_ctx)
{
    uint64_t reply = ack_ctx ? req_open(dest, MSG_MU_UPDATE_ACK, ack_ctx) : 0;
    am_send(dest, MSG_MU_UPDATE, o->count, reply, coh_epoch(), o->buf, o->len);
    COUNTER_ADD(updates_sent, 1);
}

static void ack_update(mu_ctx *c)
{
    am_send(c->src, MSG_MU_UPDATE_ACK, c->told.count, c->reply, 0, c->told.buf, c->told.len);
    outbox_free(&c->told);
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
    const char *why = bad_update(h, payload);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
    outbox *fwd = NULL, told = {0};
    size_t pos = 0;
    for (uint32_t i = 0; i < (uint32_t)h->arg[0]; i++) {
        outbox_entry e;
        outbox_next(payload, h->len, &pos, &e);
        apply_update(e.page, e.bytes, e.len);
        if (e.flags & U_FORWARD) {
            if (!fwd && !(fwd = calloc((size_t)cfg.nodes, sizeof *fwd)))
                log_die_status(1, "out of memory (Munin forward)");
            forward(src, e.page, e.bytes, e.len, fwd);
        }
        if (e.flags & U_DROPPED)
            mu_writer_dropped(src, e.page, &told);
    }
    COUNTER_ADD(updates_applied, 1);
    if (!h->arg[1]) {
        outbox_free(&told); /* no ack to carry it: a forwarded update is acked */
        coh_counted_arrival((uint32_t)h->arg[2]);
        return;
    }
    mu_ctx *c = mu_ctx_new(ack_update, src, h->arg[1]);
    c->told = told;
    uint32_t pending = 0;
    for (int j = 0; fwd && j < cfg.nodes; j++)
        if (fwd[j].count) {
            mu_send_update(j, &fwd[j], c);
            pending++;
        }
    for (int j = 0; fwd && j < cfg.nodes; j++)
        outbox_free(&fwd[j]);
    free(fwd);
    mu_ctx_start(c, pending);
}

/* The ack may carry copysets fixed before this node was told (a writer
 * of a stable page); the update itself is done either way. */
static void on_update_ack(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[0] && mu_learn_copysets(src, h, payload))
        am_reject(src, h, "a copyset of a page the sender does not manage, or malformed");
    mu_ctx *c = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    mu_ctx_ack(c);
}

/* ---- Release: flushing the DUQ ---------------------------------------------- */

/* Where a written page's diff goes: the manager with U_FORWARD when only
 * it knows the copy holders (it relays), else the copy holders. A writer
 * of a stable page whose copyset is still being learned drops its copy
 * too (U_DROPPED): its own write says nothing about whether it reads the
 * page, and a copy kept by a node that only wrote it once (initialising
 * it, say) would make it a consumer for good (munin_freeze.c). */
static uint64_t destinations(uint32_t p, uint8_t *flags)
{
    *flags = 0;
    if (mu[p].mech == MECH_RESULT)
        return bit(home(p));
    if (is_home(p)) {
        set_flag(p, F_UPDATED);
        pthread_mutex_lock(&mu_cs_mutex);
        uint64_t cs = atomic_load(&mu[p].cs);
        pthread_mutex_unlock(&mu_cs_mutex);
        return cs & ~bit(cfg.node);
    }
    if (has_flag(p, F_FROZEN))
        return atomic_load(&mu[p].cs) & ~bit(cfg.node);
    *flags = U_FORWARD | (is_stable(p) ? U_DROPPED : 0);
    return bit(home(p));
}

/* Ends the page's interval: write-protects it and adds its diff to the
 * outbox of each destination (an empty one too when the manager must hear
 * that the copy is dropped). A result copy is dropped afterwards. */
static void flush_page(uint32_t p, outbox *box, uint8_t *acked)
{
    static uint8_t scratch[DIFF_MAX];
    int acc = access_of(p);
    uint8_t flags = 0;
    clear_flag(p, F_QUEUED);
    if (acc == A_WRITE) {
        detect_set_access(p, 1, ACCESS_READ);
        uint64_t to = destinations(p, &flags);
        page_lock(p);
        size_t len = to ? diff_encode((uint8_t *)page_twin(p), (uint8_t *)page_rt(p), scratch) : 0;
        atomic_store(&mu[p].access, A_READ);
        page_unlock(p);
        if (len) {
            STAT_ADD(diffs_created, 1);
            STAT_ADD(diff_bytes, len);
            TRACE_MARK(EV_DIFF_MAKE, 0, p, len);
        }
        for (int j = 0; (len || (flags & U_DROPPED)) && j < cfg.nodes; j++)
            if (to & bit(j)) {
                outbox_add(&box[j], p, flags, scratch, len);
                acked[j] |= flags & U_FORWARD;
            }
    }
    if (mu[p].mech == MECH_RESULT || has_flag(p, F_BOUND) || (flags & U_DROPPED))
        mu_set_access(p, 1, A_NONE);
}

void mu_flush_range(uint32_t lo, uint32_t hi, uint32_t *sent)
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
            mu_send_update(j, &box[j], NULL);
        } else {
            atomic_fetch_add(&c.w.pending, 1);
            mu_send_update(j, &box[j], &c);
        }
    }
    waiter_wait(&c.w);
    for (int j = 0; j < cfg.nodes; j++)
        outbox_free(&box[j]);
    free(box);
    free(acked);
}

void mu_flush(uint32_t *sent)
{
    mu_flush_range(0, region.npages, sent);
    if (sent)
        mu_freeze_tell(sent);
}

void munin_flush_object(uint32_t first, uint32_t n) { mu_flush_range(first, first + n, NULL); }

void mu_update_init(void)
{
    duq = region_page_table(sizeof *duq, "Munin's delayed update queue");
    stats_register(&updates_sent);
    stats_register(&updates_applied);
    am_register(MSG_MU_UPDATE, on_update);
    am_register(MSG_MU_UPDATE_ACK, on_update_ack);
}
