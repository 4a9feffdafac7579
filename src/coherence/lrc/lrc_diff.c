/*
 * lrc_diff.c - pages, faults and diffs of the lazy protocol (lrc.h).
 *
 *   L_READ    --write fault: twin--> L_WRITE --interval ends--> L_READ, diff pending
 *   L_READ    --write notice--> L_INVALID --fault: diffs applied--> L_READ
 *   L_READ    --write fault, one node in the job--> L_WRITE, for good
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
 * Such a diff may reach a node that has notices for only the first of its
 * intervals; the later ones' writes then come early, which a program
 * without data races cannot tell. But the diff must not be applied again
 * when their notices arrive: by then this node or another may have
 * overwritten its older bytes. So each copy of a page keeps, per writer,
 * the last interval whose writes it holds (`held`, the valid notices of
 * the paper's Section 5.4.1), and a notice it covers needs no diff.
 *
 * A fault on an invalid page asks each writer its notices name for the
 * diffs of the intervals named (one request per writer, all in flight at
 * once), then applies them in happens-before order (by the sum of the
 * interval's timestamp, which grows along that order): concurrent diffs
 * touch different bytes in a program without data races.
 *
 * Replicated sections (OpenMP/NOW, Section 5.3): every node makes a
 * section's writes, so none may reach a diff. Pages with a pending diff
 * are write-protected since their interval ended, so the first write in
 * a section faults; the pending diff is made then, holding only the
 * writes from before, and the page becomes writable without a twin and
 * without joining the interval (L_REP). A diff request in the section
 * gets that diff. At the end the pages return to L_READ: the next write
 * makes a fresh twin, so no later diff holds the section's writes. The
 * diffs every node fetches in a section are multicast (lrc_mcast.c).
 *
 * pending, twins and this node's diffs are shared by the application
 * thread (fault handler included) and the comm thread that serves diff
 * requests: a spin lock guards them (never held across a wait).
 */
#include <stdatomic.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/diff.h"
#include "coherence/lrc/lrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

STATS_COUNTER(diff_requests, "LRC: diff requests sent, one per writer a fault's notices name");
STATS_COUNTER(diffs_served, "LRC: diff requests answered");

static uint32_t *pend_first, *pend_last; /* per page: the intervals of the pending diff (0: none) */
static lrc_diff **own;      /* per page: this node's diffs, newest first */
static lrc_note **notes;    /* per page: notices not applied (application thread) */
static uint32_t *held;      /* per page and writer: its last interval this copy holds */
static uint8_t *listed;     /* per page: on the `owned` list */
static uint32_t *owned, nowned; /* pages with a pending diff or diffs of this node */
static uint8_t *stale_listed;   /* per page: on the `stale` list */
static uint32_t *stale, nstale; /* pages invalidated since the last collection */
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
static uint8_t scratch[DIFF_MAX]; /* under diff_busy */

static void lock_diffs(void)
{
    while (atomic_flag_test_and_set_explicit(&diff_busy, memory_order_acquire))
        cpu_relax();
}

static void unlock_diffs(void) { atomic_flag_clear_explicit(&diff_busy, memory_order_release); }

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

static void make_pending_diff(uint32_t p)
{
    lock_diffs();
    if (pend_first[p])
        make_diff(p);
    unlock_diffs();
}

void lrc_written(uint32_t p, uint32_t index)
{
    lock_diffs();
    detect_set_access(p, 1, ACCESS_READ);
    region.meta[p].state = L_READ;
    if (!pend_first[p])
        pend_first[p] = index;
    pend_last[p] = index;
    unlock_diffs();
    if (!listed[p]) {
        listed[p] = 1;
        owned[nowned++] = p;
    }
}

void lrc_notice(uint32_t p, const lrc_interval *iv)
{
    make_pending_diff(p);
    lrc_note *n = lrc_alloc(sizeof *n);
    *n = (lrc_note){notes[p], iv->writer, iv->index, iv->order};
    notes[p] = n;
    if (region.meta[p].state != L_INVALID) {
        region.meta[p].state = L_INVALID;
        detect_set_access(p, 1, ACCESS_NONE);
        STAT_ADD(invalidations, 1);
        TRACE_MARK(EV_INVALIDATE, 0, p, 0);
    }
    if (!stale_listed[p]) {
        stale_listed[p] = 1;
        stale[nstale++] = p;
    }
}

/* ---- Bringing a page up to date ----------------------------------------- */

