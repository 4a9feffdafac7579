/* A fresh allocation that its home fills before a barrier and writes again
 * after it (SOR's bands: initialised, then swept) takes one write fault a
 * page under cache-only detection, not two (hlrc.c, flush_home_page): its
 * first release announces a new version, since every node holds version 0
 * of a fresh page, but leaves the page writable (sticky), nobody having
 * copied it.
 *
 * Every node's block of K pages is homed on it. The next node reads the
 * block while it is still zero (a version-0 copy it really uses), then
 * the owner writes its block in each of ROUNDS intervals:
 *   cache-only, segv: K faults in the first interval, none after (K in
 *     the second too where other nodes copy this node's memory, on this
 *     host or one-sided over ucx: they could not copy a sticky page
 *     without asking);
 *   cache-only, uffd (exact): none;
 *   TSR_WRITE_DETECT=all: K faults in every interval.
 * After the rounds the reader must see the last round's values: the first
 * release's notice invalidated its version-0 copy. */
/* tsr-test: hlrc */
#include <stdint.h>
#include <stdio.h>

#include "coherence/hlrc/hlrc.h"
#include "memory/peers.h"
#include "memory/region.h"
#include "page_block.h"
#include "tessera.h"
#include "util/config.h"

#define ROUNDS 4

static int bad;

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), owner = (me + n - 1) % n;
    volatile uint64_t *block[64];
    if (n > 64) {
        printf("node %d: at most 64 nodes\n", me);
        return 1;
    }
    for (int h = 0; h < n; h++) { /* collective: the same calls on every node */
        tsr_attr attr = TSR_ATTR_DEFAULT;
        attr.home = TSR_HOME_NODE;
        attr.home_node = h;
        block[h] = tsr_alloc_attr((size_t)K * PAGE, &attr);
    }
    volatile uint64_t *mine = block[me];
    int exact = region.meta[page_of((const void *)mine)].state == HOME_EXACT;
    bad += !holds(block[owner], 0, owner);
    tsr_barrier();

    for (int r = 1; r <= ROUNDS; r++) {
        uint64_t f0 = faults();
        fill(mine, (uint64_t)(me * 100 + r));
        tsr_barrier();
        uint64_t got = faults() - f0;
        int faulting = r == 1 || (r == 2 && (peers_direct() || hlrc_onesided_readers()));
        uint64_t want = !cfg.cache_only || (!exact && faulting) ? K : 0;
        if (got != want) {
            printf("node %d: %llu write faults writing its block in round %d, expected %llu\n",
                   me, (unsigned long long)got, r, (unsigned long long)want);
            bad++;
        }
    }
    bad += !holds(block[owner], (uint64_t)(owner * 100 + ROUNDS), owner);
    tsr_finalize();
    if (!bad)
        printf("node %d: PASS\n", me);
    return bad != 0;
}
