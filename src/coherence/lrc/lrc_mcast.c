/*
 * lrc_mcast.c - the diffs every node needs, sent once during replicated
 * sections of the lazy protocol (openmp-now-replicated-sequential-
 * sections.md, Section 5.4; docs/OMPNOW.md).
 *
 * In a section every node runs the same code, so every node that lacks a
 * page faults on it at about the same time, and asks the same writers for
 * the same diffs: the join's barrier gave every node the same notices. As
 * the home-based protocol's pages (hlrc_mcast.c), the writer picks, with
 * no extra message: the first request for a page's diffs in the section
 * is answered as usual, and the same reply goes to every other node. A
 * node keeps the diffs it receives so, per page, and its fault takes them
 * instead of asking that writer, if they hold every interval of that
 * writer its notices name. A request that crossed the multicast (the
 * diffs had gone out when it came) is answered with the diffs all the
 * same (`diff_requests_crossed`), as in hlrc_mcast.c: the answer is what
 * tells the requester that the transport is done with its request. Each
 * request names its node's section, which the writer serves even before
 * it has begun it itself (coh_mc_asked).
 *
 * A diff is the writes of its intervals whenever it arrives, so a kept
 * diff is never wrong, only possibly useless: the notices decide at the
 * fault. A multicast can arrive before this node has begun the section,
 * even before the join's notices; it is kept if it belongs to this
 * node's section or the next (coh_mc_current), and what the section did
 * not use is freed at its end.
 *
 * A writer needs no request at all for the pages it wrote last: it runs
 * the section too, so at the section's start it protects the pages whose
 * diff is pending (lrc_each_pending: written since anyone asked), and its
 * first read of one in the section hands it to the comm thread
 * (MSG_LRC_DIFF_OFFER, coh_offer), which makes the diff and multicasts it
 * to every other node: an *offer*, as the home's in hlrc_mcast.c. Nodes
 * ask only when they run ahead of the writer, or lack older intervals.
 *
 * Differences from the paper: no valid notices at the join (the writer
 * decides, as above); a node asks every writer its notices name, as
 * outside sections, where TreadMarks' requester could ask one node for
 * all; and each writer multicasts its own diffs.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "coherence/lrc/lrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "multicast/multicast.h"
#include "stats/stats.h"
#include "transport/request.h"
#include "util/config.h"
#include "util/spin.h"
#include "util/log.h"

STATS_COUNTER(diffs_multicast, "LRC: pages whose diffs a writer multicast during replicated "
                               "sections");
STATS_COUNTER(diffs_taken, "LRC: a writer's diffs of a page taken from its multicast, "
                           "without asking");

STATS_COUNTER(diffs_offered, "LRC: pages whose diffs a writer multicast at its own first read "
                             "in a replicated section, before any node asked");
STATS_COUNTER(diff_requests_crossed, "LRC: diff requests a writer answered in replicated "
                                     "sections though it had multicast the page's diffs");

/* Writer (comm thread): per page, whether its diffs went out in this
 * section. */
static uint8_t *sent;
static uint32_t *sent_list, nsent;
/* Receiver: per page, the diffs multicast to this node, listed so that
 * the section's end frees them; under kept_busy (the comm thread adds,
 * the fault takes). */
static lrc_diff **kept;
static uint8_t *kept_listed;
static uint32_t *kept_list, nkept;
static spin_t kept_busy;
/* Writer (application thread): pages watched in the section, with the
 * intervals of their pending diff when it began. */
static _Atomic uint8_t *watch;
static uint32_t *watch_lo, *watch_hi, *watch_list, nwatch;
/* This node's section (coh_mc_section), or 0. */
static _Atomic uint32_t section;
static void on_push(int src, const tsr_msg_hdr *h, void *payload);
static void on_offer(int src, const tsr_msg_hdr *h, void *payload);
static void send_once(int except, uint32_t s, uint32_t p, uint32_t count, const void *payload,
                      size_t len);

void lrc_mc_init(void)
{
    sent = region_page_table(sizeof *sent, "the LRC multicast records");
    sent_list = region_page_table(sizeof *sent_list, "the LRC multicast list");
    kept = region_page_table(sizeof *kept, "the LRC multicast diffs");
    kept_listed = region_page_table(sizeof *kept_listed, "the LRC multicast diff flags");
    kept_list = region_page_table(sizeof *kept_list, "the LRC multicast diff list");
    stats_register(&diffs_multicast);
    stats_register(&diffs_taken);
    stats_register(&diff_requests_crossed);
    stats_register(&diffs_offered);
    watch = region_page_table(sizeof *watch, "the LRC watched page flags");
    watch_lo = region_page_table(sizeof *watch_lo, "the LRC watched page intervals");
    watch_hi = region_page_table(sizeof *watch_hi, "the LRC watched page intervals");
    watch_list = region_page_table(sizeof *watch_list, "the LRC watched page list");
    am_register(MSG_LRC_DIFF_OFFER, on_offer);
    am_register(MSG_LRC_DIFF_PUSH, on_push);
    mc_allow(MSG_LRC_DIFF_PUSH);
}

