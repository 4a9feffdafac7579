/*
 * hlrc_mcast.c - the data every node needs, sent once during replicated
 * sections (openmp-now-replicated-sequential-sections.md, Section 5.4;
 * docs/OMPNOW.md).
 *
 * Every node runs a section's code, so every node that lacks a page faults
 * on it at about the same time. The paper appoints one requester per page,
 * the lowest-numbered node that will fault on it, found from valid notices
 * exchanged at the join; the others wait for the multicast reply. Here the
 * appointed node is the page's home, which needs no notice to know that its
 * copy is valid, and asks nobody: it runs the same code, so when it first
 * reads the page in the section it multicasts it (an *offer*). To see that
 * read, the home protects at the section's start the home pages named in
 * write notices since the last section (hlrc_mc_noticed: pages the other
 * nodes are likely to hold invalid); the fault hands the page to the comm
 * thread (MSG_PAGE_OFFER to itself, coh_offer: the fault path may not
 * allocate), which multicasts it to every other node.
 *
 * A node that reaches the page before its home does asks, as outside
 * sections: the first request for a page is answered as usual and the
 * same reply goes to every other node. Either way the page is then sent
 * (`sent`); a node keeps every page it receives so (`pushed`) and takes
 * it at its fault without asking. So the home multicasts each page once
 * per section, and asking is left to nodes that run ahead of the home. A
 * request that crosses the multicast is answered with the page all the
 * same (`requests_crossed`): an answer is what tells the requester that
 * the transport is done with its request, which lives on the faulting
 * thread's stack (an empty "on its way" answer would cost as many
 * messages and a wait for the multicast besides).
 *
 * Each request names the section its node is in (MSG_PAGE_REQ), and the
 * home multicasts for that section only if it is the home's own section
 * or the next (coh_mc_asked): a requester may begin a section before the
 * home, which serves it all the same, and a requester that has left the
 * section may ask before the home has noticed its end.
 *
 * A push can arrive before this node has begun the section, even before
 * the join's notices have invalidated the page. A push is therefore kept in
 * the page's twin slot, free then (no twin is made in a section, and the
 * barrier that opens one has flushed every twin), with its version
 * beside it, and copied in only at the fault, which the notices decide.
 *
 * Fetches bring one page in a section (no readahead), so that the pages a
 * request names and the pages already sent never partly overlap.
 */
#include <stdatomic.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/hlrc/hlrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "multicast/multicast.h"
#include "stats/stats.h"
#include "transport/request.h"
#include "util/config.h"
#include "util/spin.h"
#include "util/log.h"

STATS_COUNTER(pages_multicast, "pages a home multicast to all during replicated sections");
STATS_COUNTER(pages_taken, "pages another node's request brought, taken without asking");
STATS_COUNTER(requests_crossed, "page requests a home answered in replicated sections though "
                                "the page had gone to their node by multicast");
STATS_COUNTER(pages_offered, "pages a home multicast at its own first read in a replicated "
                             "section, before any node asked");

/* Receiver: pages a multicast brought, kept in their twin slots: their
 * version + 1 (0: none), set by the comm thread and taken by the fault,
 * listed so that the section's end forgets those never taken. The list
 * is under list_busy: a push can arrive while the section ends, and one
 * listed after the end's walk would stay set into the next section. */
static _Atomic uint32_t *pushed;
static uint32_t *pushed_list;
static _Atomic uint32_t npushed;
static spin_t list_busy;
/* Home (comm thread): pages multicast in this section, marked under
 * list_busy as the pushed ones, for the same reason: the section's end
 * (application thread) clears them while a late push may mark one. */
static _Atomic uint8_t *sent;
static uint32_t *sent_list;
static uint32_t nsent;
/* The section (its barrier epoch) while multicast is on, else 0. */
static _Atomic uint32_t section;
/* Home (application thread): home pages named by notices since the last
 * section began (each listed once), watched in the next, their first read
 * offering them. */
static uint32_t *noticed_list, nnoticed;
static uint8_t *noticed_listed;
static _Atomic uint8_t *watch;
static uint32_t *watch_list, nwatch;

static void on_push(int src, const tsr_msg_hdr *h, void *payload);
static void on_offer(int src, const tsr_msg_hdr *h, void *payload);

void hlrc_mc_init(void)
{
    pushed = region_page_table(sizeof *pushed, "the multicast page flags");
    pushed_list = region_page_table(sizeof *pushed_list, "the multicast page list");
    sent = region_page_table(sizeof *sent, "the multicast sent flags");
    sent_list = region_page_table(sizeof *sent_list, "the multicast sent list");
    noticed_list = region_page_table(sizeof *noticed_list, "the noticed home page list");
    noticed_listed = region_page_table(sizeof *noticed_listed, "the noticed home page flags");
    watch = region_page_table(sizeof *watch, "the watched home page flags");
    watch_list = region_page_table(sizeof *watch_list, "the watched home page list");
    stats_register(&pages_multicast);
    stats_register(&pages_taken);
    stats_register(&pages_offered);
    stats_register(&requests_crossed);
    am_register(MSG_PAGE_PUSH, on_push);
    am_register(MSG_PAGE_OFFER, on_offer);
    mc_allow(MSG_PAGE_PUSH);
}

void hlrc_mc_noticed(uint32_t p)
{
    if (!noticed_listed[p]) {
        noticed_listed[p] = 1;
        noticed_list[nnoticed++] = p;
    }
}

/* Protects the home pages noticed since the last section began, so that
 * the home's first read of each in this one offers it. */
