/* The tsr_malloc arena allocator (memory/arena.c) on a made-up region of
 * 256 pages, node 1 of 2, with 128 pages of arenas: where the arenas lie,
 * first fit, the merging of freed runs, small objects packed into pages and
 * a page given back when its last object goes, frees that must be refused,
 * and allocations of pages that no protocol keeps yet (a Munin object's).
 * Nothing is mapped: the allocator only computes addresses. */
#include <stdio.h>

#include "memory/arena.h"
#include "memory/region.h"
#include "util/config.h"

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

static page_meta meta[256];

static char *alloc(size_t bytes)
{
    uint32_t first, n;
    return arena_alloc(bytes, 0, &first, &n);
}

static int release(void *ptr)
{
    uint32_t first, n;
    return arena_free(ptr, &first, &n);
}

static char *page(uint32_t p) { return page_app(p); }

static void layout(void)
{
    uint32_t lo, hi;
    CHECK(arena_start() == 128, "arenas start at page %u, want 128", arena_start());
    arena_bounds(1, &lo, &hi);
    CHECK(lo == 192 && hi == 256, "node 1's arena is [%u, %u), want [192, 256)", lo, hi);
    CHECK(arena_owner(127) == -1 && arena_owner(128) == 0 && arena_owner(191) == 0 &&
              arena_owner(192) == 1 && arena_owner(255) == 1,
          "arena_owner at the boundaries");
}

static void runs(void)
{
    char *a = alloc(3 * PAGE_SIZE), *b = alloc(2 * PAGE_SIZE);
    CHECK(a == page(192) && b == page(195), "first runs at %p, %p", (void *)a, (void *)b);
    CHECK(release(a) == 0, "free a");
    CHECK(release(a) == -1, "a second free of a run is refused");
    char *c = alloc(2 * PAGE_SIZE), *d = alloc(2 * PAGE_SIZE);
    CHECK(c == a, "first fit reuses the freed run");
    CHECK(d == page(197), "a run that does not fit the 1-page hole goes after b");
    CHECK(release(c) == 0 && release(b) == 0, "free c and b");
    char *e = alloc(5 * PAGE_SIZE);
    CHECK(e == a, "freed neighbours merge: 5 pages at the start, got %p", (void *)e);
    CHECK(release(e + PAGE_SIZE) == -1, "a page inside a run is not an allocation");
    CHECK(alloc(64 * PAGE_SIZE) == NULL, "more than the arena holds");
    CHECK(release(e) == 0 && release(d) == 0, "free e and d");
}

static void small(void)
{
    char *s[300];
    for (int i = 0; i < 300; i++)
        s[i] = alloc(24);
    CHECK(s[0] == page(192) && s[1] == s[0] + 32, "small objects 16-byte aligned and packed");
    CHECK(s[127] == s[0] + 127 * 32 && s[128] == page(193), "128 of 32 bytes fill a page");
    CHECK(release(s[5] + 8) == -1, "a misaligned pointer is refused");
    for (int i = 0; i < 128; i++)
        CHECK(release(s[i]) == 0, "free small %d", i);
    CHECK(release(s[0]) == -1, "a page with no live object refuses frees");
    char *big = alloc(PAGE_SIZE + 1);
    CHECK(big == page(195), "2 pages after the small pages, got %p", (void *)big);
    char *one = alloc(PAGE_SIZE);
    CHECK(one == page(192), "an emptied small page is a free page again, got %p", (void *)one);
    CHECK(release((char *)0x1000) == -1, "an address outside the region is refused");
}

/* After small(), pages 192-196 are in use. Pages 197 and 198 are kept by
 * a protocol (freed memory of the home-based one): an object that needs
 * pages of its own goes past them, and the hole stays for ordinary runs. */
static void fresh(void)
{
    meta[197].proto = meta[198].proto = 1;
    uint32_t first, n;
    char *o = arena_alloc(100, 1, &first, &n);
    CHECK(o == page(199) && first == 199 && n == 1, "a fresh page after the kept ones, got %p",
          (void *)o);
    char *h = alloc(2 * PAGE_SIZE);
    CHECK(h == page(197), "the kept pages still serve ordinary runs, got %p", (void *)h);
    CHECK(arena_free(o, &first, &n) == 0 && first == 199 && n == 1, "a freed object's run");
    CHECK(arena_free(h, &first, &n) == 0 && first == 197 && n == 2, "a freed run's length");
    char *s = alloc(24);
    CHECK(arena_free(s, &first, &n) == 0 && n == 0, "a small object gives back no run");
}

int main(void)
{
    cfg.nodes = 2;
    cfg.node = 1;
    cfg.malloc_memory = 128 * PAGE_SIZE;
    region.npages = 256;
    region.size = 256 * PAGE_SIZE;
    region.app = (char *)0x100000000000;
    region.meta = meta;
    layout();
    runs();
    small();
    fresh();
    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
