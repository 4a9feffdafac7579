/*
 * hlrc_mcast.c - the data every node needs, sent once during replicated
 * sections (openmp-now-replicated-sequential-sections.md, Section 5.4;
 * docs/OMPNOW.md).
 *
 * Every node runs a section's code, so every node that lacks a page faults
 * on it at about the same time. The paper picks one requester per page
 * from valid notices exchanged at the join, and multicasts the reply. Here
 * the home picks, with no extra message and no notices: the first request
 * for a page in the section is answered as usual, and the same reply goes
 * to every other node (multicast.h: a tree, or one transmission). A node
 * keeps every page it receives so (`pushed`) and takes it at its fault
 * without asking; a request that crossed the multicast is answered by an
 * empty reply, "it is on its way", and waits for it. So the home sends
 * each page's bytes once per section, whoever asks first.
 *
 * Each request names the section its node is in (MSG_PAGE_REQ), and the
 * home multicasts for that section, and tells "on its way", only if it is
 * the home's own section or the next (coh_mc_asked): a requester may
 * begin a section before the home, which serves it all the same, and a
 * requester that has left the section may ask before the home has noticed
 * its end, and must then get the page itself.
 *
 * Since a requester may then wait for nothing else, no push may be lost:
 * one can arrive before this node has begun the section, even before the
 * join's notices have invalidated the page. A push is therefore kept in
 * the page's twin slot, free then (no twin is made in a section, and the
 * barrier that opens one has flushed every twin), with its version
 * beside it, and copied in only at the fault, which the notices decide.
 *
 * Fetches bring one page in a section (no readahead), so that the pages a
 * request names and the pages already sent never partly overlap.
 */
#include <stdatomic.h>
#include <string.h>

#include "coherence/hlrc/hlrc.h"
#include "coherence/protocol.h"
#include "memory/region.h"
#include "multicast/multicast.h"
#include "stats/stats.h"
#include "transport/request.h"
#include "util/config.h"
#include "util/spin.h"
#include "util/log.h"

STATS_COUNTER(pages_multicast, "pages a home multicast to all during replicated sections");
STATS_COUNTER(pages_taken, "pages another node's request brought, taken without asking");

/* Receiver: pages a multicast brought, kept in their twin slots: their
 * version + 1 (0: none), set by the comm thread and taken by the fault,
 * listed so that the section's end forgets those never taken. The list
 * is under list_busy: a push can arrive while the section ends, and one
 * listed after the end's walk would stay set into the next section. */
static _Atomic uint32_t *pushed;
static uint32_t *pushed_list;
static _Atomic uint32_t npushed;
static spin_t list_busy;
/* Home (comm thread): pages multicast in this section. */
static uint8_t *sent;
static uint32_t *sent_list;
static uint32_t nsent;
/* The section (its barrier epoch) while multicast is on, else 0. */
static _Atomic uint32_t section;
/* Requester (comm thread): a fetch told "on its way" before the page came. */
static fetch_wait *pending;

static void on_push(int src, const tsr_msg_hdr *h, void *payload);

void hlrc_mc_init(void)
{
    pushed = region_page_table(sizeof *pushed, "the multicast page flags");
    pushed_list = region_page_table(sizeof *pushed_list, "the multicast page list");
    sent = region_page_table(sizeof *sent, "the multicast sent flags");
    sent_list = region_page_table(sizeof *sent_list, "the multicast sent list");
    stats_register(&pages_multicast);
    stats_register(&pages_taken);
    am_register(MSG_PAGE_PUSH, on_push);
    mc_allow(MSG_PAGE_PUSH);
}

void hlrc_mc_begin(void) { atomic_store(&section, coh_mc_section()); }

void hlrc_mc_end(void)
{
    spin_lock(&list_busy);
    atomic_store(&section, 0);
    for (uint32_t i = 0; i < atomic_load(&npushed); i++)
        atomic_store(&pushed[pushed_list[i]], 0);
    atomic_store(&npushed, 0);
    spin_unlock(&list_busy);
    for (uint32_t i = 0; i < nsent; i++)
        sent[sent_list[i]] = 0;
    nsent = 0;
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

int hlrc_mc_answered(int src, const tsr_msg_hdr *h, const fetch_run *r)
{
    if (!coh_mc_asked(atomic_load(&section), h->arg[0]) || r->n != 1 || !sent[r->first])
        return 0;
    am_send(src, MSG_PAGE_REP, r->first, h->arg[1], h->arg[2], NULL, 0);
    return 1;
}

void hlrc_mc_push(int requester, const tsr_msg_hdr *h, const fetch_run *r, const void *rep,
                  size_t len)
{
    uint32_t s = coh_mc_asked(atomic_load(&section), h->arg[0]);
    if (!s || r->n != 1 || sent[r->first])
        return;
    sent[r->first] = 1;
    sent_list[nsent++] = r->first;
    mc_send_others(requester, MSG_PAGE_PUSH, r->first, s, 0, rep, len);
    COUNTER_ADD(pages_multicast, 1);
}

int hlrc_mc_await(const tsr_msg_hdr *h, fetch_wait *fw)
{
    if (h->len || !atomic_load(&section) || fw->r.n != 1)
        return 0;
    req_close(h->arg[1]);
    if (take(fw->r.first))
        waiter_done(&fw->w);
    else
        pending = fw;
    return 1;
}

/* A page the home multicast, kept for the fault (or handed to the fetch
 * that waits for it). */
static void on_push(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0];
    if (!hlrc_keeps(p) || region.meta[p].home != src ||
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
    if (pending && pending->r.first == p) {
        fetch_wait *fw = pending;
        pending = NULL;
        take(p);
        waiter_done(&fw->w);
    }
}
