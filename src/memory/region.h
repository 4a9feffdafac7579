/*
 * region.h - the shared address space of a node.
 *
 * One memfd backs the shared memory and is mapped twice:
 *   app  - at the same fixed address on every node (TSR_BASE); the
 *          application's view, whose accesses the detection layer
 *          (src/detect/) watches for coherence;
 *   rt   - anywhere, always read-write: the runtime installs fetched pages
 *          and applies diffs through it, never by opening `app`.
 * A third, private area holds the twins, page for page. All three are
 * reserved, not committed: memory is used only where pages are touched.
 */
#ifndef TSR_REGION_H
#define TSR_REGION_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE_SIZE 4096u
#define PAGE_SHIFT 12

/* Per page: its home, its protocol's state, and its version (at the home,
 * the master copy's version; elsewhere, the version of the cached copy). */
typedef struct page_meta {
    _Atomic uint32_t version;
    uint16_t home;
    uint8_t state;          /* protocol-defined; owned by the application thread */
    uint8_t proto;          /* 0: not allocated; else index into coherence's table */
    _Atomic uint8_t remote; /* set by the comm thread: another node wrote it */
    _Atomic uint8_t copied; /* set by the comm thread: another node may hold a
                             * copy of the current version */
} page_meta;

typedef struct tsr_region {
    char *app, *rt, *twin;
    size_t size;
    uint32_t npages;
    int memfd;
    page_meta *meta;
} tsr_region;

extern tsr_region region;

void region_init(void);
/* A per-page table of `elem`-byte entries, zeroed, reserved not committed
 * (protocols keep their page directories so). Exits naming `what` on failure. */
void *region_page_table(size_t elem, const char *what);

static inline int region_contains(const void *addr)
{
    return (const char *)addr >= region.app && (const char *)addr < region.app + region.size;
}
static inline uint32_t page_of(const void *addr)
{
    return (uint32_t)(((const char *)addr - region.app) >> PAGE_SHIFT);
}
static inline char *page_app(uint32_t p) { return region.app + ((size_t)p << PAGE_SHIFT); }
static inline char *page_rt(uint32_t p) { return region.rt + ((size_t)p << PAGE_SHIFT); }
static inline char *page_twin(uint32_t p) { return region.twin + ((size_t)p << PAGE_SHIFT); }

/* Returns pages to the system: their contents become zero again. */
void region_discard(uint32_t first, uint32_t n);

#endif
