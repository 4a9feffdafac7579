/*
 * adopt.c - pages another node allocated alone (tsr_malloc, memory/arena.h).
 *
 * The owner set them up for its protocol when it allocated them; no other
 * node took part. Another node knows nothing of them until it first faults
 * on one. It then asks the owner which pages around the fault are
 * allocated (or, on the owner's host, reads the owner's page table:
 * adopt_direct), and adopts that run: home at the owner (the only placement
 * tsr_malloc makes), the owner's protocol, and no copy here (state 0, which
 * is INVALID for the home-based protocol). So the first access fetches the
 * master copy, whatever the owner wrote before the pointer reached this
 * node; the write notices for these pages that arrived before were dropped
 * (hlrc_notices.c: apply), and nothing is lost by that, since a node
 * without a copy has nothing stale.
 *
 * TreadMarks' protocol has no home to fetch from: every node's copy starts
 * as the zero page and is brought up to date with the diffs its notices
 * name. So no notice may be dropped: a notice naming an unknown page of
 * another node's arena adopts that page at once, for LRC (adopt_noticed;
 * only LRC pages are ever named in LRC's intervals), and the notice then
 * invalidates it. A page this node adopts at its first fault instead was
 * written in no interval this node has seen (or its notice would have
 * adopted it), so its zero copy is up to date here: state 0, which is
 * L_READ for LRC. The owner's pages never come back to zero while the
 * program runs (tsr_free_local keeps them allocated), so neither do the
 * copies.
 *
 * Munin's protocols hold per-object facts (the annotation) that every
 * node needs: its pages are adopted an object at a time, with the
 * annotation in the answer (tsr_protocol.adopt_run, .adopt).
 *
 * A page of the home-based or the lazy protocol stays allocated for it
 * after tsr_free_local (its owner reuses it), so such an adopted page never
 * has to be forgotten. A Munin object's pages are forgotten by every node
 * when it is freed (munin_malloc.c), and adopted afresh at their next use.
 */
#include "coherence/adopt.h"

#include "coherence/protocol.h"
#include "memory/arena.h"
#include "memory/peers.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

/* Most pages one answer adopts on either side of the fault: an answer
 * costs the owner's comm thread a scan of that many entries (about a
 * millisecond at most, once per run a node adopts). Large enough to pass
 * an OpenMP thread's frame stack (TSR_OMP_STACK, 64 MiB: 16,384 pages),
 * the first thing in an OpenMP program's arena: with 4,096, a node that
 * adopted the master's stack to read a region's arguments asked again for
 * the heap blocks allocated before the fork (MM's row tables: 2 of its
 * 25 messages at 2 nodes, docs/OPENMP.md). */
#define ADOPT_MAX 65536u

STATS_COUNTER(adopt_requests, "runs of another node's tsr_malloc pages asked of it at a fault "
                              "(MSG_ADOPT_REQ)");
STATS_COUNTER(adopts_direct, "runs of another node's tsr_malloc pages read in its page table on "
                             "this host at a fault, with no message");

typedef struct adopt_reply {
    waiter w;
    uint32_t asked; /* the faulting page, which the answer must cover */
    uint32_t n;     /* pages adopted by the answer (0: none allocated) */
} adopt_reply;

/* Home at the owner (the only placement tsr_malloc makes), the fresh
 * page's state. */
static void adopt(uint32_t page, int owner, uint8_t proto)
{
    page_meta *pm = &region.meta[page];
    pm->home = (uint16_t)owner;
    pm->state = 0;
    coh_set_proto(page, proto); /* last: the page counts as allocated from here on */
}

/* Adopts the pages of [first, first+n) not adopted yet (by an earlier
 * answer or a notice); -1, adopting none, if the protocol refuses info. */
static int adopt_run(uint32_t first, uint32_t n, int owner, uint8_t proto, uint16_t info)
{
    const tsr_protocol *p = coh_protocols[proto];
    if (p->adopt) {
        for (uint32_t q = first; q < first + n; q++)
            if (region.meta[q].proto)
                return 0; /* the protocol's run (a Munin object) is adopted whole */
        for (uint32_t q = first; q < first + n; q++)
            region.meta[q].home = (uint16_t)owner;
        if (p->adopt(first, n, info))
            return -1;
    }
    for (uint32_t q = first; q < first + n; q++)
        if (!region.meta[q].proto)
            adopt(q, owner, proto);
    return 0;
}

/* Page p's protocol in this node's page table, as peer_proto reads a
 * peer's. */
static uint8_t own_proto(int node, uint32_t p) { return region.meta[p].proto; }

/* The run around `page` of node's arena that `proto` keeps in node's page
 * table (read by proto_of), at most ADOPT_MAX pages on either side:
 * [*first, *end). */
