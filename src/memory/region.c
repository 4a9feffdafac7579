#include "memory/region.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "boot/iface.h"
#include "memory/peers.h"
#include "util/config.h"
#include "util/io.h"
#include "util/log.h"

tsr_region region;

_Static_assert(TSR_MEMORY_MAX == (size_t)UINT32_MAX * PAGE_SIZE,
               "TSR_MEMORY_MAX must be the most pages a 32-bit page number counts");

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Stops the node over a reservation of `size` bytes the kernel refused
 * with err, naming what refused it where that can be known: a finite
 * address-space limit (ulimit -v), with its value, or strict overcommit. */
static void die_unreserved(size_t size, const char *what, int err)
{
    struct rlimit as;
    unsigned long long mode = 0;
    char why[320];
    if (err == ENOMEM && !getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY)
        snprintf(why, sizeof why, "this process's address-space limit (ulimit -v) is %llu MiB, "
                 "and the region takes three views of TSR_MEMORY: lower TSR_MEMORY or tsrun -m "
                 "to at most a quarter of the limit (%llu MiB), or raise the limit",
                 (unsigned long long)(as.rlim_cur >> 20), (unsigned long long)(as.rlim_cur >> 22));
    else if (err == ENOMEM && !io_read_number("/proc/sys/vm/overcommit_memory", &mode) &&
             mode == 2)
        snprintf(why, sizeof why, "vm.overcommit_memory is 2, which counts reservations against "
                 "the commit limit: lower TSR_MEMORY or tsrun -m");
    else
        snprintf(why, sizeof why, "lower TSR_MEMORY or tsrun -m");
    log_die("cannot reserve %zu MiB of address space for %s on host %s (TSR_MEMORY=%zu MiB): "
            "%s; %s", size >> 20, what, iface_host(), cfg.memory >> 20, strerror(err), why);
}

static void *reserve(size_t size, int prot, int flags, int fd, const char *what)
{
    void *p = mmap(NULL, size, prot, flags | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED)
        die_unreserved(size, what, errno);
    return p;
}

void region_init(void)
{
    region.size = (cfg.memory + PAGE_SIZE - 1) & ~(size_t)(PAGE_SIZE - 1);
    region.npages = (uint32_t)(region.size >> PAGE_SHIFT);
    region.memfd = memfd_create("tessera-shared", MFD_CLOEXEC);
    if (region.memfd < 0 || ftruncate(region.memfd, (off_t)region.size))
        log_die("cannot create the shared memory file of %zu MiB: %m", region.size >> 20);

    /* Same address everywhere: NOREPLACE fails rather than clobbering a
     * mapping the program already has there. */
    void *want = (void *)cfg.base;
    void *app = mmap(want, region.size, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
                     region.memfd, 0);
    if (app == MAP_FAILED && errno == ENOMEM)
        die_unreserved(region.size, "the application view", ENOMEM);
    if (app == MAP_FAILED || app != want) {
        int err = app == MAP_FAILED ? errno : EEXIST;
        if (app != MAP_FAILED)
            munmap(app, region.size);
        log_die("cannot map the shared region at %p (%zu MiB) on host %s: %s; set TSR_BASE to "
                "a free address or lower TSR_MEMORY", want, region.size >> 20, iface_host(),
                strerror(err));
    }
    region.app = app;
    region.rt = reserve(region.size, PROT_READ | PROT_WRITE, MAP_SHARED, region.memfd,
                        "the runtime view");
    region.twin = reserve(region.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                          "twins");
    /* With direct copies the page table is a file this host's other nodes
     * map too: they read the versions of the pages they copy. */
    region.meta = cfg.fetch_direct && cfg.nodes > 1
                      ? peers_meta_init()
                      : region_page_table(sizeof(page_meta), "page metadata");
}

void region_add_window(char *app, uint32_t first, uint32_t n)
{
    if (region.nwin == REGION_WINDOWS)
        log_die("more than %d windows of the shared region", REGION_WINDOWS);
    size_t len = (size_t)n << PAGE_SHIFT;
    if (mmap(app, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, region.memfd,
             (off_t)first << PAGE_SHIFT) == MAP_FAILED)
        log_die("cannot map %u shared page(s) at %p: %m", n, (void *)app);
    if (!region.nwin)
        region.win_first = first;
    region.win[region.nwin++] = (region_window){app, first, n};
    region.win_pages = first + n - region.win_first;
}

void region_drop_windows(void)
{
    region.nwin = 0;
    region.win_first = region.win_pages = 0;
}

void *region_page_table(size_t elem, const char *what)
{
    return reserve((size_t)region.npages * elem, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, what);
}

void region_discard(uint32_t first, uint32_t n)
{
    size_t off = (size_t)first << PAGE_SHIFT, len = (size_t)n << PAGE_SHIFT;
    if (fallocate(region.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
        memset(region.rt + off, 0, len);
    madvise(region.twin + off, len, MADV_DONTNEED);
    memset(&region.meta[first], 0, (size_t)n * sizeof(page_meta));
}
