/*
 * hlrc_onesided.c - pages read one-sided from their home (TSR_FETCH=direct
 * over a transport with one-sided access, transport/rma.h: ucx), and a
 * release's diffs written into it so (TSR_DIFF_PUT=onesided), as ArgoDSM
 * does both: no request, so the home's comm thread runs no handler.
 *
 * The home must still learn that a copy of its current version exists,
 * or its next release, seeing no copy (`copied`, hlrc.c), would make a
 * new version without a notice and leave the copy stale for ever. So each
 * home exposes a byte per page, its mark, that readers set one-sided; a
 * release takes (clears) a page's mark with its `copied` flag, and
 * versions and announces the page if either was set (hlrc_new_home_version).
 * A reader's batch, each step fenced after the one before:
 *
 *   put mark[p] = 1;  get meta[p] (version v, state);  get mark[p];  get page p
 *
 * and the copy is kept, at version v, only if the mark it read back is
 * still set and the home's state is one whose writes a release versions
 * (HOME_READ, HOME_WRITE, HOME_EXACT). Why that suffices: the mark read
 * back was set after v was read, and only a release clears it, which then
 * makes a new version, with a notice, since a mark was set. So every
 * release after the copy's bytes were read either announces a version
 * newer than v or follows one that did (the notice stays in the home's
 * notice set until the next barrier applies it everywhere): the copy is
 * invalidated before a later write at the home could be missed. A copy
 * may hold bytes newer than v (a diff being applied, the home's writes of
 * this interval): it is then invalidated for nothing, never kept stale,
 * as a copy by message.
 *
 * Sticky pages (HOME_STICKY) are written without faults, and a release
 * looks only at those copied by message; a reader that finds one asks
 * for it (serving the request protects it). A release that makes a page
 * sticky looks at its mark after the store and a fence, and keeps it
 * HOME_READ if set (flush_home_page): either the reader's state read
 * sees the page sticky, or the release sees the mark. Replicated and
 * multicast sections ask by message, as TSR_FETCH=direct on one host.
 *
 * A release writes its diffs for one home in two batches, three groups:
 *
 *   put mark[p] = 1, put each run of p's diff;  flush;
 *   get meta[p] (state);  fence;  increment meta[p].version (old value u)
 *
 * The first batch ends with a flush, not a fence: a put's completion is
 * only local, and UCX 1.13's fence orders only the operations that one of
 * its transports carries (on a fabric whose atomics take another lane
 * than its puts, an increment could overtake the runs). So the home's
 * version goes to u + 1 only once the runs are in place, and a
 * reader that reads a version at least u + 1 (before the bytes, as every
 * reader does) copies them whole; one that read less holds a copy older
 * than u + 1, which the notice (p, u + 1) invalidates. Two writers of one
 * page write their own bytes (runs are exact to the byte, diff.h) and take
 * two versions: neither loses the other's runs, as by message. The
 * increment is atomic with the home's own (UCX_ATOMIC_MODE=cpu, ucx_rma.c).
 * The writer keeps its copy, at u + 1, only if its copy was at u and the
 * state was one a release versions. Then no release versioned the page
 * between the mark's put and the increment, so none took the mark (a
 * release that takes one versions the page) and none made the page
 * sticky (only a release does, after taking the mark): the page was not
 * sticky at the increment, and the next release that looks at it, as
 * any release after a write of the home's does, takes the mark and
 * versions it, as on_diff's hlrc_note_copied makes it. A sticky page
 * takes the runs too, but the copy is not kept. A copy not kept is
 * invalidated at once: left at its old version, the only newer notice
 * may be this node's own, which no grant brings back, and a sticky
 * page's later writes at the home are never versioned (nothing puts it
 * on the copied ring), so the copy would stay valid and its next diff
 * would write stale bytes over the home's. Fetched again, by message
 * (serving a sticky page protects it and notes the copy) or one-sided
 * (with its mark), the new copy is one the home knows of.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

#include "coherence/coherence.h"
#include "coherence/diff.h"
#include "coherence/hlrc/hlrc.h"
#include "stats/stats.h"
#include "transport/rma.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(pages_got_onesided, "pages read one-sided from their home's memory, which served "
                                  "no request (TSR_FETCH=direct over ucx)");
STATS_COUNTER(diffs_put_onesided, "diffs written one-sided into their home's memory, which "
                                  "applied no diff message for them (TSR_DIFF_PUT=onesided over ucx)");
STATS_COUNTER(onesided_refused, "one-sided reads whose page was sticky at its home or whose "
                                "mark a release took meanwhile, asked for by message instead");

/* Pages read in one batch: a run longer than this takes several. */
#define CHUNK 16

