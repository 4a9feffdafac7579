/* tsr_malloc memory is homed on its node, and no other node holds a copy
 * of it until it adopts and fetches it, so under cache-only detection the
 * home's writes to it fault only once another node has copied it, as a
 * program's private heap never faults (hlrc.c: map_local; the OpenMP
 * runtime's malloc is tsr_malloc, docs/OPENMP.md).
 *
 * Every node allocates K pages of its own and writes them all in each of
 * ROUNDS intervals:
 *   cache-only detection (segv's sticky pages or uffd's exact ones): no
 *     write fault, and no write notice;
 *   TSR_WRITE_DETECT=all: one fault a page an interval.
 * Then the next node reads every page (a copy, asked of the home or, on
 * this host, taken straight from its memory: a fresh page is copied even
 * though its home left it writable, hlrc_fetch.c). Once the owner has
 * released after the copy (two barriers), its pages are protected: its
 * next writes fault, one a page (none under exact detection, or alone),
 * and after a barrier the reader must see them. */
/* tsr-test: hlrc */
#include <stdint.h>
#include <stdio.h>

#include "coherence/hlrc/hlrc.h"
#include "memory/region.h"
#include "page_block.h"
#include "tessera.h"
#include "util/config.h"

#define ROUNDS 4

static int bad;

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    volatile uint64_t **blocks = tsr_alloc((size_t)n * sizeof *blocks);
    volatile uint64_t *mine = tsr_malloc((size_t)K * PAGE);
    int exact = region.meta[page_of((const void *)mine)].state == HOME_EXACT;
    blocks[me] = mine;
    tsr_barrier();

    uint64_t f0 = faults();
    for (int r = 1; r <= ROUNDS; r++) {
        fill(mine, (uint64_t)(me * 100 + r));
        tsr_barrier();
    }
    uint64_t got = faults() - f0, want = cfg.cache_only ? 0 : (uint64_t)K * ROUNDS;
    if (got != want) {
        printf("node %d: %llu write faults writing its own block %d times, expected %llu\n", me,
               (unsigned long long)got, ROUNDS, (unsigned long long)want);
        bad++;
    }

    int owner = (me + n - 1) % n;
    volatile uint64_t *theirs = blocks[owner];
    bad += !holds(theirs, (uint64_t)(owner * 100 + ROUNDS), owner);
    tsr_barrier();
    tsr_barrier();
    f0 = faults();
    fill(mine, (uint64_t)(me * 100 + ROUNDS + 1));
    got = faults() - f0;
    want = exact || (n == 1 && cfg.cache_only) ? 0 : K;
    if (got != want) {
        printf("node %d: %llu write faults writing its block after node %d copied it, "
               "expected %llu\n", me, (unsigned long long)got, (me + 1) % n,
               (unsigned long long)want);
        bad++;
    }
    tsr_barrier();
    bad += !holds(theirs, (uint64_t)(owner * 100 + ROUNDS + 1), owner);
    tsr_finalize();
    if (!bad)
        printf("node %d: PASS\n", me);
    return bad != 0;
}
