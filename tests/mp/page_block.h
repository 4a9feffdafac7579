/* page_block.h - a block of K pages that a node writes and another reads,
 * marked in each page's first and last word, for the tests that count the
 * write faults its home takes (malloc_sticky.c, home_refill.c). */
#ifndef TEST_PAGE_BLOCK_H
#define TEST_PAGE_BLOCK_H

#include <stdint.h>
#include <stdio.h>

#include "tessera.h"

#define PAGE 4096
#define K 64

static inline void fill(volatile uint64_t *blk, uint64_t value)
{
    for (int p = 0; p < K; p++)
        blk[(size_t)p * PAGE / 8] = blk[(size_t)(p + 1) * PAGE / 8 - 1] = value;
}

/* Whether every page of blk holds value; prints the first that does not. */
static inline int holds(volatile uint64_t *blk, uint64_t value, int owner)
{
    for (int p = 0; p < K; p++) {
        uint64_t a = blk[(size_t)p * PAGE / 8], b = blk[(size_t)(p + 1) * PAGE / 8 - 1];
        if (a != value || b != value) {
            printf("node %d: page %d of node %d's block holds %llu/%llu, expected %llu\n",
                   tsr_node(), p, owner, (unsigned long long)a, (unsigned long long)b,
                   (unsigned long long)value);
            return 0;
        }
    }
    return 1;
}

static inline uint64_t faults(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.write_faults;
}

#endif
