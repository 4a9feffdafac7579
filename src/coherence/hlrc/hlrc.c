/*
 * hlrc.c - home-based lazy release consistency, after JIAJIA and Nautilus
 * (nautilus-cache-only-write-detection.md, Section 2 and Figure 1), and
 * the pages of its scope-consistent variant (scope_protocol, below): what
 * a lock carries is the only difference (hlrc_notices.c).
 *
 * Every page has a home whose copy is the master. Elsewhere a page is
 *   INVALID -> (read fault: fetch from home) -> READ
 *   READ    -> (write fault: make a twin)    -> WRITE
 *   WRITE   -> (release: diff to home)       -> READ
 *   READ    -> (notice of a newer version)   -> INVALID
 * At its home a page is HOME_READ (write-protected so that the home's own
 * writes are seen), HOME_WRITE after a write in this interval, or, with
 * Nautilus' cache-only write detection, HOME_STICKY: left writable across
 * intervals on the guess that the home keeps writing it, until another
 * node copies it (protected before the copy: hlrc_protect_sticky) or
 * writes a diff into it (Nautilus waits for a diff alone, and its copies
 * are then invalidated whether or not the home wrote). Since its writes are
 * not seen, a sticky page counts as written in every interval; but a new
 * version matters only to a node holding a copy, so a release looks only
 * at the sticky pages that another node copied since the previous release
 * (the `copied` ring below), never at all the sticky pages: its cost
 * follows what changed, not how much memory the home has ever written.
 *
 * Versions replace JIAJIA's intervals in notices: the home bumps a page's
 * version for each diff it applies and for each interval in which it wrote
 * the page; a notice (page, version) invalidates cached copies older than
 * it. A fresh allocation is zero everywhere, so every node starts with a
 * valid version-0 copy and never fetches a page nobody wrote.
 *
 * A home announces a new version only if another node may hold a copy of
 * the current one (it fetched it, or wrote a diff into it: `copied`). Any
 * older copy is already covered: the notice for the current version stays
 * in the home's notice set, and travels with its releases, until the next
 * barrier applies it everywhere. So a page only its home uses costs no
 * notices at all, however often it is written.
 *
 * Where the detection layer tracks writes exactly (TSR_DETECT=uffd on a
 * kernel with asynchronous write protection), cache-only detection needs no
 * guess: home pages are HOME_EXACT, writable and never faulting, and a
 * release asks the kernel which of them were written since the previous
 * one. Only those get a new version, so a home page that was not written
 * costs no notice even if other nodes hold copies.
 */
#include <stdlib.h>
#include <string.h>

#include "coherence/diff.h"
#include "coherence/hlrc/hlrc.h"
#include "coherence/outbox.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/arena.h"
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


STATS_COUNTER(write_notices, "write notices made for new versions of home or diffed pages");
STATS_COUNTER(release_pages, "pages examined at releases");

/* Pages written in the current interval, pushed by the fault handler: a
 * preallocated array, no malloc on the fault path. */
static uint32_t *dirty;
static uint32_t ndirty;

/* Home pages that another node began to copy (a fetch, or a diff whose
 * writer keeps its copy) since the last release, pushed by the comm thread
 * (the only thread that runs message handlers) and drained by the release
 * on the application thread. `queued[p]` keeps a page in the ring at most
 * once, so one slot per page always suffices. A page is pushed before its
 * bytes are copied and again after: a release that misses the first push
 * sees the second, as with `copied` itself (mark_copied). */
static uint32_t *copied_ring;
static _Atomic uint8_t *queued;
static _Atomic uint64_t ring_tail;
static uint64_t ring_head;

int hlrc_home_of(uint32_t p) { return __atomic_load_n(&region.meta[p].home, __ATOMIC_ACQUIRE); }

int hlrc_is_home(uint32_t p) { return hlrc_home_of(p) == cfg.node; }

int hlrc_keeps(uint32_t p)
{
    const tsr_protocol *k = coh_protocol_of(p);
    return k == &hlrc_protocol || k == &scope_protocol;
}

/* Home here, or becoming so at the barrier being left (hlrc_migrate.c).
 * Pending first: a move stores the home before it clears the flag, so a
 * cleared flag read here is followed by the new home's. Read the other way
 * round, the comm thread could see the old home, then the flag cleared by
 * the move in between, and refuse a diff that the move had just made its
 * own (mp/write_release wide -n 5: the writer waited for its ack for ever). */
