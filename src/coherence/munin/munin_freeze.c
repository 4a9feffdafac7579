/*
 * munin_freeze.c - producer_consumer's stable sharing pattern (the S
 * parameter). The manager learns a page's copyset from the fetches and
 * relayed updates of its first epochs, then fixes it at a barrier: from
 * then on writers update the consumers directly, a page only the manager
 * holds stops faulting, and a fetch from outside the copyset is refused.
 *
 * When a copyset freezes: at the end of the first barrier epoch in which
 * an update of the page reached a node other than its writers and its
 * manager (a node that fetched a copy to read it). An update that reaches
 * nobody teaches nothing about the consumers (a node initialising the
 * data, or red-black SOR's first sweep over the red matrix, which nobody
 * has read yet); a page updated in QUIET_EPOCHS epochs that reached nobody
 * is taken to have no consumers and frozen too. A writer's own update
 * reaches no consumer: until the copyset is fixed, a writer other than the
 * manager drops its copy as it sends its diff (U_DROPPED), and holds one
 * again only if it reads the page again. So a node that wrote a page once
 * and never reads it (the one that initialised the grid) leaves the
 * copyset; the writers of the freezing epoch join it, to go on writing.
 * The manager always stays in it: it keeps the master copy.
 *
 * The manager tells the writers the fixed copyset at the next barrier's
 * arrival, counted by that barrier: they know it before they leave.
 */
#include "coherence/munin/munin_int.h"

#include <stdlib.h>
#include <string.h>

#include "coherence/protocol.h"
#include "util/log.h"

#define QUIET_EPOCHS 3

/* Pages whose copysets were fixed since the last barrier arrival, to tell
 * their writers about (those whose F_TELL a reset or free has not cleared). */
static uint32_t *to_tell;
static uint32_t nto_tell;

/* The barriers whose end this node has processed here; a node that left
 * the last one before this node did may already fetch (mu_join_early). */
static _Atomic uint32_t epochs_done;

/* Whether a node other than the page's writers held a copy during the
 * epoch (nodes that joined from the next epoch do not count), or the
 * manager read it since the last update. */
static int reached_consumers(uint32_t p, uint64_t writers)
{
    uint64_t cs = atomic_load(&mu[p].cs);
    return (cs & ~atomic_load(&mu[p].early) & ~writers & ~bit(cfg.node)) != 0 ||
           has_flag(p, F_MREAD);
}

/* Fixes a page's copyset: the readers, the manager and this epoch's
 * writers, whom the manager will tell; a page only the manager holds
 * becomes private (writable, no more faults). */
static void freeze(uint32_t p, uint64_t writers)
{
    set_flag(p, F_FROZEN);
    uint64_t cs = atomic_fetch_or(&mu[p].cs, writers) | writers;
    if (writers & ~bit(cfg.node)) {
        set_flag(p, F_TELL);
        to_tell[nto_tell++] = p;
    }
    if (access_of(p) == A_READ || access_of(p) == A_NONE)
        mu_set_access(p, 1, cs == bit(cfg.node) ? A_OWNED : A_READ);
}

/* Runs fn on every page this node manages of the stable objects kept by
 * the delayed update queue. */
static void each_stable_page(void (*fn)(uint32_t))
{
    for (uint32_t o = 0; o < mu_nobjects; o++) {
        uint32_t first = mu_objects[o].first;
        if (mu[first].mech != MECH_UPDATE || !is_stable(first))
            continue;
        for (uint32_t p = first; p < first + mu_objects[o].n; p++)
            if (is_home(p))
                fn(p);
    }
}

/* The end of an epoch that updated page p: fix its copyset, or not yet. */
static void judge(uint32_t p)
{
    if (!has_flag(p, F_UPDATED) || has_flag(p, F_FROZEN))
        return;
    clear_flag(p, F_UPDATED);
    uint64_t writers = atomic_load(&mu[p].writers);
    if (reached_consumers(p, writers) || ++mu[p].quiet_epochs >= QUIET_EPOCHS)
        freeze(p, writers);
    else
        atomic_fetch_and(&mu[p].writers, ~writers);
    clear_flag(p, F_MREAD);
}

