/*
 * tessera.c - the public API: start-up in layer order, allocation, and the
 * thin entry points that hand over to the layers.
 */
#include "tessera.h"

#include <stdlib.h>
#include <unistd.h>

#include "api/fork.h"
#include "api/globals.h"
#include "api/layout.h"
#include "api/malloc.h"
#include "boot/boot.h"
#include "boot/rendezvous.h"
#include "coherence/coherence.h"
#include "ga/ga.h"
#include "detect/detect.h"
#include "memory/alloc.h"
#include "memory/peers.h"
#include "memory/region.h"
#include "multicast/multicast.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "sync/stall.h"
#include "sync/sync.h"
#include "sync/tree.h"
#include "transport/clock.h"
#include "transport/core.h"
#include "transport/transport.h"
#include "util/aslr.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/fatal.h"
#include "util/guard.h"
#include "util/log.h"

static double t_start;
/* Between tsr_init and tsr_finalize, in the node's own process. */
static int running;
static pid_t node_pid;

/* A program that ends (exit, or a return from main) between tsr_init and
 * tsr_finalize stops the job: its node says so, with its status, and tsrun
 * repeats it. So does one that ends with a non-zero status after
 * tsr_finalize, which tsrun reports as a failure: the status is the
 * program's own choice, and saying so tells it from a runtime error. A
 * child the program forked is not the node. */
static void say_how_it_ended(int status, void *arg)
{
    (void)arg;
    if (getpid() != node_pid)
        return;
    if (running)
        log_last_words("the program ended with status %d (exit, or a return from main) before "
                       "calling tsr_finalize", status);
    else if (status)
        log_last_words("the program ended with status %d (exit, or a return from main) after "
                       "tsr_finalize, which had found nothing wrong", status);
}

/* What TSR_PROTO makes of the default protocol, TSR_PROTO_JOB: the job's
 * collective allocations that name it, and its tsr_malloc memory. */
static tsr_proto_t job_protocol(void)
{
    static const tsr_proto_t of[] = {[PROTO_HLRC] = TSR_PROTO_HLRC, [PROTO_LRC] = TSR_PROTO_LRC,
                                     [PROTO_SCOPE] = TSR_PROTO_SCOPE};
    return of[cfg.proto];
}

int tsr_init(int *argc, char ***argv)
{
    (void)argc;
    guard_start();
    t_start = now_s();
    node_pid = getpid();
    running = 1;
    on_exit(say_how_it_ended, NULL);
    fatal_signals_install();
    config_set_probe(rendezvous_detect);
    config_load();
    trace_init();
    if (!cfg.boot && cfg.nodes > 1) /* srun or mpirun: see aslr_restart */
        aslr_restart(argv ? *argv : NULL);
    region_init();
    detect_init();
    boot_start();
    am_init();
    mc_init();
    am_guard_range(region.app, region.size);
    am_limit_pages(region.npages);
    layout_init();
    coh_init();
    malloc_use_protocol(job_protocol());
    lock_init();
    barrier_init();
    flag_init();
    stall_init();
    ga_init();
    fork_init();
    globals_share();
    peers_share();
    transport_start();
    int parent, hi;
    tree_place(cfg.node, cfg.nodes, &parent, &hi);
    clock_measure(parent);
    mc_check();
    layout_check();
    coll_sig sig = coll_sig_of(COLL_INIT, 0, NULL);
    barrier_collective(&sig);
    transport_started();
    peers_map();
    return 0;
}

void tsr_finalize(void)
{
    guard_check("tsr_finalize");
    int32_t held;
    if (lock_held_list(&held, 1))
        log_die("tsr_finalize: called while holding lock %d (%d held in all); release every lock "
                "with tsr_unlock first: a node waiting for one would wait forever", (int)held,
                lock_held_count());
    ga_fence_all();
    fork_finalize();
    peers_report();
    int stats_lost = stats_report(!(cfg.stats && boot_send_stats()));
    if (transport_quiesce()) {
        coll_sig last = coll_sig_of(COLL_FINALIZE, 0, NULL);
        barrier_collective(&last);
    }
    coh_close();
    globals_unshare();
    transport_shutdown();
    boot_fin();
    guard_stop();
    running = 0;
    /* After the shutdown, so that the other nodes finish cleanly. */
    if (stats_lost)
        log_die("tsr_finalize: stopping with status 1: the statistics were not written");
}

int tsr_node(void)
{
    guard_check_any("tsr_node");
    return cfg.node;
}

int tsr_nodes(void)
{
    guard_check_any("tsr_nodes");
    return cfg.nodes;
}

int tsr_threads(void)
{
    guard_check_any("tsr_threads");
    return cfg.threads;
}

double tsr_wtime(void)
{
    guard_check_any("tsr_wtime");
    return now_s() - t_start;
}

