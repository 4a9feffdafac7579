/*
 * hlrc_fetch.c - the home-based protocol's page fetches (hlrc.c): runs of
 * pages from one home in one exchange (MSG_PAGE_REQ / MSG_PAGE_REP), sized
 * by readahead at a fault, or exactly by a range check (coherence/range.c).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/hlrc/hlrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/peers.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

STATS_COUNTER(pages_copied_direct, "pages copied straight from their home's memory on this "
                                   "host (TSR_FETCH=direct)");

/* Readahead, as the kernel does for files, with strides: a fault on the
 * page a stream predicted doubles that stream's run (up to TSR_FETCH_AHEAD
 * pages); two lone faults a few pages apart start a strided stream (a loop
 * down a column of a row-major array, as in a transpose); any other fault
 * starts a new stream at one page. A few streams are followed at once, so
 * that a loop over two arrays (SOR's red and black rows) streams both. A
 * boundary row or a transpose then costs a few round trips instead of one
 * per page, and an isolated fault fetches nothing it did not ask for. Only
 * the faulting thread touches this. */
#define STREAMS 4
#define MAX_STRIDE 64
/* Consecutive largest-window runs that make a stream a long one. */
#define LONG_RUNS 4
static struct {
    uint32_t last, next, stride, window;
    uint32_t runs; /* its consecutive runs that brought the largest window */
} streams[STREAMS] = {[0 ... STREAMS - 1] = {UINT32_MAX, UINT32_MAX, 1, 1, 0}};
static unsigned stream_victim;

/* The window of a new stream at p: one page, or the largest window while
 * a long stream of another home is followed. A loop that reads blocks of
 * several homes in turn thus keeps its pace from one block to the next,
 * as it does when the blocks lie end to end: MM's kernel reads B's row
 * bands in order, one allocation per node, and in its OpenMP form each
 * band lies in its node's tsr_malloc arena, where starting again at one
 * page cost 4 more read faults per band (MM's read faults were 11% above
 * the API version's at 4 nodes, docs/OPENMP.md). A stream that starts so
 * is not long yet, so lone faults after a long stream take the largest
 * window at most until it is replaced, never one after another for ever. */
static uint32_t new_window(uint32_t p)
{
    for (unsigned s = 0; s < STREAMS; s++)
        if (streams[s].runs >= LONG_RUNS &&
            region.meta[streams[s].last].home != region.meta[p].home)
            return cfg.fetch_ahead;
    return 1;
}

static unsigned stream_for(uint32_t p)
{
    unsigned s = 0;
    while (s < STREAMS && streams[s].next != p)
        s++;
    if (s < STREAMS) {
        streams[s].window *= 2;
        return s;
    }
    for (s = 0; s < STREAMS; s++) {
        uint32_t d = p - streams[s].last;
        if (streams[s].window == 1 && p > streams[s].last + 1 && d <= MAX_STRIDE) {
            streams[s].stride = d;
            streams[s].window = 2;
            return s;
        }
    }
    uint32_t window = new_window(p);
    s = stream_victim++ % STREAMS;
    streams[s].stride = 1;
    streams[s].window = window;
    streams[s].runs = 0;
    return s;
}

/* The pages one request may bring: the faulting page and what its stream
 * predicts, as long as they are invalid and have the same home. */
static fetch_run plan_fetch(uint32_t p)
{
    if (hlrc_mc_section())
        return (fetch_run){p, 1, 1};
    unsigned s = stream_for(p);
    if (streams[s].window > cfg.fetch_ahead)
        streams[s].window = cfg.fetch_ahead;
    const page_meta *m = &region.meta[p];
    fetch_run r = {p, 1, streams[s].stride};
    for (uint64_t q = (uint64_t)p + r.stride; r.n < streams[s].window && q < region.npages;
         q += r.stride, r.n++) {
        const page_meta *mq = &region.meta[q];
        /* The state atomically, and proto too, so that no wider plain load
         * covers the state: the comm thread protects this node's own
         * sticky home pages (hlrc_protect_sticky) while it plans. */
        if (__atomic_load_n(&mq->proto, __ATOMIC_RELAXED) != m->proto || mq->home != m->home ||
            __atomic_load_n(&mq->state, __ATOMIC_RELAXED) != INVALID)
            break;
    }
    streams[s].last = p;
    streams[s].next = p + r.n * r.stride;
    streams[s].runs = r.n == cfg.fetch_ahead ? streams[s].runs + 1 : 0;
    return r;
}

