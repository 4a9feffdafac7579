/*
 * lrc_page.c - pages and faults of the lazy protocol (lrc.h): write
 * notices, and the diffs a fault fetches from the writers they name.
 *
 *   L_READ    --write fault: twin--> L_WRITE --interval ends--> L_READ, diff pending
 *   L_READ    --write notice--> L_INVALID --fault: diffs applied--> L_READ
 *   L_READ    --write fault, one node in the job--> L_WRITE, for good
 *
 * A page written in an interval keeps its twin until its diff is made
 * (lazily: lrc_diff.c), and one diff may cover several of its writer's
 * intervals. Such a diff may reach a node that has notices for only the first of its
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
 */
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

static lrc_note **notes;    /* per page: notices not applied (application thread) */
static uint32_t *held;      /* per page and writer: its last interval this copy holds */
static uint8_t *stale_listed;   /* per page: on the `stale` list */
static uint32_t *stale, nstale; /* pages invalidated since the last collection */

void lrc_notice(uint32_t p, const lrc_interval *iv)
{
    lrc_diff_make_pending(p);
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
    lrc_diff_make_pending(p);
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
        lrc_diffs_lock();
        if (!lrc_diff_pending(p)) {
            memcpy(page_twin(p), page_rt(p), PAGE_SIZE);
            STAT_ADD(twins, 1);
        }
        m->state = L_WRITE;
        detect_set_access(p, 1, ACCESS_WRITE);
        lrc_diffs_unlock();
        lrc_dirty(p);
        STAT_ADD(write_faults, 1);
        return;
    default: /* L_WRITE (protected by a diff request meanwhile), L_REP */
        lrc_diffs_lock();
        detect_set_access(p, 1, ACCESS_WRITE);
        lrc_diffs_unlock();
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

void lrc_page_init(void)
{
    notes = region_page_table(sizeof *notes, "the LRC write notices");
    held = region_page_table((size_t)cfg.nodes * sizeof *held, "the LRC intervals held");
    rep_pages = region_page_table(sizeof *rep_pages, "the LRC replicated pages");
    stale_listed = region_page_table(sizeof *stale_listed, "the LRC stale page flags");
    stale = region_page_table(sizeof *stale, "the LRC stale pages");
    stats_register(&diff_requests);
    lrc_mc_init();
    am_register(MSG_LRC_DIFF_REP, on_diff_rep);
}