int hlrc_serves(uint32_t p) { return (hlrc_home_pending(p) || hlrc_is_home(p)) && hlrc_keeps(p); }

void hlrc_note_copied(uint32_t p)
{
    atomic_store(&region.meta[p].copied, COPY_TAKEN);
    if (atomic_exchange(&queued[p], 1))
        return;
    uint64_t t = atomic_load_explicit(&ring_tail, memory_order_relaxed);
    copied_ring[t % region.npages] = p;
    atomic_store_explicit(&ring_tail, t + 1, memory_order_release);
}

/* Comm thread, before it copies home page p for another node: a sticky
 * page is protected first, so that the home's next write faults and
 * versions it exactly; left sticky, the next release would have to guess
 * that it was written after the copy, and invalidate the copy for
 * nothing. The only change of state off the application thread, from
 * HOME_STICKY only, which no fault sees (the page is writable): should
 * the release find it sticky and decide first, it merely guesses. The
 * home's own changes to and from HOME_STICKY are atomic for this. */
void hlrc_protect_sticky(uint32_t p)
{
    if (!coh_comm_access_begin())
        return;
    hlrc_unstick(p);
    coh_comm_access_end();
}

int hlrc_unstick(uint32_t p)
{
    uint8_t sticky = HOME_STICKY;
    if (!__atomic_compare_exchange_n(&region.meta[p].state, &sticky, HOME_READ, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    detect_set_access(p, 1, ACCESS_READ);
    return 1;
}

/* Runs of home pages whose writes the detection layer tracks (HOME_EXACT);
 * changed only by tsr_alloc and tsr_free. Each run is a mapping of its own
 * (it belongs to another userfaultfd context), so their number is bounded
 * far below vm.max_map_count: homes finely interleaved (cyclic, small
 * blocks) beyond it fall back to sticky pages. */
#define MAX_TRACKED_RUNS 1024
typedef struct page_run {
    uint32_t first, n;
} page_run;
static page_run tracked[MAX_TRACKED_RUNS];
static uint32_t ntracked;
static int tracking_paused; /* in a replicated section: they fault instead */

/* Home pages [first, first+n) become HOME_EXACT if the detection layer can
 * track their writes; returns their state. */
static uint8_t home_state(uint32_t first, uint32_t n)
{
    if (!cfg.cache_only || ntracked == MAX_TRACKED_RUNS || detect_track_writes(first, n))
        return HOME_READ;
    tracked[ntracked++] = (page_run){first, n};
    return HOME_EXACT;
}

static void map(uint32_t first, uint32_t n, const tsr_attr *attr)
{
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        int home = hlrc_is_home(first + i);
        while (j < n && hlrc_is_home(first + j) == home)
            j++;
        uint8_t state = home ? home_state(first + i, j - i) : READ;
        if (home && cfg.cache_only && arena_owner(first + i) == cfg.node) {
            hlrc_map_local(first + i, j - i, state);
            i = j;
            continue;
        }
        for (uint32_t k = i; k < j; k++) {
            hlrc_set_state(first + k, state);
            /* Every other node holds version 0 of a fresh page. */
            atomic_store(&region.meta[first + k].copied, cfg.nodes > 1 ? COPY_FRESH : 0);
        }
        if (state != HOME_EXACT)
            detect_set_access(first + i, j - i, ACCESS_READ);
        i = j;
    }
}

static void unmap(uint32_t first, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ntracked; i++) {
        if (tracked[i].first >= first && tracked[i].first < first + n)
            detect_untrack_writes(tracked[i].first, tracked[i].n);
        else
            tracked[kept++] = tracked[i];
    }
    ntracked = kept;
}

/* ---- Faults (detection callback: any thread, async-signal-safe) ---------- */

/* The state is the truth and the protection follows it: a fault on a page
 * whose state already allows the access (a protection left behind, another
 * thread's fault just served) only puts the protection right, so a fault
 * can never repeat forever. is_write < 0 (the hardware does not say) counts
 * as a write on a readable page, the only access that can fault there, and
 * as a read on an invalid one (a write then faults once more). */