void hlrc_fetch_ask(fetch_wait *fw, am_msg *m, int home)
{
    waiter_init_taken(&fw->w, home);
    am_post(home, m, MSG_PAGE_REQ, fw->r.first | (uint64_t)hlrc_mc_section() << 32,
            req_open(home, MSG_PAGE_REP, fw), fw->r.n | (uint64_t)fw->r.stride << 32, NULL, 0);
}

/* Asks run r's home for it, and waits for the reply (on_page_rep). */
static void fetch_by_message(fetch_run r, int home)
{
    fetch_wait fw = {.r = r};
    am_msg m;
    hlrc_fetch_ask(&fw, &m, home);
    waiter_wait(&fw.w);
}

/* Logs at `home` the copies of run r this node takes (memory/peers.h). */
static void log_copies(fetch_run r, int home)
{
    for (uint32_t i = 0; i < r.n; i++)
        peer_log_copy(home, r.first + i * r.stride);
}

/* Whether a page of run r is sticky at its home, which writes it without
 * faults: only the home can protect it before the copy
 * (hlrc_protect_sticky), so the run is asked for. Looked at after the
 * copies are logged and a fence: a release that makes a page sticky looks
 * at the logs after its store (flush_home_page), so a page never turns
 * sticky under a direct copy. A sticky page at version 0 is a fresh one of
 * its home's tsr_malloc arena that no node has copied (hlrc_heap.c): it
 * is copied, and the home's next release, finding the log entry, protects
 * it and versions it unless the copy still matches its bytes
 * (hlrc_fresh_copied), so that a first copy costs no message, as that of
 * a page the home had protected would not. */
static int sticky_at_home(fetch_run r, int home)
{
    for (uint32_t i = 0; i < r.n; i++) {
        uint32_t q = r.first + i * r.stride;
        if (peer_state(home, q) == HOME_STICKY && peer_version(home, q))
            return 1;
    }
    return 0;
}

/* TSR_FETCH=direct (memory/peers.h): copies run r from the memory of its
 * home, on this host, as on_page_req would have: each copy is logged
 * before its version is read and again after its bytes, so that whichever
 * way it interleaves with the home's release, that release or the next
 * announces a version newer than the copy (mark_copied). The fence orders
 * the log entries before the reads (the home's drain does the converse). A
 * replicated section's home serves the pages as they were when it began,
 * and a multicast section's requests are shared: those ask the home.
 * Returns 0 when the run must be asked for. */
static int copy_direct(fetch_run r, int home)
{
    if (!peer_page(home, r.first) || hlrc_mc_section() || coh_replicating())
        return 0;
    log_copies(r, home);
    atomic_thread_fence(memory_order_seq_cst);
    if (sticky_at_home(r, home))
        return 0;
    for (uint32_t i = 0; i < r.n; i++) {
        uint32_t q = r.first + i * r.stride, v = peer_version(home, q);
        memcpy(page_rt(q), peer_page(home, q), PAGE_SIZE);
        atomic_store_explicit(&region.meta[q].version, v, memory_order_release);
    }
    log_copies(r, home);
    COUNTER_ADD(pages_copied_direct, r.n);
    return 1;
}

/* Fetches run r (its first page is left to the caller) and maps every page
 * after the first for reading. */
static void fetch_run_of(fetch_run r)
{
    uint32_t p = r.first;
    double t0 = now_s();
    uint64_t traced = trace_begin();
    int home = region.meta[p].home;
    if (!copy_direct(r, home) && !hlrc_copy_onesided(&r, home))
        fetch_by_message(r, home);
    /* Readahead's pages count as touched: one not used is prefetched at
     * most once more (hlrc_prefetch.c). */
    for (uint32_t i = 1; i < r.n; i++) {
        hlrc_set_state(p + i * r.stride, READ);
        hlrc_prefetch_touched(p + i * r.stride);
    }
    if (r.n > 1 && r.stride == 1)
        detect_set_access(p + 1, r.n - 1, ACCESS_READ);
    else
        for (uint32_t i = 1; i < r.n; i++)
            detect_set_access(p + i * r.stride, 1, ACCESS_READ);
    STAT_ADD(page_fetches, r.n);
    STAT_TIME(fault_wait_s, now_s() - t0);
    TRACE_SPAN(traced, EV_FETCH, home, p, r.n);
}

void hlrc_page_fetch(uint32_t p) { fetch_run_of(plan_fetch(p)); }