static void run_around(uint8_t (*proto_of)(int, uint32_t), int node, uint32_t page,
                       uint8_t proto, uint32_t *first, uint32_t *end)
{
    uint32_t lo, hi;
    arena_bounds(node, &lo, &hi);
    *first = *end = page;
    while (*end < hi && *end - page < ADOPT_MAX && proto_of(node, *end) == proto)
        (*end)++;
    while (*first > lo && page - *first < ADOPT_MAX && proto_of(node, *first - 1) == proto)
        (*first)--;
}

/* On this host the owner's page table is mapped here (TSR_FETCH=direct,
 * memory/peers.h), so the run is read there as the owner would answer,
 * with no message: MM's OpenMP form at 2 nodes sent 23 messages, 4 of
 * them adoptions, against 21 for mm.c. Not for a protocol that sets
 * adopted pages up from facts of the owner's (Munin), nor for a page that
 * the owner's table does not show allocated yet (a pointer handed on
 * without synchronization): the owner's answer decides those. Returns -1
 * if the owner must be asked. */
static int adopt_direct(uint32_t page, int owner)
{
    if (!peer_page(owner, page))
        return -1;
    uint8_t proto = peer_proto(owner, page);
    if (!coh_protocol_known(proto) || coh_protocols[proto]->adopt_run ||
        coh_protocols[proto]->adopt)
        return -1;
    uint32_t first, end;
    run_around(peer_proto, owner, page, proto, &first, &end);
    adopt_run(first, end - first, owner, proto, 0);
    COUNTER_ADD(adopts_direct, 1);
    return 0;
}

static void die_unallocated(const void *addr, int owner)
{
    log_die_status(1, "access to %p in node %d's tsr_malloc arena, which node %d has not "
                   "allocated", addr, owner, owner);
}

int adopt_fault(const void *addr, uint32_t page)
{
    int owner = arena_owner(page);
    if (owner < 0)
        return -1;
    if (owner == cfg.node) /* this node's own pages have metadata from the start */
        die_unallocated(addr, owner);
    if (!adopt_direct(page, owner))
        return 0;
    adopt_reply r = {.asked = page};
    am_msg m;
    waiter_init(&r.w, 1);
    COUNTER_ADD(adopt_requests, 1);
    am_post(owner, &m, MSG_ADOPT_REQ, page, req_open(owner, MSG_ADOPT_REP, &r), 0, NULL, 0);
    waiter_wait(&r.w);
    if (!r.n)
        die_unallocated(addr, owner);
    return 0;
}

int adopt_noticed(uint32_t page, uint8_t proto)
{
    int owner = arena_owner(page);
    if (owner < 0 || owner == cfg.node)
        return -1;
    adopt(page, owner, proto);
    return 0;
}

/* At the owner: the run of allocated pages around `page` that the asker
 * adopts (its protocol's, or those with page's protocol in its arena). */
static void on_adopt_req(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t page = (uint32_t)h->arg[0], lo, hi;
    arena_bounds(cfg.node, &lo, &hi);
    if (page < lo || page >= hi) {
        am_reject(src, h, "page %u is outside this node's arena", page);
        return;
    }
    uint8_t proto = region.meta[page].proto;
    uint32_t first = page, end = page;
    uint16_t info = 0;
    if (proto && coh_protocols[proto]->adopt_run) {
        uint32_t n;
        coh_protocols[proto]->adopt_run(page, &first, &n, &info);
        end = first + n;
    } else if (proto) {
        run_around(own_proto, cfg.node, page, proto, &first, &end);
    }
    am_send(src, MSG_ADOPT_REP, first, h->arg[1],
            (end - first) | (uint64_t)proto << 32 | (uint64_t)info << 40, NULL, 0);
}

/* At the asker: checks the answer and adopts the run before the fault
 * goes on, so the faulting thread finds the pages set up. */
static void on_adopt_rep(int src, const tsr_msg_hdr *h, void *payload)
{
    adopt_reply *r = req_ctx(h->arg[1]);
    uint64_t first = h->arg[0];
    uint32_t lo, hi, n = (uint32_t)h->arg[2];
    uint8_t proto = (uint8_t)(h->arg[2] >> 32);
    uint16_t info = (uint16_t)(h->arg[2] >> 40);
    arena_bounds(src, &lo, &hi);
    if (n && (first < lo || first > r->asked || n > hi - first || r->asked - first >= n ||
              !coh_protocol_known(proto) || h->arg[2] >> 56 ||
              (n > 2 * ADOPT_MAX && !coh_protocols[proto]->adopt_run) ||
              adopt_run((uint32_t)first, n, src, proto, info))) {
        am_reject(src, h, "not a run of the sender's arena around page %u, or an unknown "
                  "protocol, or facts its protocol refuses", r->asked);
        return;
    }
    req_close(h->arg[1]);
    r->n = n;
    waiter_done(&r->w);
}

void adopt_init(void)
{
    am_register(MSG_ADOPT_REQ, on_adopt_req);
    am_register(MSG_ADOPT_REP, on_adopt_rep);
    stats_register(&adopt_requests);
    stats_register(&adopts_direct);
}
