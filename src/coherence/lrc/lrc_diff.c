/*
 * lrc_diff.c - this node's own diffs in the lazy protocol (lrc.h): made
 * lazily, served to the nodes that ask, and freed by garbage collection.
 *
 * Lazy diffs: when an interval that wrote a page ends, the page is only
 * write-protected and its twin kept: the diff is pending, for intervals
 * [first, last]. Written again in a later interval, the page keeps that
 * twin, and the pending diff grows to cover that interval too. The diff is
 * made when a writer named by a notice is asked for it, or when another
 * node's notice arrives for the page (its writes must then be told apart
 * from the others'). A page nobody else reads never has a diff. A diff that
 * covers several intervals is sound: no other node's write to the page
 * happened between them, or its notice would have made the diff.
 *
 * The pending diffs, twins and this node's diffs are shared by the
 * application thread (fault handler included) and the comm thread that
 * serves diff requests: a spin lock guards them (never held across a
 * wait). Pages, faults and the requests for other nodes' diffs are
 * lrc_page.c's.
 */
#include <stdatomic.h>
#include <string.h>

#include "coherence/diff.h"
#include "coherence/lrc/lrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

STATS_COUNTER(diffs_served, "LRC: diff requests answered");

static uint32_t *pend_first, *pend_last; /* per page: the intervals of the pending diff (0: none) */
static lrc_diff **own;      /* per page: this node's diffs, newest first */
static uint8_t *listed;     /* per page: on the `owned` list */
static uint32_t *owned, nowned; /* pages with a pending diff or diffs of this node */
static atomic_flag diff_busy = ATOMIC_FLAG_INIT;
/* Own diffs of intervals up to retire_index (0: none) are kept only for
 * the nodes still validating after the last collection, and go at the
 * next barrier or round. retiring counts the bytes of own diffs that no
 * collection asked for now could free: those retired, including those
 * made as those nodes ask, and after a round some nodes took part in
 * through a barrier arrival, every own diff (they validate only when
 * that barrier ends). Both under diff_busy; retiring is read without
 * it. */
static uint32_t retire_index;
static _Atomic size_t retiring;
/* The last interval that wrote a page here, and the last whose diffs a
 * collection freed (0: none); both under diff_busy. */
static uint32_t newest, collected;
static uint8_t scratch[DIFF_MAX]; /* under diff_busy */

void lrc_diffs_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&diff_busy, memory_order_acquire))
        cpu_relax();
}

void lrc_diffs_unlock(void) { atomic_flag_clear_explicit(&diff_busy, memory_order_release); }

int lrc_diff_pending(uint32_t p) { return pend_first[p] != 0; }

/* Makes the pending diff of page p. Called with diff_busy held. A page
 * being written in the current interval (a request met it) is protected
 * first, and its twin starts over from what the diff holds; a write then
 * waits for diff_busy in the fault handler. */
static void make_diff(uint32_t p)
{
    int writing = region.meta[p].state == L_WRITE;
    if (writing)
        detect_set_access(p, 1, ACCESS_READ);
    uint64_t t0 = trace_begin();
    size_t len = diff_encode((const uint8_t *)page_twin(p), (const uint8_t *)page_rt(p), scratch);
    TRACE_SPAN(t0, EV_DIFF_MAKE, 0, p, len);
    lrc_diff *d = lrc_alloc(sizeof *d + len);
    *d = (lrc_diff){own[p], (uint32_t)cfg.node, pend_first[p], pend_last[p], (uint32_t)len, 0};
    memcpy(d->bytes, scratch, len);
    own[p] = d;
    if (d->last <= retire_index)
        atomic_fetch_add(&retiring, lrc_size(d));
    pend_first[p] = pend_last[p] = 0;
    if (writing)
        memcpy(page_twin(p), page_rt(p), PAGE_SIZE);
    STAT_ADD(diffs_created, 1);
    STAT_ADD(diff_bytes, len);
}

void lrc_diff_make_pending(uint32_t p)
{
    lrc_diffs_lock();
    if (pend_first[p])
        make_diff(p);
    lrc_diffs_unlock();
}

