/*
 * munin_freeze.c - producer_consumer's stable sharing pattern (the S
 * parameter). The manager learns a page's copyset from the fetches and
 * relayed updates of its first epochs, then fixes it at a barrier: from
 * then on writers update the consumers directly, a page only the manager
 * holds stops faulting, and a fetch from outside the copyset is refused.
 *
 * When a copyset freezes: at the end of the first barrier epoch in which
 * an update of the page reached another node (a copy holder, or a writer
 * whose diff the manager relayed). An update that reaches nobody teaches
 * nothing about the consumers (an owner initialising its data, or
 * red-black SOR's first sweep over the red matrix, which nobody has read
 * yet); a page updated in QUIET_EPOCHS epochs that reached nobody is taken
 * to be private and frozen too.
 */
#include "coherence/munin/munin_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

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
        mu_set_access(p, 1, A_OWNED);
}

static int stable(uint32_t p) { return (mu[p].params & TSR_MUNIN_STABLE) != 0; }

void mu_barrier_done(void)
{
    outbox *tell = calloc((size_t)cfg.nodes, sizeof *tell);
    if (!tell)
        log_die("out of memory (Munin barrier)");
    for (uint32_t o = 0; o < mu_nobjects; o++) {
        uint32_t first = mu_objects[o].first;
        if (mu[first].mech != MECH_UPDATE || !stable(first))
            continue;
        for (uint32_t p = first; p < first + mu_objects[o].n; p++) {
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

/* A writer learns a frozen copyset: it updates the consumers directly. */
/* Every entry a copyset of a page its sender manages; checked whole first. */
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

static void on_frozen(int src, const tsr_msg_hdr *h, void *payload)
{
    if (bad_copysets(src, h, payload)) {
        am_reject(src, h, "a copyset of a page the sender does not manage, or malformed");
        return;
    }
    size_t pos = 0;
    for (uint64_t i = 0; i < h->arg[0]; i++) {
        outbox_entry e;
        outbox_next(payload, h->len, &pos, &e);
        uint64_t v;
        memcpy(&v, e.bytes, sizeof v);
        atomic_store(&mu[e.page].cs, v);
        set_flag(e.page, F_FROZEN);
    }
}

void mu_freeze_init(void) { am_register(MSG_MU_FROZEN, on_frozen); }
