/*
 * range.c - consistency checks over a range of addresses (CAS-DSM,
 * cas-dsm-compiler-assisted.md, Section 3): what tsr_range_read and
 * tsr_range_write do, whether a compiler pass inserted them before a loop
 * nest or a programmer wrote them.
 *
 * A check makes every page of its range consistent for the access it names
 * before the program touches it, so those touches take no fault. It does
 * exactly what faults on those pages would have done, through the same
 * protocol (its `fault` hook page by page, or its optional `range` hook,
 * which may bring many pages in one exchange per home). Pages whose access
 * byte already allows the access cost one byte load each, and nothing else:
 * most checks of an iterative program find nothing to do.
 *
 * Correctness never depends on a check: a page it skips (outside the
 * region, not allocated here yet, invalidated again by a later acquire)
 * still faults as before.
 */
#include "coherence/coherence.h"

#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "stats/trace.h"

STATS_COUNTER(cas_checks, "range checks made (tsr_range_*): compiler-inserted or by hand");
STATS_COUNTER(cas_useful, "range checks that found pages needing protocol work");
STATS_COUNTER(cas_pages, "pages range checks made consistent: faults avoided");
STATS_COUNTER(faults_taken, "access faults that reached the protocols (not counting checks)");

void coh_range_init(void)
{
    stats_register(&cas_checks);
    stats_register(&cas_useful);
    stats_register(&cas_pages);
    stats_register(&faults_taken);
}

void coh_count_fault(void) { COUNTER_ADD(faults_taken, 1); }

/* The page's protocol, read without the protocol lock: a check runs on
 * any application thread while the comm thread may be adopting the page
 * (coh_set_proto). A page read as not adopted yet is left to its fault,
 * which adopts it. */
static uint8_t proto_of(uint32_t p)
{
    return __atomic_load_n(&region.meta[p].proto, __ATOMIC_RELAXED);
}

/* A page whose byte does not allow the access, and that a protocol keeps. */
static int needs_work(uint32_t p, int need)
{
    return detect_access_of(p) < need && proto_of(p);
}

/* Pages first + i * stride (i < n) all need work and share one protocol:
 * that protocol brings them, in few exchanges if it can. */
static void serve_run(uint32_t first, uint32_t n, uint32_t stride, int is_write)
{
    const tsr_protocol *proto = coh_protocols[proto_of(first)];
    COUNTER_ADD(cas_pages, n);
    coh_enter(); /* as a fault would: the node's other threads may fault on these */
    if (proto->range)
        proto->range(first, n, stride, is_write);
    else
        for (uint32_t i = 0; i < n; i++)
            proto->fault(first + i * stride, is_write);
    coh_leave();
}

/* Pages [first, first + n) of the application view's page numbers, every
 * stride-th one: serves the maximal runs of pages that need work. */
static int serve_pages(uint32_t first, uint32_t n, uint32_t stride, int need, int is_write)
{
    int useful = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t p = first + i * stride;
        if (!needs_work(p, need)) {
            i++;
            continue;
        }
        uint32_t j = i + 1;
        while (j < n && needs_work(first + j * stride, need) &&
               proto_of(first + j * stride) == proto_of(p))
            j++;
        serve_run(p, j - i, stride, is_write);
        useful = 1;
        i = j;
    }
    return useful;
}

/* The pages of bytes [a, a + len) that lie in the application view's span
 * [base, base + n pages), whose first page is page number `first`. */
static int check_span(const char *a, size_t len, const char *base, uint32_t first, uint32_t n,
                      int need, int is_write)
{
    uintptr_t lo = (uintptr_t)a, hi = lo + len, b = (uintptr_t)base;
    uintptr_t top = b + ((uintptr_t)n << PAGE_SHIFT);
    if (hi <= b || lo >= top)
        return 0;
    lo = lo < b ? b : lo;
    hi = hi > top ? top : hi;
    uint32_t p = (uint32_t)((lo - b) >> PAGE_SHIFT), q = (uint32_t)((hi - 1 - b) >> PAGE_SHIFT);
    return serve_pages(first + p, q - p + 1, 1, need, is_write);
}

/* The bytes' pages in the region and in each window (the shared globals,
 * whose pages have numbers of the region but addresses of their own). */
static int check_bytes(const char *a, size_t len, int need, int is_write)
{
    int useful = check_span(a, len, region.app, 0, region.npages, need, is_write);
    for (uint32_t i = 0; i < region.nwin; i++)
        useful |= check_span(a, len, region.win[i].app, region.win[i].first, region.win[i].n,
                             need, is_write);
    return useful;
}

/* Strides of a page or more, in the region proper (no window): one page
 * per block when blocks fit in a page, which protocols can fetch as one
 * strided run. */
static int check_strided(const char *a, size_t len, size_t step, size_t count, int need,
                         int is_write)
{
    uintptr_t off = (uintptr_t)a - (uintptr_t)region.app;
    size_t last = off + (count - 1) * step + len;
    int one_page = step % PAGE_SIZE == 0 && (off & (PAGE_SIZE - 1)) + len <= PAGE_SIZE;
    if (region.nwin || !one_page || off >= region.size || last > region.size) {
        int useful = 0;
        for (size_t i = 0; i < count; i++)
            useful |= check_bytes(a + i * step, len, need, is_write);
        return useful;
    }
    return serve_pages((uint32_t)(off >> PAGE_SHIFT), (uint32_t)count,
                       (uint32_t)(step >> PAGE_SHIFT), need, is_write);
}

int coh_range(const void *addr, size_t len, size_t step, size_t count, int is_write)
{
    COUNTER_ADD(cas_checks, 1);
    if (!len || !count)
        return 0;
    int need = is_write ? ACCESS_WRITE : ACCESS_READ;
    uint64_t traced = trace_begin();
    const char *a = addr;
    int useful = step < PAGE_SIZE || count == 1
                     ? check_bytes(a, (count - 1) * step + len, need, is_write)
                     : check_strided(a, len, step, count, need, is_write);
    if (useful)
        COUNTER_ADD(cas_useful, 1);
    TRACE_SPAN(traced, EV_RANGE, 0, region_contains(a) ? page_of(a) : 0, (count - 1) * step + len);
    return useful;
}
