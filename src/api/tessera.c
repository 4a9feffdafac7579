/*
 * tessera.c - the public API: start-up in layer order, allocation, and the
 * thin entry points that hand over to the layers.
 */
#include "tessera.h"

#include <stdlib.h>

#include "boot/boot.h"
#include "coherence/coherence.h"
#include "detect/detect.h"
#include "memory/alloc.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "sync/sync.h"
#include "transport/backend.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

static int initialized;
static double t_start;

int tsr_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (initialized)
        log_die("tsr_init called twice");
    t_start = now_s();
    config_load();
    region_init();
    detect_init();
    boot_start();
    am_init();
    am_guard_range(region.app, region.size);
    coh_init();
    lock_init();
    barrier_init();
    tcp_backend.start();
    initialized = 1;
    tsr_barrier();
    tsr_stats_reset();
    return 0;
}

void tsr_finalize(void)
{
    if (!initialized)
        log_die("tsr_finalize called without tsr_init");
    tsr_barrier();
    stats_report();
    tcp_backend.shutdown();
    boot_fin();
    initialized = 0;
}

int tsr_node(void) { return cfg.node; }
int tsr_nodes(void) { return cfg.nodes; }
double tsr_wtime(void) { return now_s() - t_start; }

void *tsr_alloc(size_t bytes)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    return tsr_alloc_attr(bytes, &attr);
}

static void check_attr(const tsr_attr *a)
{
    if (a->home < TSR_HOME_BLOCK || a->home > TSR_HOME_NODE)
        log_die("tsr_alloc_attr: unknown home placement %d", (int)a->home);
    if (a->home == TSR_HOME_NODE && (a->home_node < 0 || a->home_node >= cfg.nodes))
        log_die("tsr_alloc_attr: home_node %d is not a node of this %d-node job", a->home_node,
                cfg.nodes);
}

void *tsr_alloc_attr(size_t bytes, const tsr_attr *attr)
{
    if (!initialized)
        log_die("tsr_alloc called before tsr_init");
    check_attr(attr);
    if (bytes == 0)
        bytes = 1;
    size_t pages = (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT;
    uint32_t first = pages <= region.npages ? alloc_pages((uint32_t)pages) : UINT32_MAX;
    if (first == UINT32_MAX)
        log_die("tsr_alloc(%zu): the shared region (TSR_MEMORY=%zu MiB) has no free run of %zu "
                "pages; raise TSR_MEMORY", bytes, region.size >> 20, pages);
    coh_map(first, (uint32_t)pages, attr);
    /* No node may touch the pages before every node has mapped them: a diff
     * or page request must find the page's home and protocol set up. */
    tsr_barrier();
    return page_app(first);
}

void tsr_free(void *ptr)
{
    if (!ptr)
        return;
    if (!region_contains(ptr) || ((char *)ptr - region.app) % PAGE_SIZE)
        log_die("tsr_free(%p): not an address returned by tsr_alloc", ptr);
    /* Collective: once every node is here nobody can still need the pages. */
    tsr_barrier();
    uint32_t first = page_of(ptr);
    uint32_t n = alloc_release(first);
    if (!n)
        log_die("tsr_free(%p): not an address returned by tsr_alloc", ptr);
    coh_unmap(first, n);
    detect_set_access(first, n, ACCESS_NONE);
    region_discard(first, n);
}