static void fault(uint32_t p, int is_write)
{
    hlrc_prefetch_touched(p);
    switch (hlrc_state(p)) {
    case HOME_READ:
        if (hlrc_mc_offered(p) && is_write != 1) { /* a read, or unknown */
            detect_set_access(p, 1, ACCESS_READ);
            return;
        }
        if (hlrc_rep_write(p))
            return;
        hlrc_set_state(p, HOME_WRITE);
        dirty[ndirty++] = p;
        detect_set_access(p, 1, ACCESS_WRITE);
        STAT_ADD(write_faults, 1);
        return;
    case INVALID:
        if (!hlrc_mc_take(p))
            hlrc_page_fetch(p);
        hlrc_set_state(p, READ);
        if (is_write != 1) { /* a read, or unknown: a write will fault again */
            detect_set_access(p, 1, ACCESS_READ);
            STAT_ADD(read_faults, 1);
            return;
        }
        __attribute__((fallthrough)); /* the write that faulted needs a twin */
    case READ:
        if (is_write == 0) {
            detect_set_access(p, 1, ACCESS_READ);
            return;
        }
        if (hlrc_rep_write(p))
            return;
        memcpy(page_twin(p), page_rt(p), PAGE_SIZE);
        hlrc_set_state(p, WRITE);
        dirty[ndirty++] = p;
        detect_set_access(p, 1, ACCESS_WRITE);
        STAT_ADD(twins, 1);
        STAT_ADD(write_faults, 1);
        return;
    default: /* WRITE, HOME_WRITE, HOME_STICKY, HOME_EXACT, REP_*: writable already */
        detect_set_access(p, 1, ACCESS_WRITE);
        return;
    }
}

/* A range check (coherence/range.c): invalid pages come in runs, one
 * exchange per home and TSR_FETCH_AHEAD pages, then each page takes the
 * step its fault would have taken (a twin, for a write). While pages are
 * multicast (a replicated section), each goes the way of its fault. */
static void range(uint32_t first, uint32_t n, uint32_t stride, int is_write)
{
    for (uint32_t i = 0; i < n;) {
        uint32_t p = first + i * stride, got = 0;
        if (hlrc_state(p) == INVALID && !hlrc_mc_section()) {
            got = hlrc_fetch_run(p, n - i, stride);
            hlrc_set_state(p, READ);
            detect_set_access(p, 1, ACCESS_READ);
        }
        if (!got || is_write)
            for (uint32_t k = 0; k < (got ? got : 1); k++)
                fault(p + k * stride, is_write);
        i += got ? got : 1;
    }
}

/* ---- Release: diffs to homes --------------------------------------------- */

typedef struct flush_ctx {
    waiter w;
    uint32_t *acks; /* (page, version) pairs written by the comm thread */
    _Atomic uint32_t nacks;
    uint32_t *sent; /* diffs sent to each home: what its ack must count */
} flush_ctx;

/* A home page written in this interval (or counted as written): a new
 * version, announced if some other node may hold the current one. Returns
 * whether it did. */
int hlrc_new_home_version(uint32_t p)
{
    page_meta *m = &region.meta[p];
    /* Both taken, whichever is set: a reader's mark (hlrc_onesided.c). */
    int copied = atomic_exchange(&m->copied, 0);
    int marked = hlrc_take_mark(p);
    if (!(marked | copied))
        return 0;
    hlrc_note(p, atomic_fetch_add(&m->version, 1) + 1, 1);
    COUNTER_ADD(write_notices, 1);
    return marked ? COPY_TAKEN : copied;
}

/* A home page written in this interval, or sticky and copied since the
 * last release. It stays (or becomes) sticky only while no other node
 * copies or writes it: a page read elsewhere is protected again, so that
 * only the intervals that really write it give it new versions, which
 * invalidate the copies (cache-only detection would otherwise invalidate
 * them after every release that follows a copy, written or not). A fresh
 * page that nobody copied becomes sticky at its first release too: the
 * version 0 the other nodes hold is invalidated by this one, as a copy
 * would be, but nobody read it that we know of. Protected instead, each
 * page of an allocation its home fills before a barrier took a second
 * write fault when the program wrote it again (SOR: 16,400 a node in its
 * first timed sweep at 2 nodes). Not where other nodes copy the home's
 * memory themselves, directly on this host or one-sided over ucx: they
 * would have to ask for a sticky page, a message a run where the home's
 * fault costs a few microseconds once (mp/fetch_onesided). */