static _Atomic uint8_t *marks;

void hlrc_onesided_init(void)
{
    stats_register(&pages_got_onesided);
    stats_register(&onesided_refused);
    stats_register(&diffs_put_onesided);
    marks = region_page_table(1, "the one-sided copy marks");
    if (cfg.diff_put)
        transport_expose_writable();
    transport_expose(RMA_PAGES, region.rt, region.size);
    transport_expose(RMA_META, region.meta, (size_t)region.npages * sizeof(page_meta));
    transport_expose(RMA_MARKS, (void *)marks, region.npages);
}

int hlrc_take_mark(uint32_t p) { return atomic_exchange(&marks[p], 0) != 0; }

int hlrc_marked(uint32_t p)
{
    atomic_thread_fence(memory_order_seq_cst);
    return atomic_load(&marks[p]) != 0;
}

int hlrc_onesided_home(int home) { return cfg.fetch_direct && transport_rma_ready(home); }

/* Every node's settings are the same: a node that reads so is read so. */
int hlrc_onesided_readers(void) { return cfg.fetch_direct && cfg.transport == TRANSPORT_UCX; }

/* The home's entry for page p: its page, of this protocol. */
static int homed_there(const page_meta *m, uint32_t p, int home)
{
    return m->home == home && m->proto == region.meta[p].proto;
}

/* ... and in a state whose writes a release versions: a copy may be kept. */
static int versioned_at_home(const page_meta *m, uint32_t p, int home)
{
    return homed_there(m, p, home) &&
           (m->state == HOME_READ || m->state == HOME_WRITE || m->state == HOME_EXACT);
}

/* Pages first + i * stride, i < n <= CHUNK, in one batch; -1 to ask. */
static int copy_chunk(uint32_t first, uint32_t n, uint32_t stride, int home)
{
    rma_op ops[4 * CHUNK];
    page_meta meta[CHUNK];
    uint8_t seen[CHUNK], one = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t q = first + i * stride;
        int fence = i == 0;
        ops[i] = (rma_op){&one, q, 1, RMA_MARKS, 1, 0};
        ops[n + i] = (rma_op){&meta[i], (uint64_t)q * sizeof(page_meta), sizeof(page_meta),
                              RMA_META, 0, fence};
        ops[2 * n + i] = (rma_op){&seen[i], q, 1, RMA_MARKS, 0, fence};
        ops[3 * n + i] = (rma_op){page_rt(q), (uint64_t)q << PAGE_SHIFT, PAGE_SIZE, RMA_PAGES, 0,
                                  fence};
    }
    if (transport_rma(home, ops, (int)(4 * n)))
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (!seen[i] || !versioned_at_home(&meta[i], first + i * stride, home)) {
            COUNTER_ADD(onesided_refused, 1);
            return -1;
        }
    for (uint32_t i = 0; i < n; i++)
        atomic_store_explicit(&region.meta[first + i * stride].version,
                              atomic_load(&meta[i].version), memory_order_release);
    return 0;
}

int hlrc_copy_onesided(const fetch_run *r, int home)
{
    if (!hlrc_onesided_home(home) || hlrc_mc_section() || coh_replicating())
        return 0;
    /* Counted once the whole run is in: a chunk refused sends the run,
     * the chunks before it too, to be asked for. */
    for (uint32_t i = 0; i < r->n; i += CHUNK)
        if (copy_chunk(r->first + i * r->stride, r->n - i < CHUNK ? r->n - i : CHUNK, r->stride,
                       home))
            return 0;
    COUNTER_ADD(pages_got_onesided, r->n);
    return 1;
}

