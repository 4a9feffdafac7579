#include "memory/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "memory/arena.h"
#include "memory/region.h"
#include "util/config.h"
#include "util/log.h"

typedef struct extent {
    uint32_t first, n;
} extent;

/* Allocations in address order. */
static extent *used;
static uint32_t nused, capused;

uint32_t alloc_pages(uint32_t npages)
{
    uint32_t at = 0, pos = 0;
    for (; pos < nused; pos++) {
        if (used[pos].first - at >= npages)
            break;
        at = used[pos].first + used[pos].n;
    }
    /* The top of the region belongs to the tsr_malloc arenas. */
    if (arena_start() - at < npages)
        return UINT32_MAX;
    if (nused == capused) {
        capused = capused ? capused * 2 : 64;
        used = realloc(used, capused * sizeof *used);
        if (!used)
            log_die("out of memory (allocation table)");
    }
    memmove(&used[pos + 1], &used[pos], (nused - pos) * sizeof *used);
    used[pos] = (extent){at, npages};
    nused++;
    return at;
}

uint32_t alloc_release(uint32_t first)
{
    for (uint32_t pos = 0; pos < nused; pos++) {
        if (used[pos].first != first)
            continue;
        uint32_t n = used[pos].n;
        memmove(&used[pos], &used[pos + 1], (nused - pos - 1) * sizeof *used);
        nused--;
        return n;
    }
    return 0;
}

int alloc_home(const tsr_attr *a, uint32_t i, uint32_t n)
{
    uint32_t nodes = (uint32_t)cfg.nodes;
    switch (a->home) {
    case TSR_HOME_NODE:
        return a->home_node;
    case TSR_HOME_CYCLIC: {
        /* In size_t: narrowed to 32 bits, a block_pages of 2^32 would be a
         * division by zero. Blocks longer than the allocation put every
         * page at node 0. */
        size_t b = a->block_pages ? a->block_pages : 1;
        return (int)((i / b + (size_t)a->start_node) % nodes);
    }
    case TSR_HOME_BLOCK:
    default: {
        /* The first n % nodes nodes get one page more, like a block
         * distribution of loop iterations. */
        uint32_t q = n / nodes, r = n % nodes, big = r * (q + 1);
        return (int)(i < big ? i / (q + 1) : r + (i - big) / (q ? q : 1));
    }
    }
}