uint32_t hlrc_fetch_run(uint32_t p, uint32_t max, uint32_t stride)
{
    const page_meta *m = &region.meta[p];
    fetch_run r = {p, 1, stride <= MAX_STRIDE ? stride : 1};
    if (max > cfg.fetch_ahead)
        max = cfg.fetch_ahead;
    if (stride <= MAX_STRIDE)
        while (r.n < max) {
            uint32_t q = p + r.n * stride;
            const page_meta *mq = &region.meta[q];
            if (mq->proto != m->proto || mq->home != m->home || hlrc_state(q) != INVALID)
                break;
            r.n++;
        }
    fetch_run_of(r);
    return r.n;
}

/* A run as a request or reply describes it: arg0 first page, arg2 count and
 * stride; -1 if it leaves the region. */
static int run_of(const tsr_msg_hdr *h, fetch_run *r)
{
    *r = (fetch_run){(uint32_t)h->arg[0], (uint32_t)h->arg[2], (uint32_t)(h->arg[2] >> 32)};
    return r->n == 0 || r->stride == 0 || r->stride > MAX_STRIDE ||
                   r->first >= region.npages ||
                   (uint64_t)(r->n - 1) * r->stride >= region.npages - r->first
               ? -1
               : 0;
}

/* A copy is being taken. Marked before the versions are read and again
 * after the bytes are copied: whichever way this interleaves with the home's
 * flush, that flush or the next one announces a version newer than the copy. */
static void mark_copied(const fetch_run *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        hlrc_note_copied(r->first + i * r->stride);
}

/* A run this node may serve: inside the region, within TSR_FETCH_AHEAD,
 * every page an hlrc page homed here. */
static int servable(const fetch_run *r)
{
    if (r->n > cfg.fetch_ahead)
        return 0;
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t q = r->first + i * r->stride;
        if (!hlrc_serves(q))
            return 0;
    }
    return 1;
}

static void on_page_req(int src, const tsr_msg_hdr *h, void *payload)
{
    fetch_run r;
    if (run_of(h, &r) || !servable(&r)) {
        am_reject(src, h, "a run of pages off the region or not home-based pages homed here");
        return;
    }
    size_t at = REP_PAGES_AT(r.n), len = at + (size_t)r.n * PAGE_SIZE;
    char *rep = malloc(len);
    if (!rep)
        log_die_status(1, "out of memory (page reply of %zu bytes)", len);
    for (uint32_t i = 0; i < r.n; i++)
        hlrc_protect_sticky(r.first + i * r.stride);
    mark_copied(&r);
    /* Version first, then bytes: a copy may hold writes newer than its
     * version (it will be invalidated for nothing), never older. */
    for (uint32_t i = 0; i < r.n; i++) {
        uint32_t q = r.first + i * r.stride;
        uint32_t v = atomic_load_explicit(&region.meta[q].version, memory_order_acquire);
        memcpy(rep + 4 * i, &v, 4);
        hlrc_copy_served(q, rep + at + (size_t)i * PAGE_SIZE);
    }
    mark_copied(&r);
    am_send(src, MSG_PAGE_REP, r.first, h->arg[1], h->arg[2], rep, len);
    hlrc_mc_push(src, h, &r, rep, len);
    free(rep);
}

/* The run of pages requested, at its length. */
static int page_rep_fits(const tsr_msg_hdr *h)
{
    const fetch_wait *fw = req_ctx(h->arg[1]);
    fetch_run r;
    return !run_of(h, &r) && !memcmp(&r, &fw->r, sizeof r) &&
           h->len == REP_PAGES_AT(r.n) + (size_t)r.n * PAGE_SIZE;
}

/* Async-signal-safe: the faulting thread may run it (am_register_direct). */
static void on_page_rep(int src, const tsr_msg_hdr *h, void *payload)
{
    fetch_wait *fw = req_ctx(h->arg[1]);
    fetch_run r;
    if (!page_rep_fits(h)) {
        am_reject(src, h, "not the run of pages requested, or not its length");
        return;
    }
    run_of(h, &r);
    req_close(h->arg[1]);
    const char *rep = payload;
    for (uint32_t i = 0; i < r.n; i++) {
        uint32_t q = r.first + i * r.stride, v;
        memcpy(page_rt(q), rep + REP_PAGES_AT(r.n) + (size_t)i * PAGE_SIZE, PAGE_SIZE);
        memcpy(&v, rep + 4 * i, 4);
        atomic_store_explicit(&region.meta[q].version, v, memory_order_release);
    }
    waiter_done(&fw->w);
}

void hlrc_fetch_init(void)
{
    stats_register(&pages_copied_direct);
    hlrc_onesided_init();
    am_register(MSG_PAGE_REQ, on_page_req);
    am_register_direct(MSG_PAGE_REP, on_page_rep, page_rep_fits);
}