static void watch_noticed(int on)
{
    for (uint32_t i = 0; i < nnoticed; i++) {
        uint32_t p = noticed_list[i];
        noticed_listed[p] = 0;
        if (!on || coh_protocol_of(p) != &hlrc_protocol || !hlrc_is_home(p) ||
            hlrc_state(p) != HOME_READ)
            continue;
        watch_list[nwatch++] = p;
        atomic_store(&watch[p], 1);
        detect_set_access(p, 1, ACCESS_NONE);
    }
    nnoticed = 0;
}

void hlrc_mc_begin(void)
{
    atomic_store(&section, coh_mc_section());
    watch_noticed(atomic_load(&section) != 0);
}

void hlrc_mc_end(void)
{
    for (uint32_t i = 0; i < nwatch; i++) {
        uint32_t p = watch_list[i];
        if (atomic_exchange(&watch[p], 0) && hlrc_state(p) == HOME_READ)
            detect_set_access(p, 1, ACCESS_READ);
    }
    nwatch = 0;
    spin_lock(&list_busy);
    atomic_store(&section, 0);
    for (uint32_t i = 0; i < atomic_load(&npushed); i++)
        atomic_store(&pushed[pushed_list[i]], 0);
    atomic_store(&npushed, 0);
    for (uint32_t i = 0; i < nsent; i++)
        atomic_store(&sent[sent_list[i]], 0);
    nsent = 0;
    spin_unlock(&list_busy);
}

uint32_t hlrc_mc_section(void) { return atomic_load(&section); }

/* Copies a kept page in (the application thread, at its fault). */
static int take(uint32_t p)
{
    uint32_t v = atomic_exchange(&pushed[p], 0);
    if (!v)
        return 0;
    memcpy(page_rt(p), page_twin(p), PAGE_SIZE);
    atomic_store_explicit(&region.meta[p].version, v - 1, memory_order_release);
    COUNTER_ADD(pages_taken, 1);
    return 1;
}

int hlrc_mc_take(uint32_t p) { return atomic_load(&section) && take(p); }

/* Marks page p sent in section s and multicasts the reply `rep` to every
 * node but this one and `except`. */
static void send_once(int except, uint32_t s, uint32_t p, const void *rep, size_t len)
{
    spin_lock(&list_busy);
    int live = coh_mc_current(atomic_load(&section), s); /* this section or the next */
    if (live) {
        atomic_store(&sent[p], 1);
        sent_list[nsent++] = p;
    }
    spin_unlock(&list_busy);
    if (!live)
        return;
    mc_send_others(except, MSG_PAGE_PUSH, p, s, 0, rep, len);
    COUNTER_ADD(pages_multicast, 1);
}

void hlrc_mc_push(int requester, const tsr_msg_hdr *h, const fetch_run *r, const void *rep,
                  size_t len)
{
    uint32_t s = coh_mc_asked(atomic_load(&section), h->arg[0]);
    if (!s || r->n != 1)
        return;
    if (atomic_load(&sent[r->first]))
        COUNTER_ADD(requests_crossed, 1);
    else
        send_once(requester, s, r->first, rep, len);
}

int hlrc_mc_offered(uint32_t p)
{
    if (!atomic_load_explicit(&watch[p], memory_order_relaxed) || !atomic_exchange(&watch[p], 0))
        return 0;
    coh_offer(MSG_PAGE_OFFER, p, atomic_load(&section));
    return 1;
}

/* A home page read for the first time in the section (hlrc_mc_offered):
 * multicast to every other node, unless a request came first. */
static void on_offer(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0], s = (uint32_t)h->arg[1];
    if (coh_offer_taken(src, h) || coh_protocol_of(p) != &hlrc_protocol || !hlrc_is_home(p)) {
        am_reject(src, h, "an offer not from this node's own fault, or of no page homed here");
        return;
    }
    if (s != atomic_load(&section) || atomic_load(&sent[p]))
        return;
    /* As a reply (hlrc_fetch.c): the copies it makes are announced at
     * the home's next write; version first, then bytes. */
    char rep[REP_PAGES_AT(1) + PAGE_SIZE] = {0};
    hlrc_note_copied(p);
    uint32_t v = atomic_load_explicit(&region.meta[p].version, memory_order_acquire);
    memcpy(rep, &v, 4);
    hlrc_copy_served(p, rep + REP_PAGES_AT(1));
    hlrc_note_copied(p);
    send_once(-1, s, p, rep, sizeof rep);
    COUNTER_ADD(pages_offered, 1);
}

/* A page the home multicast, kept for the fault (or handed to the fetch
 * that waits for it). */
static void on_push(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0];
    if (!hlrc_keeps(p) || hlrc_home_of(p) != src ||
        src == cfg.node || h->len != REP_PAGES_AT(1) + PAGE_SIZE) {
        am_reject(src, h, "a page not home-based and homed at the sender, or not one page");
        return;
    }
    spin_lock(&list_busy);
    if (!coh_mc_current(atomic_load(&section), h->arg[1]) || atomic_load(&pushed[p])) {
        spin_unlock(&list_busy);
        return;
    }
    uint32_t v;
    memcpy(&v, payload, 4);
    memcpy(page_twin(p), (const char *)payload + REP_PAGES_AT(1), PAGE_SIZE);
    pushed_list[atomic_fetch_add(&npushed, 1)] = p;
    atomic_store_explicit(&pushed[p], v + 1, memory_order_release);
    spin_unlock(&list_busy);
}