static uint32_t *held_of(uint32_t p) { return &held[(size_t)p * (size_t)cfg.nodes]; }

/* The notices of p whose writes this copy lacks, oldest first in
 * happens-before order (insertion sort: they come newest first, mostly in
 * order already); the others are freed. */
static lrc_note **sorted_notes(uint32_t p, uint32_t *count)
{
    const uint32_t *has = held_of(p);
    uint32_t n = 0;
    for (lrc_note *x = notes[p]; x; x = x->next)
        n += x->index > has[x->writer];
    lrc_note **v = lrc_alloc((n ? n : 1) * sizeof *v);
    uint32_t k = n;
    for (lrc_note *x = notes[p], *next; x; x = next) {
        next = x->next;
        if (x->index > has[x->writer])
            v[--k] = x;
        else
            lrc_free(x);
    }
    notes[p] = NULL;
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && v[j - 1]->order > v[j]->order; j--) {
            lrc_note *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *count = n;
    return v;
}

/* Sends one request per writer the notices name, for the range of its
 * intervals they name, and waits for every reply; in a replicated section
 * a writer whose multicast diffs hold what its notices name is not asked
 * (lrc_mcast.c). */
static void request_diffs(uint32_t p, lrc_note **v, uint32_t n, lrc_fetch *ctx)
{
    uint32_t *lo = lrc_alloc((size_t)cfg.nodes * 2 * sizeof *lo), *hi = lo + cfg.nodes;
    memset(lo, 0, (size_t)cfg.nodes * 2 * sizeof *lo);
    uint32_t writers = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t q = v[i]->writer;
        if (!lo[q]) {
            writers++;
            lo[q] = hi[q] = v[i]->index;
        }
        lo[q] = v[i]->index < lo[q] ? v[i]->index : lo[q];
        hi[q] = v[i]->index > hi[q] ? v[i]->index : hi[q];
    }
    atomic_store(&ctx->got, NULL);
    ctx->page = p;
    ctx->notes = v;
    ctx->nnotes = n;
    for (int q = 0; q < cfg.nodes; q++)
        if (lo[q] && lrc_mc_take(p, (uint32_t)q, ctx)) {
            lo[q] = 0;
            writers--;
        }
    am_msg *m = lrc_alloc((writers ? writers : 1) * sizeof *m);
    waiter_init(&ctx->w, writers);
    uint32_t k = 0;
    for (int q = 0; q < cfg.nodes; q++)
        if (lo[q])
            am_post(q, &m[k++], MSG_LRC_DIFF_REQ, p | (uint64_t)lrc_mc_section() << 32,
                    req_open(q, MSG_LRC_DIFF_REP, ctx),
                    (uint64_t)lo[q] << 32 | hi[q], NULL, 0);
    COUNTER_ADD(diff_requests, writers);
    if (writers)
        waiter_wait(&ctx->w);
    lrc_free(m);
    lrc_free(lo);
}

/* Whether diff d holds the writes of notice x. */
static int diff_holds(const lrc_diff *d, const lrc_note *x)
{
    return d->writer == x->writer && d->first <= x->index && x->index <= d->last;
}

/* The first diff on `list` that holds the writes of notice x. */
static lrc_diff *diff_for(lrc_diff *list, const lrc_note *x)
{
    while (list && !diff_holds(list, x))
        list = list->next;
    return list;
}

/* Whether some diff on `list` holds the writes of notice x: diff_for's
 * walk, for a list that is only looked at. */
static int list_holds(const lrc_diff *list, const lrc_note *x)
{
    for (; list; list = list->next)
        if (diff_holds(list, x))
            return 1;
    return 0;
}

int lrc_fetch_covers(const lrc_fetch *f, uint32_t writer, const lrc_diff *list)
{
    for (uint32_t i = 0; i < f->nnotes; i++)
        if (f->notes[i]->writer == writer && !list_holds(list, f->notes[i]))
            return 0;
    return 1;
}

/* Applies the diffs received, each once, at its first notice in
 * happens-before order, notes the intervals this copy now holds, and frees
 * diffs and notices. Every reply was checked on arrival to hold what the
 * notices name (lrc_fetch_covers). */
