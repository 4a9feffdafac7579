#include "memory/arena.h"

#include "memory/region.h"
#include "util/config.h"

/* Per page of this node's arena, meaningful where a run of pages starts:
 * the run's length, USED if allocated; or, for a small page, USED | SMALL
 * and the number of live objects in it. */
#define USED 0x80000000u
#define SMALL 0x40000000u
#define COUNT 0x3fffffffu
#define SMALL_ALIGN 16u

static uint32_t *span;
static uint32_t lo, hi;            /* this node's arena */
static uint32_t slab = UINT32_MAX; /* the small page being filled */
static uint32_t slab_used;         /* its bytes given out so far */

static uint32_t pages_per_node(void)
{
    return (uint32_t)(cfg.malloc_memory >> PAGE_SHIFT) / (uint32_t)cfg.nodes;
}

uint32_t arena_start(void) { return region.npages - pages_per_node() * (uint32_t)cfg.nodes; }

void arena_bounds(int node, uint32_t *first, uint32_t *end)
{
    *first = arena_start() + (uint32_t)node * pages_per_node();
    *end = *first + pages_per_node();
}

int arena_owner(uint32_t page)
{
    uint32_t per = pages_per_node(), start = arena_start();
    if (!per || page < start || page >= region.npages)
        return -1;
    return (int)((page - start) / per);
}

static void arena_open(void)
{
    if (span)
        return;
    span = region_page_table(sizeof *span, "the tsr_malloc arena table");
    arena_bounds(cfg.node, &lo, &hi);
    if (hi > lo)
        span[lo] = hi - lo;
}

static uint32_t run_length(uint32_t p) { return span[p] & SMALL ? 1 : span[p] & COUNT; }

/* Where in the free run at p (of span[p] pages) `want` pages fit: its
 * first page, or UINT32_MAX. With `fresh`, only pages that no protocol
 * keeps (never allocated, or given back: region.meta's proto is 0). */
static uint32_t fit(uint32_t p, uint32_t want, int fresh)
{
    uint32_t run = 0;
    for (uint32_t q = p; q < p + span[p]; q++) {
        run = fresh && region.meta[q].proto ? 0 : run + 1;
        if (run == want)
            return q + 1 - want;
    }
    return UINT32_MAX;
}

/* First fit over the runs. Free runs are merged with the free runs that
 * follow them as the walk passes, so a free needs no neighbour search. A
 * fit inside a free run leaves free runs before and after it. */
static uint32_t take_run(uint32_t want, int fresh)
{
    for (uint32_t p = lo; p < hi; p += run_length(p)) {
        if (span[p] & USED)
            continue;
        while (p + span[p] < hi && !(span[p + span[p]] & USED)) {
            uint32_t next = p + span[p];
            span[p] += span[next];
            span[next] = 0;
        }
        uint32_t q = span[p] >= want ? fit(p, want, fresh) : UINT32_MAX;
        if (q == UINT32_MAX)
            continue;
        uint32_t end = p + span[p];
        if (q > p)
            span[p] = q - p;
        if (q + want < end)
            span[q + want] = end - q - want;
        span[q] = USED | want;
        return q;
    }
    return UINT32_MAX;
}

/* Small objects are bumped out of one page at a time; a page returns to
 * the free runs once its last object is freed (see arena_free). */
static void *take_small(size_t bytes, uint32_t *first)
{
    uint32_t size = ((uint32_t)bytes + SMALL_ALIGN - 1) & ~(SMALL_ALIGN - 1);
    if (slab == UINT32_MAX || slab_used + size > PAGE_SIZE) {
        if (slab != UINT32_MAX && !(span[slab] & COUNT))
            span[slab] = 1;
        slab = take_run(1, 0);
        if (slab == UINT32_MAX)
            return NULL;
        span[slab] = USED | SMALL;
        slab_used = 0;
    }
    void *ptr = page_app(slab) + slab_used;
    slab_used += size;
    span[slab]++;
    *first = slab;
    return ptr;
}

void *arena_alloc(size_t bytes, int whole_fresh, uint32_t *first, uint32_t *n)
{
    arena_open();
    if (bytes <= ARENA_SMALL_MAX && !whole_fresh) {
        *n = 1;
        return take_small(bytes ? bytes : 1, first);
    }
    size_t pages = bytes ? (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT : 1;
    uint32_t p = pages <= hi - lo ? take_run((uint32_t)pages, whole_fresh) : UINT32_MAX;
    if (p == UINT32_MAX)
        return NULL;
    *first = p;
    *n = (uint32_t)pages;
    return page_app(p);
}

int arena_free(void *ptr, uint32_t *first, uint32_t *n)
{
    if (!span || !region_contains(ptr))
        return -1;
    uint32_t p = page_of(ptr);
    size_t offset = (size_t)((char *)ptr - page_app(p));
    if (p < lo || p >= hi || !(span[p] & USED))
        return -1;
    *first = p;
    *n = 0;
    if (!(span[p] & SMALL)) {
        if (offset)
            return -1;
        span[p] &= COUNT;
        *n = span[p];
        return 0;
    }
    if (offset % SMALL_ALIGN || !(span[p] & COUNT))
        return -1;
    if (!(--span[p] & COUNT)) {
        if (p == slab)
            slab_used = 0; /* empty: fill it again from the start */
        else
            span[p] = 1;
    }
    return 0;
}