static void watch_pending(uint32_t p, uint32_t lo, uint32_t hi)
{
    if (region.meta[p].state != L_READ)
        return;
    watch_lo[p] = lo;
    watch_hi[p] = hi;
    watch_list[nwatch++] = p;
    atomic_store(&watch[p], 1);
    detect_set_access(p, 1, ACCESS_NONE);
}

void lrc_mc_begin(void)
{
    atomic_store(&section, coh_mc_section());
    if (atomic_load(&section))
        lrc_each_pending(watch_pending);
}

void lrc_mc_offered(uint32_t p)
{
    if (atomic_load_explicit(&watch[p], memory_order_relaxed) && atomic_exchange(&watch[p], 0))
        coh_offer(MSG_LRC_DIFF_OFFER, p, atomic_load(&section));
}

/* A page this writer first read in the section (lrc_mc_offered): its
 * pending diff of then, multicast to every other node unless asked for. */
static void on_offer(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0], s = (uint32_t)h->arg[1];
    if (coh_offer_taken(src, h) || coh_protocol_of(p) != &lrc_protocol) {
        am_reject(src, h, "an offer not from this node's own fault, or of no lazy page");
        return;
    }
    if (s != atomic_load(&section) || sent[p])
        return;
    pbuf out = {0};
    uint32_t count = lrc_diffs_put(p, watch_lo[p], watch_hi[p], &out);
    if (count && out.len <= MC_MAX_BYTES) {
        send_once(-1, s, p, count, out.p, out.len);
        COUNTER_ADD(diffs_offered, 1);
    }
    pbuf_free(&out);
}

void lrc_mc_end(void)
{
    for (uint32_t i = 0; i < nwatch; i++) {
        uint32_t p = watch_list[i];
        if (atomic_exchange(&watch[p], 0) && region.meta[p].state == L_READ)
            detect_set_access(p, 1, ACCESS_READ);
    }
    nwatch = 0;
    atomic_store(&section, 0);
    for (uint32_t i = 0; i < nsent; i++)
        sent[sent_list[i]] = 0;
    nsent = 0;
    spin_lock(&kept_busy);
    for (uint32_t i = 0; i < nkept; i++) {
        uint32_t p = kept_list[i];
        lrc_diffs_free(kept[p]);
        kept[p] = NULL;
        kept_listed[p] = 0;
    }
    nkept = 0;
    spin_unlock(&kept_busy);
}

uint32_t lrc_mc_section(void) { return atomic_load(&section); }

/* Marks page p's diffs sent in section s and multicasts them to every node
 * but this one and `except`. */
static void send_once(int except, uint32_t s, uint32_t p, uint32_t count, const void *payload,
                      size_t len)
{
    sent[p] = 1;
    sent_list[nsent++] = p;
    mc_send_others(except, MSG_LRC_DIFF_PUSH, p, s, count, payload, len);
    COUNTER_ADD(diffs_multicast, 1);
}

void lrc_mc_push(int requester, const tsr_msg_hdr *h, uint32_t count, const void *payload,
                 size_t len)
{
    uint32_t s = coh_mc_asked(atomic_load(&section), h->arg[0]), p = (uint32_t)h->arg[0];
    if (!s || !count || len > MC_MAX_BYTES)
        return;
    if (sent[p])
        COUNTER_ADD(diff_requests_crossed, 1);
    else
        send_once(requester, s, p, count, payload, len);
}

/* Unlinks writer's kept diffs of page p onto f->got (under kept_busy). */
static void move_kept(uint32_t p, uint32_t writer, lrc_fetch *f)
{
    lrc_diff **at = &kept[p], *got = atomic_load(&f->got);
    while (*at) {
        lrc_diff *d = *at;
        if (d->writer != writer) {
            at = &d->next;
            continue;
        }
        *at = d->next;
        d->next = got;
        got = d;
    }
    atomic_store(&f->got, got);
}

int lrc_mc_take(uint32_t p, uint32_t writer, lrc_fetch *f)
{
    if (!atomic_load(&section))
        return 0;
    spin_lock(&kept_busy);
    int all = kept[p] && lrc_fetch_covers(f, writer, kept[p]);
    if (all)
        move_kept(p, writer, f);
    spin_unlock(&kept_busy);
    if (all)
        COUNTER_ADD(diffs_taken, 1);
    return all;
}

/* Diffs a writer multicast, kept for the fault to come. */
static void on_push(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0];
    lrc_diff *list = NULL;
    if (coh_protocol_of(p) != &lrc_protocol || src == cfg.node || !h->arg[2] ||
        lrc_diffs_decode(src, h, payload, &list)) {
        lrc_diffs_free(list);
        am_reject(src, h, "no page of the lazy protocol, or malformed diffs");
        return;
    }
    if (!coh_mc_current(atomic_load(&section), h->arg[1])) {
        lrc_diffs_free(list);
        return;
    }
    spin_lock(&kept_busy);
    if (!kept_listed[p]) {
        kept_listed[p] = 1;
        kept_list[nkept++] = p;
    }
    kept[p] = lrc_diffs_join(list, kept[p]);
    spin_unlock(&kept_busy);
}