/* The runs of the diffs in box, or -1 if one is malformed. */
static long count_runs(const outbox *box)
{
    size_t pos = 0;
    long runs = 0;
    outbox_entry e;
    for (uint32_t i = 0; i < box->count; i++) {
        if (outbox_next(box->buf, box->len, &pos, &e))
            return -1;
        uint16_t off, n;
        for (size_t at = 0; at < e.len; runs++)
            if (diff_next_run(e.bytes, e.len, &at, &off, &n))
                return -1;
    }
    return runs;
}

/* Fills ops with box's two batches (the file's comment), the first
 * *split long: the pages' entries into meta and old versions into old;
 * returns their length. */
static int plan_puts(const outbox *box, rma_op *ops, page_meta *meta, uint32_t *old,
                     uint32_t *pages, int *split)
{
    static const uint8_t one = 1;
    size_t pos = 0;
    int k = 0;
    outbox_entry e;
    for (uint32_t i = 0; i < box->count; i++) {
        outbox_next(box->buf, box->len, &pos, &e);
        pages[i] = e.page;
        ops[k++] = (rma_op){(void *)&one, e.page, 1, RMA_MARKS, RMA_PUT, 0};
        uint16_t off, n;
        for (size_t at = 0; at < e.len;) {
            diff_next_run(e.bytes, e.len, &at, &off, &n);
            ops[k++] = (rma_op){(void *)(e.bytes + at - n), ((uint64_t)e.page << PAGE_SHIFT) + off,
                                n, RMA_PAGES, RMA_PUT, 0};
        }
    }
    ops[k++] = (rma_op){NULL, 0, 0, RMA_PAGES, RMA_FLUSH, 0};
    *split = k;
    for (uint32_t i = 0; i < box->count; i++)
        ops[k++] = (rma_op){&meta[i], (uint64_t)pages[i] * sizeof(page_meta), sizeof(page_meta),
                            RMA_META, RMA_GET, i == 0};
    for (uint32_t i = 0; i < box->count; i++)
        ops[k++] = (rma_op){&old[i], (uint64_t)pages[i] * sizeof(page_meta) +
                                         offsetof(page_meta, version),
                            4, RMA_META, RMA_INC32, i == 0};
    return k;
}

int hlrc_put_diffs(int home, const outbox *box)
{
    if (!cfg.diff_put || !transport_rma_writable(home) || hlrc_mc_section() ||
        coh_replicating())
        return -1;
    long runs = count_runs(box);
    uint32_t n = box->count;
    if (runs < 0)
        log_die("a malformed diff of this node's own, for node %d", home);
    rma_op *ops = malloc(((size_t)runs + 3 * n + 1) * sizeof *ops);
    page_meta *meta = malloc(n * sizeof *meta);
    uint32_t *old = malloc(n * sizeof *old), *pages = malloc(n * sizeof *pages);
    if (!ops || !meta || !old || !pages)
        log_die("out of memory (one-sided diffs of %u pages)", n);
    /* A batch that failed wrote what a message then writes again, and may
     * have skipped versions: its copies are invalidated for nothing. */
    int split, len = plan_puts(box, ops, meta, old, pages, &split);
    int failed = transport_rma(home, ops, split) || transport_rma(home, ops + split, len - split);
    for (uint32_t i = 0; i < n && !failed; i++) {
        if (!homed_there(&meta[i], pages[i], home))
            log_die("node %d took a one-sided diff for page %u, which it does not keep as this "
                    "node does", home, pages[i]);
        hlrc_diff_acked(pages[i], old[i] + 1, versioned_at_home(&meta[i], pages[i], home));
        /* A copy not kept is dropped (the file's comment): nothing else
         * would invalidate it, this node's own notice least of all. */
        hlrc_invalidate(pages[i], old[i] + 1);
    }
    if (!failed)
        COUNTER_ADD(diffs_put_onesided, n);
    free(ops);
    free(meta);
    free(old);
    free(pages);
    return failed;
}
