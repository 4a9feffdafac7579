/*
 * malloc.c - tsr_malloc and tsr_free_local: shared memory that one node
 * allocates alone, from its own arena (memory/arena.h). Other nodes learn
 * the pages at their first fault on them, or at the first write notice that
 * names them (coherence/adopt.c).
 *
 * Any thread may allocate and free: the arena and the pages' protocol
 * entries change under the node's protocol lock (coh_enter), which the
 * node's other threads' faults take too, so a fault never meets a page
 * half mapped or half freed, and two threads never take the same pages.
 */
#include "api/malloc.h"

#include "coherence/coherence.h"
#include "coherence/protocol.h"
#include "memory/arena.h"
#include "memory/region.h"
#include "stats/trace.h"
#include "util/config.h"
#include "util/guard.h"
#include "util/log.h"

static tsr_proto_t local_proto = TSR_PROTO_HLRC;

void malloc_use_protocol(tsr_proto_t proto)
{
    coh_prepare_local(proto);
    local_proto = proto;
}

/* Gives the pages that were never allocated to `proto`, homed here. Pages
 * freed before keep their home and protocol: other nodes may hold copies
 * of them, and those stay coherent as the page is reused. */
static void map_new_pages(uint32_t first, uint32_t n, tsr_proto_t proto)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = cfg.node;
    attr.proto = proto;
    for (uint32_t i = 0; i < n; i++) {
        if (region.meta[first + i].proto)
            continue;
        uint32_t j = i;
        while (j < n && !region.meta[first + j].proto)
            j++;
        coh_map(first + i, j - i, &attr);
        i = j;
    }
}

/* Called under the protocol lock. */
static void *take_pages(const char *fn, size_t bytes, int whole_fresh, uint32_t *first,
                        uint32_t *n)
{
    /* Every node runs a replicated section: each would get memory of its
     * own arena at its own address, and the copies of the section's
     * pointers would differ. A collective allocation is the same on all. */
    if (coh_replicating())
        log_die("%s(%zu): called in a replicated section, where every node runs it; use "
                "tsr_alloc there (collective: every node gets the same memory)", fn, bytes);
    void *ptr = arena_alloc(bytes, whole_fresh, first, n);
    if (!ptr)
        log_die("%s(%zu): node %d's arena (TSR_MALLOC_MEMORY=%zu MiB split among %d nodes) "
                "has no room for it; raise TSR_MALLOC_MEMORY", fn, bytes, cfg.node,
                cfg.malloc_memory >> 20, cfg.nodes);
    return ptr;
}

static void *alloc_homed(const char *fn, size_t bytes, tsr_proto_t proto, void *caller)
{
    guard_check_any(fn);
    uint32_t first, n;
    coh_enter();
    void *ptr = take_pages(fn, bytes, 0, &first, &n);
    map_new_pages(first, n, proto);
    trace_alloc(first, bytes, caller);
    coh_leave();
    return ptr;
}

void *tsr_malloc(size_t bytes)
{
    return alloc_homed("tsr_malloc", bytes, local_proto, __builtin_return_address(0));
}

/* A Munin object: pages of its own that no protocol keeps yet, managed
 * here; every other node learns its annotation when it adopts it. Munin
 * serves the tsr_init thread only. */
static void *munin_object_alloc(size_t bytes, const tsr_attr *attr)
{
    guard_check("tsr_malloc_attr(TSR_PROTO_MUNIN)");
    uint32_t first, n;
    coh_enter();
    void *ptr = take_pages("tsr_malloc_attr", bytes, 1, &first, &n);
    tsr_attr a = *attr;
    a.home = TSR_HOME_NODE;
    a.home_node = cfg.node;
    coh_map(first, n, &a);
    coh_leave();
    return ptr;
}

void *tsr_malloc_attr(size_t bytes, const tsr_attr *attr)
{
    if (!attr)
        log_die("tsr_malloc_attr(%zu, NULL): no attributes", bytes);
    tsr_proto_t proto = attr->proto == TSR_PROTO_JOB ? local_proto : attr->proto;
    switch (proto) {
    case TSR_PROTO_MUNIN:
        return munin_object_alloc(bytes, attr);
    case TSR_PROTO_HLRC:
    case TSR_PROTO_SCOPE:
        break;
    case TSR_PROTO_LRC:
        if (local_proto != TSR_PROTO_LRC)
            log_die("tsr_malloc_attr(%zu): TreadMarks' protocol (TSR_PROTO_LRC) keeps this "
                    "node's own allocations only when the whole job chose it (TSR_PROTO=lrc, "
                    "or Tmk_startup): its locks and barriers must carry its timestamps on "
                    "every node", bytes);
        break;
    default:
        log_die("tsr_malloc_attr(%zu): unknown protocol %d", bytes, (int)attr->proto);
    }
    return alloc_homed("tsr_malloc_attr", bytes, proto, __builtin_return_address(0));
}

/* A Munin object's free waits for every node, and Munin serves the
 * tsr_init thread only. */
static void refuse_one_thread(void *ptr)
{
    if (guard_is_app_thread() || !region_contains(ptr))
        return;
    const tsr_protocol *p = coh_protocol_of(page_of(ptr));
    if (p && p->one_thread)
        log_die("tsr_free_local(%p): called from a second thread on memory of protocol %s, "
                "which serves only the thread that called tsr_init (docs/API.md, \"Threads\")",
                ptr, p->name);
}

void tsr_free_local(void *ptr)
{
    guard_check_any("tsr_free_local");
    if (!ptr)
        return;
    uint32_t first, n;
    coh_enter();
    refuse_one_thread(ptr);
    int bad = arena_free(ptr, &first, &n);
    if (!bad && n)
        coh_free_local(first, n);
    coh_leave();
    if (!bad)
        return;
    int owner = region_contains(ptr) ? arena_owner(page_of(ptr)) : -1;
    if (owner >= 0 && owner != cfg.node)
        log_die("tsr_free_local(%p): node %d allocated it, and only that node may free it", ptr,
                owner);
    log_die("tsr_free_local(%p): not an address that tsr_malloc returned on this node, or "
            "freed already", ptr);
}