static void flush_home_page(uint32_t p)
{
    page_meta *m = &region.meta[p];
    int taken = hlrc_new_home_version(p);
    int shared = taken == COPY_TAKEN ||
                 (taken == COPY_FRESH && (peers_direct() || hlrc_onesided_readers()));
    int remote = atomic_exchange(&m->remote, 0);
    if (cfg.cache_only && !shared && !remote) {
        hlrc_set_state(p, HOME_STICKY);
        /* A node of this host that logged a copy after this release's
         * drain may have looked at the state before this store: its copy
         * holds the current version, and the page is read elsewhere. Each
         * side looks after its own store and a fence, so either it sees
         * the page sticky and asks for it, or this sees its log entry.
         * So with a one-sided reader's mark (hlrc_onesided.c). */
        if (!peers_copying(p) && !hlrc_marked(p)) {
            hlrc_rep_sticky(p);
            return;
        }
        atomic_store(&m->copied, COPY_TAKEN);
    }
    hlrc_set_state(p, HOME_READ);
    detect_set_access(p, 1, ACCESS_READ);
}

/* The sticky pages among those copied since the last release. Entries of
 * pages in another state are dropped: a written page is on the dirty list,
 * a read-only one is announced at its next write fault, and a freed page's
 * entry may meanwhile belong to another protocol. */
static void flush_copied_sticky(void)
{
    uint64_t end = atomic_load_explicit(&ring_tail, memory_order_acquire);
    COUNTER_ADD(release_pages, end - ring_head);
    for (; ring_head < end; ring_head++) {
        uint32_t p = copied_ring[ring_head % region.npages];
        atomic_store(&queued[p], 0);
        if (hlrc_keeps(p) && hlrc_state(p) == HOME_STICKY)
            flush_home_page(p);
    }
}

/* An exactly tracked home page that the kernel saw written. */
static void flush_written_home(uint32_t p)
{
    COUNTER_ADD(release_pages, 1);
    hlrc_new_home_version(p);
}

void hlrc_diff_acked(uint32_t p, uint32_t v, int keep)
{
    hlrc_note(p, v, 0);
    COUNTER_ADD(write_notices, 1);
    /* Home went from the version we copied straight to ours: our copy
     * is the master copy, still valid. */
    if (keep && atomic_load(&region.meta[p].version) + 1 == v) {
        atomic_store(&region.meta[p].version, v);
        hlrc_mastered(p, v);
    }
}

/* Each home's diffs, written one-sided where it takes them so
 * (hlrc_onesided.c), else sent in one message; waits for the new
 * versions. */
static void send_diffs(outbox *box, uint32_t total)
{
    flush_ctx ctx;
    uint32_t homes = 0;
    ctx.acks = malloc((size_t)total * 8 + 8);
    ctx.sent = malloc((size_t)cfg.nodes * sizeof *ctx.sent);
    if (!ctx.acks || !ctx.sent)
        log_die("out of memory (diffs of %u pages)", total);
    atomic_store(&ctx.nacks, 0);
    for (int h = 0; h < cfg.nodes; h++) {
        ctx.sent[h] = box[h].count && hlrc_put_diffs(h, &box[h]) ? box[h].count : 0;
        homes += ctx.sent[h] > 0;
    }
    waiter_init(&ctx.w, homes);
    for (int h = 0; h < cfg.nodes; h++)
        if (ctx.sent[h])
            am_send(h, MSG_DIFF, box[h].count, req_open(h, MSG_DIFF_ACK, &ctx), 0, box[h].buf,
                    box[h].len);
    waiter_wait(&ctx.w);
    for (uint32_t i = 0; i < atomic_load(&ctx.nacks); i++)
        hlrc_diff_acked(ctx.acks[2 * i], ctx.acks[2 * i + 1], 1);
    free(ctx.acks);
    free(ctx.sent);
}

/* A home page that another node of this host logged a copy of, straight
 * from this node's memory (TSR_FETCH=direct, memory/peers.h): as
 * hlrc_note_copied. A page still sticky here was not copied: only a
 * release makes a page sticky, after this drain and looking at the logs
 * (flush_home_page), so the copier saw it sticky after logging and asked
 * for it instead; serving that request protects it and notes the copy.
 * Counting it copied would version a page nobody copied, invalidating
 * copies for nothing (Water at 4 nodes made 2-3% more requests than under
 * TSR_WRITE_DETECT=all). Fresh pages of the arena are the exception. */
