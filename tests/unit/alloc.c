/* Allocation (memory/alloc.c): first-fit placement reuses the first hole
 * that fits and refuses what does not fit, and alloc_home places each page
 * of an allocation as its tsr_home_t says: all at one node, round robin by
 * blocks, or in contiguous runs that differ by at most one page. */
#include "check.h"
#include "memory/alloc.h"
#include "memory/region.h"
#include "util/config.h"

static void first_fit(void)
{
    region.npages = 100;
    cfg.nodes = 1; /* with no tsr_malloc arenas (TSR_MALLOC_MEMORY 0) */
    cfg.malloc_memory = 0;
    CHECK(alloc_pages(10) == 0, "first allocation not at page 0");
    CHECK(alloc_pages(20) == 10, "second allocation not after the first");
    CHECK(alloc_pages(5) == 30, "third allocation not after the second");
    CHECK(alloc_release(10) == 20, "release did not return the length 20");
    CHECK(alloc_release(10) == 0, "page 10 released twice");
    CHECK(alloc_release(7) == 0, "released page 7, where no allocation starts");
    CHECK(alloc_pages(15) == 10, "first hole (pages 10-29) not reused");
    CHECK(alloc_pages(10) == 35, "10 pages placed in the 5-page hole");
    CHECK(alloc_pages(5) == 25, "exactly fitting hole (pages 25-29) not used");
    CHECK(alloc_pages(56) == UINT32_MAX, "56 pages fit in the 55 left");
    CHECK(alloc_pages(55) == 45, "the last 55 pages refused");
    CHECK(alloc_pages(1) == UINT32_MAX, "allocated past the region's end");
}

static void fixed_node(void)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.home = TSR_HOME_NODE;
    a.home_node = 2;
    cfg.nodes = 4;
    for (uint32_t i = 0; i < 10; i++)
        CHECK(alloc_home(&a, i, 10) == 2, "TSR_HOME_NODE: page %u at %d, want 2", i, alloc_home(&a, i, 10));
}

static void cyclic(void)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.home = TSR_HOME_CYCLIC;
    cfg.nodes = 3;
    for (uint32_t i = 0; i < 12; i++)
        CHECK(alloc_home(&a, i, 12) == (int)(i % 3), "cyclic by 1: page %u at %d", i,
              alloc_home(&a, i, 12));
    a.block_pages = 2;
    static const int want[] = {0, 0, 1, 1, 2, 2, 0, 0, 1};
    for (uint32_t i = 0; i < 9; i++)
        CHECK(alloc_home(&a, i, 9) == want[i], "cyclic by 2: page %u at %d, want %d", i,
              alloc_home(&a, i, 9), want[i]);
}

/* TSR_HOME_BLOCK, for every size up to 40 pages on 1-5 nodes: homes rise
 * with the page, each node's run is n/nodes or one more, and the longer
 * runs come first. */
static void block(void)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    for (int nodes = 1; nodes <= 5; nodes++) {
        cfg.nodes = nodes;
        for (uint32_t n = 1; n <= 40; n++) {
            uint32_t run[5] = {0};
            int prev = 0, ok = 1;
            for (uint32_t i = 0; i < n; i++) {
                int h = alloc_home(&a, i, n);
                ok &= h >= prev && h < nodes;
                prev = h;
                if (h >= 0 && h < nodes)
                    run[h]++;
            }
            for (int k = 0; k < nodes; k++)
                ok &= run[k] == n / (uint32_t)nodes + (k < (int)(n % (uint32_t)nodes));
            CHECK(ok, "block placement of %u pages on %d nodes: runs %u %u %u %u %u", n, nodes,
                  run[0], run[1], run[2], run[3], run[4]);
        }
    }
    cfg.nodes = 4;
    static const int want[] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
    for (uint32_t i = 0; i < 10; i++)
        CHECK(alloc_home(&a, i, 10) == want[i], "10 pages on 4 nodes: page %u at %d, want %d", i,
              alloc_home(&a, i, 10), want[i]);
}

int main(void)
{
    first_fit();
    fixed_node();
    cyclic();
    block();
    return check_done("alloc");
}
