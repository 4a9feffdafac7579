/*
 * hlrc_prefetch.c - at a barrier, the home-based protocol fetches the pages
 * that the barrier's notices invalidated on this node and that the program
 * touched since their last fetch (TSR_PREFETCH=notices).
 *
 * A program that iterates reads again what it read before the barrier:
 * SOR's boundary rows, LU's pivot blocks, CG's vector. A copy held but not
 * touched is not fetched again: every copy would otherwise be invalidated
 * and prefetched at every barrier for ever. So a prefetched page is left
 * inaccessible, in state READ: its first touch takes a fault that changes
 * its access only (no round trip), and marks it touched (hlrc_prefetch_
 * touched, from the fault path), as a fault that fetched it does, and
 * the pages readahead brought with it (an unused one is prefetched once).
 * Faulting on each page would cost a round
 * trip per run that readahead finds, one after the other. Fetched here,
 * the runs (consecutive pages with one home, up to TSR_FETCH_AHEAD, as
 * ArgoDSM prefetches home-contiguous pages) are all asked for before the
 * first reply is waited for, so their round trips overlap, and the faults
 * do not happen. Between hosts, where a round trip costs tens of
 * microseconds, that is most of what a barrier's misses cost.
 *
 * Only pages asked of their home by message: a home on this host whose
 * memory this node copies from (TSR_FETCH=direct) costs no round trip, so
 * its pages wait for their faults, and so do those of a home whose pages
 * are read one-sided (hlrc_onesided.c), which is not to be woken. Not while pages are multicast or a
 * replicated section runs (their fetches take other paths).
 */
#include <stdlib.h>

#include "coherence/coherence.h"
#include "coherence/hlrc/hlrc.h"
#include "memory/peers.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "util/config.h"

STATS_COUNTER(pages_prefetched, "pages fetched at a barrier because its notices invalidated "
                                "them here (TSR_PREFETCH)");
STATS_COUNTER(prefetch_waits, "waits for a barrier's prefetch replies, each for up to 32 runs "
                              "asked at once (TSR_PREFETCH)");

/* Requests out at once: their replies are at most this many runs of
 * TSR_FETCH_AHEAD pages in flight. */
#define IN_FLIGHT 32

static uint32_t *wanted; /* the pages invalidated since the last prefetch */
static uint32_t nwanted;
static uint8_t *touched; /* per page: faulted on since its last fetch */

void hlrc_prefetch_init(void)
{
    stats_register(&pages_prefetched);
    stats_register(&prefetch_waits);
    if (!cfg.prefetch)
        return;
    wanted = region_page_table(sizeof *wanted, "the prefetch list");
    touched = region_page_table(sizeof *touched, "the touched page flags");
}

/* Async-signal-safe. Stored atomically: another application thread may
 * fault on another page of the same word. */
void hlrc_prefetch_touched(uint32_t page)
{
    if (touched)
        __atomic_store_n(&touched[page], 1, __ATOMIC_RELAXED);
}

/* A page is invalidated at most once between two barriers' ends (it stays
 * invalid until fetched), so the list never outgrows the region. */
void hlrc_prefetch_note(uint32_t page)
{
    if (touched && __atomic_exchange_n(&touched[page], 0, __ATOMIC_RELAXED) &&
        nwanted < region.npages)
        wanted[nwanted++] = page;
}

static int by_page(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether page p is still one to fetch here: invalid, and asked of its
 * home by message. */
static int to_fetch(uint32_t p)
{
    int home = region.meta[p].home;
    return hlrc_keeps(p) && hlrc_state(p) == INVALID && !peer_page(home, p) &&
           !hlrc_onesided_home(home);
}

/* The next run of the sorted list from wanted[*i]: consecutive pages with
 * one home, each to fetch, at most TSR_FETCH_AHEAD. n is 0 at the end. */
static fetch_run next_run(uint32_t *i)
{
    while (*i < nwanted && !to_fetch(wanted[*i]))
        (*i)++;
    if (*i == nwanted)
        return (fetch_run){0, 0, 1};
    uint32_t p = wanted[(*i)++];
    fetch_run r = {p, 1, 1};
    while (*i < nwanted && r.n < cfg.fetch_ahead && wanted[*i] == p + r.n &&
           region.meta[p + r.n].home == region.meta[p].home && to_fetch(p + r.n)) {
        r.n++;
        (*i)++;
    }
    return r;
}

/* Each run's pages are valid once its reply is in, and stay inaccessible
 * until touched (above). */
static void installed(const fetch_run *r)
{
    for (uint32_t k = 0; k < r->n; k++)
        hlrc_set_state(r->first + k, READ);
    STAT_ADD(page_fetches, r->n);
    COUNTER_ADD(pages_prefetched, r->n);
}

void hlrc_prefetch(void)
{
    if (!nwanted || hlrc_mc_section() || coh_replicating()) {
        nwanted = 0;
        return;
    }
    qsort(wanted, nwanted, sizeof *wanted, by_page);
    static fetch_wait fw[IN_FLIGHT];
    static am_msg m[IN_FLIGHT];
    uint32_t i = 0;
    for (;;) {
        int n = 0;
        while (n < IN_FLIGHT && (fw[n].r = next_run(&i)).n) {
            hlrc_fetch_ask(&fw[n], &m[n], region.meta[fw[n].r.first].home);
            n++;
        }
        if (n)
            COUNTER_ADD(prefetch_waits, 1);
        for (int k = 0; k < n; k++) {
            waiter_wait(&fw[k].w);
            installed(&fw[k].r);
        }
        if (n < IN_FLIGHT)
            break;
    }
    nwanted = 0;
}