static void copied_directly(int source, uint32_t p)
{
    if (!hlrc_keeps(p) || !hlrc_is_home(p))
        return;
    COUNTER_ADD(release_pages, 1);
    if (hlrc_fresh_local(p))
        hlrc_fresh_copied(source, p);
    else if (hlrc_state(p) != HOME_STICKY)
        atomic_store(&region.meta[p].copied, COPY_TAKEN);
}

/* Diffs always wait for their acks: the versions they return are the write
 * notices, which must exist before the release is announced. */
static void flush_interval(void)
{
    peers_drain_copies(copied_directly);
    flush_copied_sticky();
    for (uint32_t i = 0; i < ntracked && !tracking_paused; i++)
        detect_written(tracked[i].first, tracked[i].n, flush_written_home);
    if (!ndirty)
        return;
    outbox *box = calloc((size_t)cfg.nodes, sizeof *box);
    if (!box)
        log_die("out of memory (diff outboxes)");
    COUNTER_ADD(release_pages, ndirty);
    for (uint32_t i = 0; i < ndirty; i++) {
        uint32_t p = dirty[i];
        if (hlrc_is_home(p)) {
            flush_home_page(p);
            continue;
        }
        /* Protect first: the twin comparison must see the final bytes. */
        detect_set_access(p, 1, ACCESS_READ);
        hlrc_set_state(p, READ);
        outbox_add_diff(&box[region.meta[p].home], p, 0);
    }
    ndirty = 0;
    uint32_t total = 0;
    for (int h = 0; h < cfg.nodes; h++)
        total += box[h].count;
    if (total)
        send_diffs(box, total);
    for (int h = 0; h < cfg.nodes; h++)
        outbox_free(&box[h]);
    free(box);
}

static void flush(uint32_t *barrier_sent)
{
    (void)barrier_sent;
    flush_interval();
    hlrc_interval_done();
}

/* The entry problem of a diff message, NULL if every entry is a well-formed
 * diff for an hlrc page homed here. Checked whole before any is applied. */
static const char *bad_diffs(const tsr_msg_hdr *h, const void *payload)
{
    size_t pos = 0;
    for (uint32_t i = 0; i < (uint32_t)h->arg[0]; i++) {
        outbox_entry e;
        if (outbox_next(payload, h->len, &pos, &e))
            return "fewer entries than its count";
        if (e.page >= region.npages || !hlrc_serves(e.page))
            return "a diff for a page not homed here";
        if (diff_apply(NULL, e.bytes, e.len))
            return "a malformed diff";
    }
    return NULL;
}

static void on_diff(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t count = (uint32_t)h->arg[0];
    const char *why = bad_diffs(h, payload);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
    uint32_t *acks = malloc((size_t)count * 8 + 8);
    if (!acks)
        log_die_status(1, "out of memory (acks of %u diffs)", count);
    size_t pos = 0;
    for (uint32_t i = 0; i < count; i++) {
        outbox_entry e;
        outbox_next(payload, h->len, &pos, &e);
        uint64_t t0 = trace_begin();
        diff_apply((uint8_t *)page_rt(e.page), e.bytes, e.len);
        TRACE_SPAN(t0, EV_DIFF_APPLY, src, e.page, e.len);
        atomic_store(&region.meta[e.page].remote, 1);
        hlrc_note_copied(e.page); /* the writer keeps its copy valid */
        acks[2 * i] = e.page;
        acks[2 * i + 1] = atomic_fetch_add(&region.meta[e.page].version, 1) + 1;
        STAT_ADD(diffs_applied, 1);
    }
    am_send(src, MSG_DIFF_ACK, count, h->arg[1], 0, acks, (size_t)count * 8);
    free(acks);
}

static void on_diff_ack(int src, const tsr_msg_hdr *h, void *payload)
{
    flush_ctx *ctx = req_ctx(h->arg[1]);
    if (h->arg[0] != ctx->sent[src]) {
        am_reject(src, h, "acks %llu diffs of %u sent", (unsigned long long)h->arg[0],
                  ctx->sent[src]);
        return;
    }
    const uint32_t *pairs = payload;
    for (uint32_t i = 0; i < ctx->sent[src]; i++)
        if (pairs[2 * i] >= region.npages) {
            am_reject(src, h, "acks a diff for page %u, off the region", pairs[2 * i]);
            return;
        }
    req_close(h->arg[1]);
    uint32_t at = atomic_fetch_add(&ctx->nacks, (uint32_t)h->arg[0]);
    memcpy(ctx->acks + 2 * at, payload, (size_t)h->arg[0] * 8);
    waiter_done(&ctx->w);
}

