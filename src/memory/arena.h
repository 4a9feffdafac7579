/*
 * arena.h - non-collective allocation (tsr_malloc). The top TSR_MALLOC_MEMORY
 * bytes of the shared region are split into one arena per node, node 0's
 * lowest; collective allocation (alloc.c) stays below them. A node allocates
 * from its own arena alone, so no other node takes part: the others learn
 * an arena page's home (its owner) when they first fault on it.
 *
 * Inside its arena a node runs a first-fit over runs of pages. Requests of
 * at most ARENA_SMALL_MAX bytes are packed, 16-byte aligned, into shared
 * "small pages"; a small page returns to the free runs when its last object
 * is freed. Only the owner's application thread touches this state.
 */
#ifndef TSR_ARENA_H
#define TSR_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define ARENA_SMALL_MAX 2048u

/* The first page of the arenas: collective allocation ends below it. */
uint32_t arena_start(void);
/* Node `node`'s arena: pages [*lo, *hi), empty when TSR_MALLOC_MEMORY is
 * too small to give each node a page. Async-signal-safe. */
void arena_bounds(int node, uint32_t *lo, uint32_t *hi);
/* The node whose arena holds `page`, or -1. Async-signal-safe. */
int arena_owner(uint32_t page);

/* Allocates `bytes` in this node's arena. Returns the address, and sets
 * [*first, *first + *n) to the pages it lies in; NULL when the arena has
 * no room. With `whole_fresh`, the memory has pages of its own, none of
 * them kept by a protocol yet (region.meta's proto 0): an allocation that
 * sets up its pages for a protocol of its choice (a Munin object). */
void *arena_alloc(size_t bytes, int whole_fresh, uint32_t *first, uint32_t *n);
/* Frees what arena_alloc returned: 0, or -1 if ptr is not such an address
 * of this node's arena (or was freed already, for page-sized ones). Sets
 * [*first, *first + *n) to the run of pages given back (*n is 0 for a
 * small object: its page is shared). */
int arena_free(void *ptr, uint32_t *first, uint32_t *n);

#endif