static void apply_diffs(uint32_t p, lrc_note **v, uint32_t n, lrc_fetch *ctx)
{
    lrc_diff *got = atomic_load(&ctx->got);
    uint32_t *has = held_of(p);
    for (uint32_t i = 0; i < n; i++) {
        lrc_diff *d = diff_for(got, v[i]);
        if (!d)
            log_die_status(1, "LRC: no diff of page %u from node %u for its interval %u, "
                           "though every reply was checked on arrival", p, v[i]->writer,
                           v[i]->index);
        TRACE_MARK(EV_DIFF_APPLY, d->writer, p, d->applied ? 0 : d->len);
        if (!d->applied && diff_apply((uint8_t *)page_rt(p), d->bytes, d->len))
            log_die_status(1, "LRC: a diff of page %u from node %u, checked on arrival, did "
                           "not apply", p, d->writer);
        d->applied = 1;
        has[d->writer] = d->last > has[d->writer] ? d->last : has[d->writer];
        lrc_free(v[i]);
    }
    lrc_diffs_free(got);
}

/* Brings invalid page p up to date; it is then L_READ, its access left to
 * the caller. Async-signal-safe. */
static void update(uint32_t p)
{
    double t0 = now_s();
    lrc_fetch ctx;
    uint32_t n;
    lrc_note **v = sorted_notes(p, &n);
    if (n) {
        request_diffs(p, v, n, &ctx);
        apply_diffs(p, v, n, &ctx);
    }
    lrc_free(v);
    region.meta[p].state = L_READ;
    STAT_TIME(fault_wait_s, now_s() - t0);
}

/* Pages written in the current replicated section (preallocated). */
static int replicating;
static uint32_t *rep_pages, nrep;

static void replicated_write(uint32_t p)
{
    make_pending_diff(p);
    region.meta[p].state = L_REP;
    rep_pages[nrep++] = p;
    detect_set_access(p, 1, ACCESS_WRITE);
    STAT_ADD(write_faults, 1);
    coh_replicated_write();
}

void lrc_replicate_begin(void)
{
    replicating = 1;
    lrc_mc_begin();
}

void lrc_replicate_end(void)
{
    for (uint32_t i = 0; i < nrep; i++)
        if (region.meta[rep_pages[i]].state == L_REP) {
            region.meta[rep_pages[i]].state = L_READ;
            detect_set_access(rep_pages[i], 1, ACCESS_READ);
        }
    nrep = 0;
    replicating = 0;
    lrc_mc_end();
}

/* A job of one node: nobody will ever ask for a diff or send a notice,
 * so a written page stays writable, outside every interval (L_WRITE with
 * no twin), instead of faulting again after each synchronization. */
static void alone_write(uint32_t p)
{
    region.meta[p].state = L_WRITE;
    detect_set_access(p, 1, ACCESS_WRITE);
    STAT_ADD(write_faults, 1);
}

void lrc_fault(uint32_t p, int is_write)
{
    page_meta *m = &region.meta[p];
    switch (m->state) {
    case L_INVALID:
        update(p);
        if (is_write != 1) { /* a read, or unknown: a write will fault again */
            detect_set_access(p, 1, ACCESS_READ);
            STAT_ADD(read_faults, 1);
            return;
        }
        __attribute__((fallthrough));
    case L_READ:
        lrc_mc_offered(p);
        if (is_write == 0) {
            detect_set_access(p, 1, ACCESS_READ);
            return;
        }
        if (replicating) {
            replicated_write(p);
            return;
        }
        if (cfg.nodes == 1) {
            alone_write(p);
            return;
        }
        /* A pending diff keeps its twin: it will cover this interval too. */
        lock_diffs();
        if (!pend_first[p]) {
            memcpy(page_twin(p), page_rt(p), PAGE_SIZE);
            STAT_ADD(twins, 1);
        }
        m->state = L_WRITE;
        detect_set_access(p, 1, ACCESS_WRITE);
        unlock_diffs();
        lrc_dirty(p);
        STAT_ADD(write_faults, 1);
        return;
    default: /* L_WRITE (protected by a diff request meanwhile), L_REP */
        lock_diffs();
        detect_set_access(p, 1, ACCESS_WRITE);
        unlock_diffs();
        return;
    }
}

/* Only pages invalidated since the last collection can be invalid, so GC
 * walks those, not every page of every allocation: a node also keeps pages
 * of other nodes' arenas that it adopted one by one (adopt.c). */
void lrc_validate_all(void)
{
    for (uint32_t i = 0; i < nstale; i++) {
        uint32_t p = stale[i];
        stale_listed[p] = 0;
        if (coh_protocol_of(p) == &lrc_protocol && region.meta[p].state == L_INVALID) {
            update(p);
            detect_set_access(p, 1, ACCESS_READ);
        }
    }
    nstale = 0;
}