/* ---- Acquire: invalidation ------------------------------------------------ */

int hlrc_invalidate(uint32_t p, uint32_t version)
{
    page_meta *m = &region.meta[p];
    if (hlrc_is_home(p))
        hlrc_mc_noticed(p);
    if (hlrc_is_home(p) || hlrc_state(p) == INVALID || atomic_load(&m->version) >= version)
        return 0;
    hlrc_set_state(p, INVALID);
    detect_set_access(p, 1, ACCESS_NONE);
    STAT_ADD(invalidations, 1);
    TRACE_MARK(EV_INVALIDATE, 0, p, 0);
    return 1;
}

/* A replicated section needs each home page's first write to fault: that
 * fault takes the twin which serves the other nodes meanwhile
 * (hlrc_replicate.c). So for the section the tracked runs go back to
 * faulting, HOME_READ, and afterwards are tracked again, the section's
 * writes forgotten (they are every node's, and need no notice). The
 * barrier that begins a section has just collected their writes. */
void hlrc_exact_pause(void)
{
    for (uint32_t i = 0; i < ntracked; i++) {
        page_run r = tracked[i];
        detect_untrack_writes(r.first, r.n);
        for (uint32_t k = 0; k < r.n; k++)
            hlrc_set_state(r.first + k, HOME_READ);
        detect_set_access(r.first, r.n, ACCESS_READ);
    }
    tracking_paused = ntracked > 0;
}

void hlrc_exact_resume(void)
{
    for (uint32_t i = 0; i < ntracked; i++) {
        page_run r = tracked[i];
        if (detect_track_writes(r.first, r.n))
            log_die_status(1, "cannot track the writes to %u home page(s) again after a "
                           "replicated section", r.n);
        for (uint32_t k = 0; k < r.n; k++)
            hlrc_set_state(r.first + k, HOME_EXACT);
    }
    tracking_paused = 0;
}

static void init(void)
{
    hlrc_rep_init();
    dirty = region_page_table(sizeof *dirty, "the dirty page list");
    copied_ring = region_page_table(sizeof *copied_ring, "the copied page ring");
    queued = region_page_table(sizeof *queued, "the copied page flags");
    stats_register(&write_notices);
    stats_register(&release_pages);
    hlrc_fetch_init();
    hlrc_prefetch_init();
    hlrc_migrate_init();
    am_register(MSG_DIFF, on_diff);
    am_register(MSG_DIFF_ACK, on_diff_ack);
}

/* The fields both tables share: the pages, and the notices of `pfx`. */
#define HLRC_TABLE(pfx)                                                                 \
    .map = map, .unmap = unmap, .fault = fault, .range = range,                         \
    .payload_check = hlrc_payload_check, .lock_grant = pfx##_lock_grant,               \
    .lock_handoff = pfx##_lock_handoff, .lock_release = pfx##_lock_release,             \
    .lock_merge = pfx##_lock_merge, .lock_acquire = pfx##_lock_acquire,                 \
    .barrier_arrival = pfx##_barrier_arrival, .barrier_merge = pfx##_barrier_merge,     \
    .barrier_departure = pfx##_barrier_departure, .barrier_apply = pfx##_barrier_apply, \
    .barrier_done = pfx##_barrier_done

const tsr_protocol hlrc_protocol = {
    .name = "hlrc",
    .init = init,
    .flush = flush,
    .replicate_begin = hlrc_replicate_begin,
    .replicate_end = hlrc_replicate_end,
    .barrier_left = hlrc_prefetch,
    HLRC_TABLE(hlrc),
};

/* Scope consistency: the same pages, states and diffs; only the notices
 * that locks carry differ (hlrc_notices.c). hlrc's flush and replicated
 * sections act on its pages too. */
const tsr_protocol scope_protocol = {
    .name = "scope",
    .variant_of = &hlrc_protocol,
    .lock_request = scope_lock_request,
    .lock_request_check = scope_lock_request_check,
    HLRC_TABLE(scope),
};