void lrc_written(uint32_t p, uint32_t index)
{
    lrc_diffs_lock();
    detect_set_access(p, 1, ACCESS_READ);
    region.meta[p].state = L_READ;
    if (!pend_first[p])
        pend_first[p] = index;
    pend_last[p] = index;
    newest = index;
    lrc_diffs_unlock();
    if (!listed[p]) {
        listed[p] = 1;
        owned[nowned++] = p;
    }
}


/* ---- Serving diffs ------------------------------------------------------ */

/* lrc_diffs_put, with diff_busy held. */
static uint32_t put(uint32_t p, uint32_t lo, uint32_t hi, pbuf *out)
{
    uint32_t count = 0;
    if (pend_first[p] && pend_first[p] <= hi && pend_last[p] >= lo)
        make_diff(p);
    for (lrc_diff *d = own[p]; d; d = d->next) {
        if (d->last < lo || d->first > hi)
            continue;
        uint32_t hdr[3] = {d->first, d->last, d->len};
        pbuf_put(out, hdr, sizeof hdr);
        pbuf_put(out, d->bytes, d->len);
        memset(pbuf_room(out, -d->len & 3), 0, -d->len & 3);
        count++;
    }
    return count;
}

uint32_t lrc_diffs_put(uint32_t p, uint32_t lo, uint32_t hi, pbuf *out)
{
    lrc_diffs_lock();
    uint32_t count = put(p, lo, hi, out);
    lrc_diffs_unlock();
    return count;
}

/* Whether one of this node's diffs of page p holds interval i. */
static int holds(uint32_t p, uint32_t i)
{
    for (const lrc_diff *d = own[p]; d; d = d->next)
        if (d->first <= i && i <= d->last)
            return 1;
    return 0;
}

/* Why node src's request for the diffs of page p in intervals lo..hi,
 * made, is not answered (NULL: it is), with diff_busy held. Its lo and hi
 * come from notices, which name only intervals that wrote the page; such
 * an interval's diff is pending or made here until a collection frees it.
 * So a request whose lo or hi the diffs do not hold is forged, unless a
 * collection freed that interval's diffs while a notice of it remained:
 * then this node stops, named, since an answer without the diff would
 * leave src waiting for ever for a true one. */
static const char *unanswered(int src, uint32_t p, uint32_t lo, uint32_t hi)
{
    if (hi > newest)
        return "intervals this node has not ended";
    uint32_t missing = !holds(p, lo) ? lo : !holds(p, hi) ? hi : 0;
    if (!missing)
        return NULL;
    if (missing <= collected)
        log_die_status(1, "LRC: node %d asked for this node's diffs of page %u of interval %u, "
                       "which a collection here freed while a notice still named it (internal "
                       "error: node %d would wait for them for ever)", src, p, missing, src);
    return "intervals in which this node did not write the page";
}

void lrc_each_pending(void (*fn)(uint32_t p, uint32_t lo, uint32_t hi))
{
    lrc_diffs_lock();
    for (uint32_t i = 0; i < nowned; i++)
        if (pend_first[owned[i]])
            fn(owned[i], pend_first[owned[i]], pend_last[owned[i]]);
    lrc_diffs_unlock();
}

/* A writer is asked for its diffs of page arg0 that cover any of its
 * intervals [lo, hi] (arg2 = lo << 32 | hi): made now if still pending. */
static void on_diff_req(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0], lo = (uint32_t)(h->arg[2] >> 32), hi = (uint32_t)h->arg[2];
    if (coh_protocol_of(p) != &lrc_protocol || !lo || lo > hi) {
        am_reject(src, h, "diffs of a page not the lazy protocol's, or of no intervals");
        return;
    }
    pbuf out = {0};
    lrc_diffs_lock();
    uint32_t count = put(p, lo, hi, &out);
    const char *why = unanswered(src, p, lo, hi);
    lrc_diffs_unlock();
    if (why) {
        pbuf_free(&out);
        am_reject(src, h, "%s (%u to %u)", why, lo, hi);
        return;
    }
    am_send(src, MSG_LRC_DIFF_REP, p, h->arg[1], count, out.p, out.len);
    COUNTER_ADD(diffs_served, 1);
    lrc_mc_push(src, h, count, out.p, out.len);
    pbuf_free(&out);
}