/* Those who joined early are now copy holders of the current epoch. */
static void not_early(uint32_t p) { atomic_store(&mu[p].early, 0); }

void mu_barrier_done(void)
{
    each_stable_page(judge);
    atomic_fetch_add(&epochs_done, 1);
    each_stable_page(not_early);
}

int mu_join_early(uint64_t epoch)
{
    uint32_t done = atomic_load(&epochs_done);
    return epoch == done ? 0 : epoch == (uint64_t)done + 1 ? 1 : -1;
}

void mu_freeze_tell(uint32_t *sent)
{
    if (!nto_tell)
        return;
    outbox *box = calloc((size_t)cfg.nodes, sizeof *box);
    if (!box)
        log_die("out of memory (Munin's copysets to tell)");
    for (uint32_t i = 0; i < nto_tell; i++) {
        uint32_t p = to_tell[i];
        if (!has_flag(p, F_TELL))
            continue;
        clear_flag(p, F_TELL);
        uint64_t cs = atomic_load(&mu[p].cs), writers = atomic_load(&mu[p].writers);
        for (int j = 0; j < cfg.nodes; j++)
            if (j != cfg.node && (writers & bit(j)))
                outbox_add(&box[j], p, 0, &cs, sizeof cs);
    }
    nto_tell = 0;
    for (int j = 0; j < cfg.nodes; j++) {
        if (box[j].count) {
            am_send(j, MSG_MU_FROZEN, box[j].count, 0, coh_epoch(), box[j].buf, box[j].len);
            sent[j]++;
        }
        outbox_free(&box[j]);
    }
    free(box);
}

void mu_writer_dropped(int src, uint32_t p, outbox *told)
{
    if (!has_flag(p, F_FROZEN)) {
        atomic_fetch_and(&mu[p].cs, ~bit(src));
        return;
    }
    /* A writer that was not told: the copyset was fixed in an epoch it did
     * not write in, or it wrote before the telling barrier. */
    uint64_t cs = atomic_fetch_or(&mu[p].cs, bit(src)) | bit(src);
    outbox_add(told, p, 0, &cs, sizeof cs);
}

/* A writer learns a frozen copyset: it updates the consumers directly.
 * Every entry must be a copyset of a page its sender manages (checked
 * whole first). */
static int bad_copysets(int src, const tsr_msg_hdr *h, const void *payload)
{
    size_t pos = 0;
    for (uint64_t i = 0; i < h->arg[0]; i++) {
        outbox_entry e;
        if (outbox_next(payload, h->len, &pos, &e) || e.len != 8 ||
            !mu_managed_by(e.page, 1, src))
            return 1;
    }
    return 0;
}

int mu_learn_copysets(int src, const tsr_msg_hdr *h, const void *payload)
{
    if (bad_copysets(src, h, payload))
        return -1;
    size_t pos = 0;
    for (uint64_t i = 0; i < h->arg[0]; i++) {
        outbox_entry e;
        outbox_next(payload, h->len, &pos, &e);
        uint64_t v;
        memcpy(&v, e.bytes, sizeof v);
        atomic_store(&mu[e.page].cs, v);
        set_flag(e.page, F_FROZEN);
    }
    return 0;
}

static void on_frozen(int src, const tsr_msg_hdr *h, void *payload)
{
    if (mu_learn_copysets(src, h, payload)) {
        am_reject(src, h, "a copyset of a page the sender does not manage, or malformed");
        return;
    }
    coh_counted_arrival((uint32_t)h->arg[2]);
}

void mu_freeze_init(void)
{
    to_tell = region_page_table(sizeof *to_tell, "Munin's copysets to tell");
    am_register(MSG_MU_FROZEN, on_frozen);
}
