/*
 * written.c - exact write tracking without faults, for the uffd backend:
 * asynchronous write protection (UFFD_FEATURE_WP_ASYNC) and PAGEMAP_SCAN.
 *
 * Tracked pages are registered with a second userfaultfd whose write
 * protection the kernel resolves by itself: the first write to a protected
 * page just clears the protection (about 0.7 us, no signal, no handler), and
 * a read leaves it. PAGEMAP_SCAN on /proc/self/pagemap then lists the pages
 * whose protection is gone, that is the pages written since the last scan,
 * and protects them again in the same call (about 1 ns per page). Asynchronous
 * protection applies to a whole userfaultfd context, which is why tracked
 * pages leave the fault-serving one (uffd.c), where a write to a read-only
 * page must stop and wait for a twin.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "detect/uffd.h"
#include "memory/region.h"
#include "util/log.h"

/* Kernel ABI (6.7+) that older installed headers (linux/fs.h) lack. */
#ifndef PAGEMAP_SCAN
struct page_region {
    __u64 start, end, categories;
};
struct pm_scan_arg {
    __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
    __u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN (1 << 1)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

static int async_fd = -1, pagemap_fd = -1;

/* Opened at the first tracking request; -1 for good if the kernel cannot. */
static int open_tracking(void)
{
    static int failed;
    char why[256];
    if (async_fd >= 0 || failed)
        return failed ? -1 : 0;
    async_fd = uffd_open(UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_HUGETLBFS_SHMEM |
                             UFFD_FEATURE_PAGEFAULT_FLAG_WP, why, sizeof why);
    pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (async_fd < 0 || pagemap_fd < 0) {
        log_debug("no exact write tracking: %s",
                  async_fd < 0 ? why : "cannot open /proc/self/pagemap");
        failed = 1;
        return -1;
    }
    return 0;
}

int uffd_track(uint32_t first, uint32_t n)
{
    if (open_tracking())
        return -1;
    uffd_release(first, n);
    if (uffd_register(async_fd, first, n, UFFDIO_REGISTER_MODE_WP)) {
        log_debug("no exact write tracking: asynchronous write protection of shared memory: %s",
                  strerror(errno));
        uffd_reclaim(first, n);
        return -1;
    }
    /* Protect even the entries not yet present, so that a read does not
     * map a page that the next scan would count as written. */
    uffd_write_protect(async_fd, first, n, UFFDIO_WRITEPROTECT_MODE_WP);
    return 0;
}

void uffd_untrack(uint32_t first, uint32_t n)
{
    struct uffdio_range r = uffd_range(first, n);
    if (ioctl(async_fd, UFFDIO_UNREGISTER, &r))
        log_die_status(1, "cannot stop tracking writes to %u page(s) at %p: %s", n,
                       (void *)page_app(first), strerror(errno));
    uffd_reclaim(first, n);
}

void uffd_written(uint32_t first, uint32_t n, void (*fn)(uint32_t page))
{
    struct page_region found[64];
    struct pm_scan_arg scan = {
        .size = sizeof scan,
        .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
        .start = (uintptr_t)page_app(first),
        .end = (uintptr_t)page_app(first + n - 1) + PAGE_SIZE, /* a window's last page */
        .vec = (uintptr_t)found,
        .vec_len = 64,
        .category_mask = PAGE_IS_WRITTEN,
        .return_mask = PAGE_IS_WRITTEN,
    };
    /* A full vector stops the walk early: go on from where it stopped. */
    do {
        int got = ioctl(pagemap_fd, PAGEMAP_SCAN, &scan);
        if (got < 0)
            log_die_status(1, "PAGEMAP_SCAN of %u page(s) at %p failed: %s", n,
                           (void *)page_app(first), strerror(errno));
        for (int i = 0; i < got; i++)
            for (uint64_t a = found[i].start; a < found[i].end; a += PAGE_SIZE)
                fn(page_of((void *)(uintptr_t)a));
        scan.start = scan.walk_end;
    } while (scan.start < scan.end);
}
