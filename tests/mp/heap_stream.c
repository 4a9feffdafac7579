/* Reading other nodes' tsr_malloc blocks one after another, as the OpenMP
 * form of MM reads B's row bands (docs/OPENMP.md, "What it costs"):
 *
 *  - one adoption per arena: node 0 allocates a block, then 17,408 pages
 *    (an OpenMP thread's frame stack is 16,384), then one more page; the
 *    reader's first fault adopts the whole allocated run, so reading the
 *    last page asks nothing more (ADOPT_MAX in adopt.c: at 4,096 pages it
 *    took a second MSG_ADOPT_REQ). An owner whose page table is mapped
 *    here (on this host, TSR_FETCH=direct) is asked nothing at all;
 *  - readahead keeps its pace from one home's block to the next: node 1's
 *    block, read right after node 0's, takes one fault per TSR_FETCH_AHEAD
 *    pages from its first page, where starting again at one page took
 *    four more (hlrc_fetch.c: new_window).
 *
 * The last node reads, at 3 nodes and more. */
/* tsr-test: hlrc -n 3 */
#include <stdint.h>
#include <stdio.h>

#include "memory/peers.h"
#include "memory/region.h"
#include "counter.h"
#include "tessera.h"
#include "util/config.h"

#define PAGE 4096
#define BLOCK 256           /* pages of each streamed block */
#define STACK (17 * 1024)   /* pages between node 0's block and its last page */

static int bad;

/* Reads a word of each of the block's pages, in order, checking its value. */
static void stream(volatile uint64_t *blk, int owner)
{
    for (uint64_t p = 0; p < BLOCK && !bad; p++)
        if (blk[p * PAGE / 8] != ((uint64_t)owner << 32 | p)) {
            printf("node %d: page %llu of node %d's block holds %llu\n", tsr_node(),
                   (unsigned long long)p, owner, (unsigned long long)blk[p * PAGE / 8]);
            bad++;
        }
}

static uint64_t read_faults(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.read_faults;
}

/* Faults of a stream over BLOCK pages whose runs double from `window`. */
static uint64_t faults_from(uint32_t window)
{
    uint64_t faults = 0;
    for (uint32_t left = BLOCK; left; faults++) {
        left -= window < left ? window : left;
        window = window * 2 < cfg.fetch_ahead ? window * 2 : cfg.fetch_ahead;
    }
    return faults;
}

static void check(const char *what, uint64_t got, uint64_t want)
{
    if (got == want)
        return;
    printf("node %d: %s: %llu, expected %llu\n", tsr_node(), what, (unsigned long long)got,
           (unsigned long long)want);
    bad++;
}

/* What node 0 and node 1 hand on: their blocks, and node 0's last page. */
typedef struct shared {
    volatile uint64_t *block[2];
    volatile uint64_t *last;
} shared;

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), reader = tsr_nodes() - 1;
    shared *sh = tsr_alloc(sizeof *sh);
    if (me < 2) {
        volatile uint64_t *blk = tsr_malloc((size_t)BLOCK * PAGE);
        for (uint64_t p = 0; p < BLOCK; p++)
            blk[p * PAGE / 8] = (uint64_t)me << 32 | p;
        sh->block[me] = blk;
    }
    if (me == 0) {
        volatile uint64_t *last = tsr_malloc((size_t)STACK * PAGE) ? tsr_malloc(PAGE) : NULL;
        if (!last) {
            printf("node 0: tsr_malloc failed\n");
            return 1;
        }
        *last = 7;
        sh->last = last;
    }
    tsr_barrier();

    if (me == reader) {
        shared mine = *sh; /* read before counting: sh is not in the arenas */
        uint64_t asked = counter("adopt_requests"), direct = counter("adopts_direct");
        uint64_t f0 = read_faults();
        stream(mine.block[0], 0);
        uint64_t f1 = read_faults();
        stream(mine.block[1], 1);
        check("read faults streaming node 1's block after node 0's", read_faults() - f1,
              faults_from(cfg.fetch_ahead));
        check("read faults streaming node 0's block", f1 - f0, faults_from(1));
        if (*mine.last != 7) {
            printf("node %d: node 0's last page holds %llu\n", me,
                   (unsigned long long)*mine.last);
            bad++;
        }
        /* Asked of the owners whose memory is not mapped here. */
        uint64_t unmapped = 0;
        for (int owner = 0; owner < 2; owner++)
            unmapped += !peer_page(owner, page_of((const void *)mine.block[owner]));
        check("adoptions asked of node 0 and node 1", counter("adopt_requests") - asked, unmapped);
        check("adoptions for node 0's and node 1's arenas",
              counter("adopt_requests") - asked + counter("adopts_direct") - direct, 2);
    }
    tsr_barrier();
    tsr_finalize();
    if (!bad)
        printf("node %d: PASS\n", me);
    return bad != 0;
}
