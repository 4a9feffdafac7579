/*
 * hlrc_onesided.c - pages read one-sided from their home (TSR_FETCH=direct
 * over a transport with one-sided access, transport/rma.h: ucx), as
 * ArgoDSM reads them: the faulting node gets the page with no request, so
 * the home's comm thread runs no handler for it.
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
 */
#include <stdatomic.h>

#include "coherence/coherence.h"
#include "coherence/hlrc/hlrc.h"
#include "stats/stats.h"
#include "transport/rma.h"
#include "util/config.h"

STATS_COUNTER(pages_got_onesided, "pages read one-sided from their home's memory, which served "
                                  "no request (TSR_FETCH=direct over ucx)");
STATS_COUNTER(onesided_refused, "one-sided reads whose page was sticky at its home or whose "
                                "mark a release took meanwhile, asked for by message instead");

/* Pages read in one batch: a run longer than this takes several. */
#define CHUNK 16

static _Atomic uint8_t *marks;

void hlrc_onesided_init(void)
{
    stats_register(&pages_got_onesided);
    stats_register(&onesided_refused);
    marks = region_page_table(1, "the one-sided copy marks");
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

/* The home's entry for page p allows a copy: its page, of this protocol,
 * in a state whose writes a release versions. */
static int versioned_at_home(const page_meta *m, uint32_t p, int home)
{
    return m->home == home && m->proto == region.meta[p].proto &&
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
