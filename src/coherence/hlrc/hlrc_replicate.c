/*
 * hlrc_replicate.c - replicated sequential sections under the home-based
 * protocol (openmp-now-replicated-sequential-sections.md, Section 5.3, and
 * docs/OMPNOW.md).
 *
 * Every node runs the section's code and makes its writes, so none of them
 * may travel: no diff, no new version, no write notice. A page written in
 * the section is therefore made writable without a twin (REP_WRITE), or,
 * at its home, without joining the dirty list (REP_HOME); at the end of the
 * section every copy holds the same bytes, and the pages go back to READ
 * and HOME_READ at the versions they had.
 *
 * The home's master copy is written in place, so a node that fetches a
 * page during the section after its home wrote it there would get the
 * home's writes and then make them again (x += 1 twice). TreadMarks' lazy
 * diffs have the same problem (Section 5.3), solved by write-protecting
 * the dirty pages at entry so that the first write in the section
 * separates the old writes from the new. Here the diffs of writes made
 * before the section were all sent at the barrier that opened it; what
 * must be kept apart is the home copy, so the home write-protects its
 * writable (sticky) home pages at entry, and its first write to a home
 * page in the section first keeps the page as it was in the page's twin
 * slot (unused at a home). Requests served during the section read that
 * copy (hlrc_copy_served).
 */
#include <stdatomic.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/hlrc/hlrc.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(pages_served, "pages a home copied into replies to page requests");

/* Pages written in the current section (fault path: preallocated). */
static uint32_t *written;
static uint32_t nwritten;
/* Home pages left writable by cache-only detection (HOME_STICKY), each
 * once (`listed`); entries of pages that left the state are skipped. */
static uint32_t *sticky;
static uint8_t *listed;
static uint32_t nsticky;
/* In a section. The comm thread reads it before it looks at a page's
 * state, which only a section makes it need: outside one the application
 * thread changes states with plain stores. */
static atomic_int active;

void hlrc_rep_init(void)
{
    written = region_page_table(sizeof *written, "the replicated page list");
    sticky = region_page_table(sizeof *sticky, "the sticky page list");
    listed = region_page_table(sizeof *listed, "the sticky page flags");
    stats_register(&pages_served);
    hlrc_mc_init();
}

void hlrc_rep_sticky(uint32_t p)
{
    if (!listed[p]) {
        listed[p] = 1;
        sticky[nsticky++] = p;
    }
}

int hlrc_rep_write(uint32_t p)
{
    if (!atomic_load_explicit(&active, memory_order_relaxed))
        return 0;
    if (hlrc_state(p) == HOME_READ) {
        memcpy(page_twin(p), page_rt(p), PAGE_SIZE);
        hlrc_set_state(p, REP_HOME);
    } else {
        hlrc_set_state(p, REP_WRITE);
    }
    written[nwritten++] = p;
    detect_set_access(p, 1, ACCESS_WRITE);
    STAT_ADD(write_faults, 1);
    coh_replicated_write();
    return 1;
}

void hlrc_copy_served(uint32_t p, void *dst)
{
    COUNTER_ADD(pages_served, 1);
    if (!atomic_load_explicit(&active, memory_order_acquire)) {
        memcpy(dst, page_rt(p), PAGE_SIZE);
        return;
    }
    if (hlrc_state(p) != REP_HOME)
        memcpy(dst, page_rt(p), PAGE_SIZE);
    /* The home may have begun writing while the bytes were copied: its
     * state changes, after the twin is taken, before any write. */
    atomic_thread_fence(memory_order_seq_cst);
    if (hlrc_state(p) == REP_HOME)
        memcpy(dst, page_twin(p), PAGE_SIZE);
}

void hlrc_replicate_begin(void)
{
    for (uint32_t i = 0; i < nsticky; i++) {
        uint32_t p = sticky[i];
        listed[p] = 0;
        if (hlrc_keeps(p) && region.meta[p].home == cfg.node)
            hlrc_unstick(p);
    }
    nsticky = 0;
    hlrc_exact_pause();
    atomic_store_explicit(&active, 1, memory_order_release);
    hlrc_mc_begin();
}

void hlrc_replicate_end(void)
{
    for (uint32_t i = 0; i < nwritten; i++) {
        uint32_t p = written[i];
        hlrc_set_state(p, hlrc_state(p) == REP_HOME ? HOME_READ : READ);
        detect_set_access(p, 1, ACCESS_READ);
    }
    nwritten = 0;
    atomic_store_explicit(&active, 0, memory_order_release);
    hlrc_exact_resume();
    hlrc_mc_end();
}
