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
 *
 * Windows: a run of pages may appear in the application view at another
 * address than TSR_BASE + page * 4K. The program's own globals are shared
 * so (api/globals.c): their pages are an allocation of the region whose
 * application addresses are the globals' own. A window's pages keep their
 * page numbers, runtime view and twins; only page_app and page_of know.
 * Without windows the fault path pays one compare.
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
    uint8_t state;          /* protocol-defined; owned by the application thread,
                             * but for hlrc_protect_sticky on the comm thread:
                             * read a home page's atomically where it may race */
    uint8_t proto;          /* 0: not allocated; else index into coherence's table */
    _Atomic uint8_t remote; /* set by the comm thread: another node wrote it */
    _Atomic uint8_t copied; /* set by the comm thread: another node may hold a
                             * copy of the current version */
} page_meta;

/* Most windows (the globals need up to 3: the runtime's private sections
 * split the program's writable data). */
#define REGION_WINDOWS 4

typedef struct region_window {
    char *app;          /* application address of page `first` */
    uint32_t first, n;  /* pages [first, first+n) */
} region_window;

typedef struct tsr_region {
    char *app, *rt, *twin;
    size_t size;
    uint32_t npages;
    int memfd;
    page_meta *meta;
    uint32_t nwin;                     /* windows in use, consecutive by page */
    uint32_t win_first, win_pages;     /* the pages they cover together */
    region_window win[REGION_WINDOWS];
} tsr_region;

extern tsr_region region;

void region_init(void);
/* A per-page table of `elem`-byte entries, zeroed, reserved not committed
 * (protocols keep their page directories so). Exits naming `what` on failure. */
void *region_page_table(size_t elem, const char *what);

/* The window holding address `a`, or NULL. */
static inline const region_window *region_window_at(const char *a)
{
    for (uint32_t i = 0; i < region.nwin; i++)
        if (a >= region.win[i].app && a < region.win[i].app + ((size_t)region.win[i].n << PAGE_SHIFT))
            return &region.win[i];
    return NULL;
}
static inline int region_contains(const void *addr)
{
    return (uintptr_t)addr - (uintptr_t)region.app < region.size ||
           (region.nwin && region_window_at(addr));
}
static inline uint32_t page_of(const void *addr)
{
    uintptr_t off = (uintptr_t)addr - (uintptr_t)region.app;
    const region_window *w = off < region.size || !region.nwin ? NULL : region_window_at(addr);
    if (w)
        return w->first + (uint32_t)(((const char *)addr - w->app) >> PAGE_SHIFT);
    return (uint32_t)(off >> PAGE_SHIFT);
}
static inline char *page_app(uint32_t p)
{
    if (p - region.win_first < region.win_pages)
        for (uint32_t i = 0; i < region.nwin; i++)
            if (p - region.win[i].first < region.win[i].n)
                return region.win[i].app + ((size_t)(p - region.win[i].first) << PAGE_SHIFT);
    return region.app + ((size_t)p << PAGE_SHIFT);
}
static inline char *page_rt(uint32_t p) { return region.rt + ((size_t)p << PAGE_SHIFT); }
static inline char *page_twin(uint32_t p) { return region.twin + ((size_t)p << PAGE_SHIFT); }
/* How many of pages [p, p+n) lie one after another in the application
 * view from page_app(p): a run given to mprotect or userfaultfd must not
 * cross a window's edge. */
static inline uint32_t region_run(uint32_t p, uint32_t n)
{
    if (!region.win_pages || p + n <= region.win_first || p >= region.win_first + region.win_pages)
        return n;
    for (uint32_t i = 0; i < region.nwin; i++) {
        const region_window *w = &region.win[i];
        uint32_t edge = p < w->first ? w->first : w->first + w->n;
        if (p < w->first + w->n)
            return edge - p < n ? edge - p : n;
    }
    return n;
}

/* Shows pages [first, first+n) of the shared memory at `app` (page-aligned)
 * instead of at TSR_BASE, read-write, replacing whatever was mapped there;
 * windows are added in page order. Exits naming the cause on failure. */
void region_add_window(char *app, uint32_t first, uint32_t n);
/* Forgets every window (their mappings are the caller's again). */
void region_drop_windows(void);

/* Returns pages to the system: their contents become zero again. */
void region_discard(uint32_t first, uint32_t n);

#endif