/* Diffs on the wire: (u32 first, last, len, diff padded to 4)*. */
int lrc_diffs_decode(int src, const tsr_msg_hdr *h, const void *payload, lrc_diff **list)
{
    const char *at = payload, *end = at + h->len;
    for (uint64_t i = 0; i < h->arg[2]; i++) {
        uint32_t hdr[3];
        if ((size_t)(end - at) < sizeof hdr ||
            (memcpy(hdr, at, sizeof hdr), hdr[2] > DIFF_MAX || hdr[0] > hdr[1]) ||
            (size_t)(end - at) - sizeof hdr < ((size_t)hdr[2] + 3) / 4 * 4 ||
            diff_apply(NULL, (const uint8_t *)at + sizeof hdr, hdr[2]))
            return -1;
        lrc_diff *d = lrc_alloc(sizeof *d + hdr[2]);
        *d = (lrc_diff){*list, (uint32_t)src, hdr[0], hdr[1], hdr[2], 0};
        memcpy(d->bytes, at + sizeof hdr, hdr[2]);
        *list = d;
        at += sizeof hdr + ((size_t)hdr[2] + 3) / 4 * 4;
    }
    return at == end ? 0 : -1;
}

void lrc_diffs_free(lrc_diff *list)
{
    while (list) {
        lrc_diff *next = list->next;
        lrc_free(list);
        list = next;
    }
}

lrc_diff *lrc_diffs_join(lrc_diff *list, lrc_diff *rest)
{
    if (!list)
        return rest;
    lrc_diff *last = list;
    while (last->next)
        last = last->next;
    last->next = rest;
    return list;
}

/* ---- Collection ----------------------------------------------------------- */

/* Frees this node's diffs of intervals up to `index`. */
static void diffs_collect(uint32_t index)
{
    uint32_t kept = 0;
    lrc_diffs_lock();
    collected = index > collected ? index : collected;
    lrc_diffs_unlock();
    for (uint32_t i = 0; i < nowned; i++) {
        uint32_t p = owned[i];
        lrc_diffs_lock();
        lrc_diff **link = &own[p];
        while (*link && (*link)->last > index)
            link = &(*link)->next;
        for (lrc_diff *d = *link, *next; d; d = next) {
            next = d->next;
            lrc_free(d);
        }
        *link = NULL;
        if (pend_last[p] <= index)
            pend_first[p] = pend_last[p] = 0;
        int still = own[p] || pend_first[p];
        lrc_diffs_unlock();
        if (still)
            owned[kept++] = p;
        else
            listed[p] = 0;
    }
    nowned = kept;
}

void lrc_diffs_free_retired(void)
{
    if (!retire_index)
        return;
    diffs_collect(retire_index);
    lrc_diffs_lock();
    retire_index = 0;
    atomic_store(&retiring, 0);
    lrc_diffs_unlock();
}

void lrc_diffs_make_all(void)
{
    for (uint32_t i = 0; i < nowned; i++)
        lrc_diff_make_pending(owned[i]);
}

/* The walk holds diff_busy throughout, so that a diff made meanwhile is
 * counted once: here, or by make_diff once the index is set. */
void lrc_diffs_retire(uint32_t index)
{
    size_t bytes = 0;
    lrc_diffs_lock();
    retire_index = index;
    for (uint32_t i = 0; i < nowned; i++)
        for (const lrc_diff *d = own[owned[i]]; d; d = d->next)
            if (!index || d->last <= index)
                bytes += lrc_size(d);
    atomic_store(&retiring, bytes);
    lrc_diffs_unlock();
}

size_t lrc_diffs_retiring(void) { return atomic_load(&retiring); }

void lrc_diff_init(void)
{
    pend_first = region_page_table(sizeof *pend_first, "the LRC pending diffs");
    pend_last = region_page_table(sizeof *pend_last, "the LRC pending diffs");
    own = region_page_table(sizeof *own, "the LRC diffs");
    listed = region_page_table(sizeof *listed, "the LRC diff flags");
    owned = region_page_table(sizeof *owned, "the LRC diffed pages");
    stats_register(&diffs_served);
    am_register(MSG_LRC_DIFF_REQ, on_diff_req);
}