void *tsr_alloc(size_t bytes)
{
    guard_check("tsr_alloc");
    tsr_attr attr = TSR_ATTR_DEFAULT;
    void *ptr = tsr_alloc_attr(bytes, &attr);
    /* After tsr_alloc_attr's own: the program's call site is the one kept. */
    trace_alloc(page_of(ptr), bytes, __builtin_return_address(0));
    return ptr;
}

/* Argument checks of tsr_alloc_attr: each message names the field. The
 * protocol and Munin's fields are checked where they are used (coh_map,
 * munin.c); block_pages may be any value (alloc_home). */
static void check_attr(const tsr_attr *a)
{
    if (!a)
        log_die("tsr_alloc_attr: attr is NULL (use TSR_ATTR_DEFAULT)");
    if (a->home < TSR_HOME_BLOCK || a->home > TSR_HOME_NODE)
        log_die("tsr_alloc_attr: attr->home %d is not TSR_HOME_BLOCK, TSR_HOME_CYCLIC or "
                "TSR_HOME_NODE", (int)a->home);
    if (a->home == TSR_HOME_NODE && (a->home_node < 0 || a->home_node >= cfg.nodes))
        log_die("tsr_alloc_attr: attr->home_node %d is not a node of this %d-node job",
                a->home_node, cfg.nodes);
    if (a->home == TSR_HOME_CYCLIC && (a->start_node < 0 || a->start_node >= cfg.nodes))
        log_die("tsr_alloc_attr: attr->start_node %d is not a node of this %d-node job",
                a->start_node, cfg.nodes);
}

/* A TSR_MEMORY, in GiB, that would have held an allocation of `bytes`: twice
 * the region plus the request, since tsr_malloc's arenas keep the top. */
static size_t roomier_gib(size_t bytes)
{
    size_t gib = ((region.size >> 30) + (bytes >> 30) + 1) * 2;
    return gib < (TSR_MEMORY_MAX >> 30) ? gib : (TSR_MEMORY_MAX >> 30);
}

/* The pages `bytes` needs (at least one). Rounding up by adding PAGE_SIZE - 1
 * first would wrap for sizes near SIZE_MAX and give a tiny allocation. */
static uint32_t pages_for(size_t bytes)
{
    size_t pages = bytes / PAGE_SIZE + (bytes % PAGE_SIZE != 0);
    if (pages > region.npages && bytes > TSR_MEMORY_MAX)
        log_die("tsr_alloc(%zu): the size is larger than the whole shared region (TSR_MEMORY=%zu "
                "MiB), which is at most 16T minus 4K", bytes, region.size >> 20);
    if (pages > region.npages)
        log_die("tsr_alloc(%zu): the size is larger than the whole shared region (TSR_MEMORY=%zu "
                "MiB); raise it, e.g. TSR_MEMORY=%zuG (or tsrun -m)", bytes, region.size >> 20,
                roomier_gib(bytes));
    return pages ? (uint32_t)pages : 1;
}

void *tsr_alloc_attr(size_t bytes, const tsr_attr *attr)
{
    guard_check("tsr_alloc_attr");
    check_attr(attr);
    uint32_t pages = pages_for(bytes);
    uint32_t first = alloc_pages(pages);
    if (first == UINT32_MAX)
        log_die("tsr_alloc(%zu): the shared region (TSR_MEMORY=%zu MiB) has no free run of %u "
                "pages; raise it, e.g. TSR_MEMORY=%zuG (or tsrun -m)", bytes, region.size >> 20,
                pages, roomier_gib(bytes));
    /* Collective allocations that name the default protocol get TSR_PROTO's
     * (and so does tsr_malloc's memory: malloc.c); one that names
     * TSR_PROTO_HLRC keeps it whatever TSR_PROTO says (mp/proto_named). */
    tsr_attr chosen = *attr;
    if (chosen.proto == TSR_PROTO_JOB)
        chosen.proto = job_protocol();
    coh_map(first, pages, &chosen);
    /* No node may touch the pages before every node has mapped them: a diff
     * or page request must find the page's home and protocol set up. */
    coll_sig sig = coll_sig_of(COLL_ALLOC, bytes, attr);
    barrier_collective(&sig);
    trace_alloc(first, bytes, __builtin_return_address(0));
    return page_app(first);
}

void tsr_free(void *ptr)
{
    guard_check("tsr_free");
    if (!ptr)
        return;
    if (!region_contains(ptr) || ((char *)ptr - region.app) % PAGE_SIZE)
        log_die("tsr_free(%p): not an address returned by tsr_alloc", ptr);
    /* Collective: once every node is here nobody can still need the pages. */
    coll_sig sig = coll_sig_of(COLL_FREE, (uintptr_t)ptr, NULL);
    barrier_collective(&sig);
    uint32_t first = page_of(ptr);
    uint32_t n = alloc_release(first);
    if (!n)
        log_die("tsr_free(%p): not an address returned by tsr_alloc", ptr);
    coh_unmap(first, n);
    detect_set_access(first, n, ACCESS_NONE);
    region_discard(first, n);
}