/* ---- Serving diffs ------------------------------------------------------ */

uint32_t lrc_diffs_put(uint32_t p, uint32_t lo, uint32_t hi, pbuf *out)
{
    uint32_t count = 0;
    lock_diffs();
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
    unlock_diffs();
    return count;
}

void lrc_each_pending(void (*fn)(uint32_t p, uint32_t lo, uint32_t hi))
{
    lock_diffs();
    for (uint32_t i = 0; i < nowned; i++)
        if (pend_first[owned[i]])
            fn(owned[i], pend_first[owned[i]], pend_last[owned[i]]);
    unlock_diffs();
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
    uint32_t count = lrc_diffs_put(p, lo, hi, &out);
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

/* The diffs asked for. A reply about another page, with a malformed
 * diff, or lacking an interval the fault's notices name, is rejected and
 * its request stays open for the true reply, as a page reply's does. */
static void on_diff_rep(int src, const tsr_msg_hdr *h, void *payload)
{
    lrc_fetch *ctx = req_ctx(h->arg[1]);
    lrc_diff *list = NULL;
    if ((uint32_t)h->arg[0] != ctx->page || lrc_diffs_decode(src, h, payload, &list) ||
        !lrc_fetch_covers(ctx, (uint32_t)src, list)) {
        lrc_diffs_free(list);
        am_reject(src, h, "not the diffs of the page and intervals asked for, or malformed");
        return;
    }
    req_close(h->arg[1]);
    atomic_store(&ctx->got, lrc_diffs_join(list, atomic_load(&ctx->got)));
    waiter_done(&ctx->w);
}

/* ---- Collection ----------------------------------------------------------- */

/* Frees this node's diffs of intervals up to `index`. */
static void diffs_collect(uint32_t index)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < nowned; i++) {
        uint32_t p = owned[i];
        lock_diffs();
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
        unlock_diffs();
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
    lock_diffs();
    retire_index = 0;
    atomic_store(&retiring, 0);
    unlock_diffs();
}

void lrc_diffs_make_all(void)
{
    for (uint32_t i = 0; i < nowned; i++)
        make_pending_diff(owned[i]);
}

/* The walk holds diff_busy throughout, so that a diff made meanwhile is
 * counted once: here, or by make_diff once the index is set. */
void lrc_diffs_retire(uint32_t index)
{
    size_t bytes = 0;
    lock_diffs();
    retire_index = index;
    for (uint32_t i = 0; i < nowned; i++)
        for (const lrc_diff *d = own[owned[i]]; d; d = d->next)
            if (!index || d->last <= index)
                bytes += lrc_size(d);
    atomic_store(&retiring, bytes);
    unlock_diffs();
}

size_t lrc_diffs_retiring(void) { return atomic_load(&retiring); }

void lrc_forget(uint32_t first, uint32_t n)
{
    for (uint32_t p = first; p < first + n; p++) {
        for (lrc_note *x = notes[p], *next; x; x = next) {
            next = x->next;
            lrc_free(x);
        }
        notes[p] = NULL;
        region.meta[p].state = L_READ;
    }
    memset(held_of(first), 0, (size_t)n * (size_t)cfg.nodes * sizeof *held);
}

void lrc_diff_init(void)
{
    pend_first = region_page_table(sizeof *pend_first, "the LRC pending diffs");
    pend_last = region_page_table(sizeof *pend_last, "the LRC pending diffs");
    own = region_page_table(sizeof *own, "the LRC diffs");
    notes = region_page_table(sizeof *notes, "the LRC write notices");
    held = region_page_table((size_t)cfg.nodes * sizeof *held, "the LRC intervals held");
    listed = region_page_table(sizeof *listed, "the LRC diff flags");
    owned = region_page_table(sizeof *owned, "the LRC diffed pages");
    rep_pages = region_page_table(sizeof *rep_pages, "the LRC replicated pages");
    stale_listed = region_page_table(sizeof *stale_listed, "the LRC stale page flags");
    stale = region_page_table(sizeof *stale, "the LRC stale pages");
    stats_register(&diff_requests);
    stats_register(&diffs_served);
    lrc_mc_init();
    am_register(MSG_LRC_DIFF_REQ, on_diff_req);
    am_register(MSG_LRC_DIFF_REP, on_diff_rep);
}
