/*
 * alloc.h - collective allocation of shared memory. Every node runs the same
 * deterministic first-fit over the same sequence of calls, so all nodes get
 * the same address without exchanging a message. It uses the region below
 * the tsr_malloc arenas (arena.h).
 */
#ifndef TSR_ALLOC_H
#define TSR_ALLOC_H

#include <stdint.h>

#include "tessera.h"

/* Reserves npages pages; returns the first, or UINT32_MAX when full. */
uint32_t alloc_pages(uint32_t npages);
/* Releases the allocation starting at page `first`; returns its length, or
 * 0 if no allocation starts there. */
uint32_t alloc_release(uint32_t first);
/* The home of page `first + i` of an allocation of n pages. */
int alloc_home(const tsr_attr *a, uint32_t i, uint32_t n);

#endif
