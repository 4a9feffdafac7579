/*
 * ga.c - the global address API (tessera_ga.h): collective allocation of
 * segments, argument checks, the owner's own accesses, completion signals,
 * bulk transfers and the draining barrier. Remote accesses go to the
 * allocation's engine.
 */
#include "ga/ga.h"

#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sync/sync.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/guard.h"
#include "util/log.h"

/* Allocations alive at once (msg.h's MSG_GA_SEGS), by id. An allocation's
 * handle is its slot, never freed, so a handle kept after tsr_ga_free is
 * still safe to check (it names a dead slot, or a later allocation). */
static tsr_ga slots[MSG_GA_SEGS];
static tsr_ga *table[MSG_GA_SEGS];
/* How many are alive: every lock and barrier fences them all (ga_init),
 * and a program without any, nearly every one, then skips the table's
 * walk (8% of BARNES' time at one node, two walks per lock). */
static _Atomic int live;

#define GA_COUNTER(var, meaning) stats_counter var = {.name = #var, .text = meaning}
GA_COUNTER(ga_read_hits, "Themis: synchronous reads served by OrderCache");
GA_COUNTER(ga_read_misses, "Themis: synchronous remote reads sent");
GA_COUNTER(ga_async_read_hits, "Themis: asynchronous reads served by OrderCache");
GA_COUNTER(ga_async_read_misses, "Themis: asynchronous remote reads sent");
GA_COUNTER(ga_write_hits, "Themis: writes to a line OrderCache held");
GA_COUNTER(ga_write_misses, "Themis: remote writes to a line not held (or not cached)");
GA_COUNTER(ga_write_backs, "Themis: lines (or words) written to their owner");
GA_COUNTER(ga_line_stalls, "Themis: waits for a line's outstanding write or read");
GA_COUNTER(ga_fills_dropped, "Themis: late asynchronous read results not cached (line dirty)");
GA_COUNTER(ga_requests, "Themis: read and write requests sent");
GA_COUNTER(ga_out_of_order, "Themis: Sequencer requests that arrived before their turn");
GA_COUNTER(ga_queue_peak, "Themis: most requests one Sequencer dispatch queue held");

tsr_ga *ga_lookup(uint64_t id) { return id < MSG_GA_SEGS ? table[id] : NULL; }

/* ---- completion events --------------------------------------------------- */

static _Atomic uint32_t events;
static _Atomic int sleeping;

void ga_event_post(void)
{
    atomic_fetch_add(&events, 1);
    if (atomic_load(&sleeping))
        syscall(SYS_futex, &events, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Spins for TSR_SPIN_US like a reply wait (waiter_wait), then sleeps until
 * the next completion. The event count is read before the condition, so a
 * completion between the two wakes the futex wait at once. */
void ga_wait_for(int (*ready)(void *arg), void *arg)
{
    if (cfg.progress != PROGRESS_BLOCK)
        am_expect_reply(); /* the comm thread polls while this one spins */
    double until = now_s() + cfg.spin_us * 1e-6;
    for (unsigned i = 1;; i++) {
        uint32_t seen = atomic_load(&events);
        if (ready(arg))
            return;
        if (cfg.progress == PROGRESS_SPIN || (cfg.progress == PROGRESS_HYBRID && now_s() < until)) {
            if (i % WAIT_YIELD_FOR_COMM == 0) /* the comm thread completes it */
                sched_yield();
            else
                cpu_relax();
            continue;
        }
        atomic_store(&sleeping, 1);
        syscall(SYS_futex, &events, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
        atomic_store(&sleeping, 0);
    }
}

/* ---- values -------------------------------------------------------------- */

uint64_t ga_load(const void *p, unsigned width)
{
    switch (width) {
    case 1: return __atomic_load_n((const uint8_t *)p, __ATOMIC_RELAXED);
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

void ga_store(void *p, unsigned width, uint64_t value)
{
    uint8_t v8 = (uint8_t)value;
    uint16_t v16 = (uint16_t)value;
    uint32_t v32 = (uint32_t)value;
    memcpy(p, width == 1 ? (void *)&v8 : width == 2 ? (void *)&v16 : width == 4 ? (void *)&v32
                                                                                : (void *)&value,
           width);
}

/* A segment is read and written by its owner's thread and by the
 * communication thread serving other nodes: aligned atomic accesses, so
 * that neither ever sees the other's value half written. */
uint64_t ga_atomic_load(const void *p, unsigned width)
{
    switch (width) {
    case 1: return __atomic_load_n((const uint8_t *)p, __ATOMIC_ACQUIRE);
    case 2: return __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
    case 4: return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

void ga_atomic_store(void *p, unsigned width, uint64_t v)
{
    switch (width) {
    case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, __ATOMIC_RELEASE); break;
    case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELEASE); break;
    case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, __ATOMIC_RELEASE); break;
    default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
    }
}

void ga_deliver(ga_op *op, uint64_t value)
{
    ga_store(op->result, op->width, value);
    __atomic_fetch_sub(&op->signal->pending, 1, __ATOMIC_RELEASE);
}

/* ---- arguments ----------------------------------------------------------- */

static tsr_ga *checked(const char *fn, tsr_ga *ga, int node, size_t off, size_t bytes,
                       size_t align)
{
    guard_check(fn);
    if (ga < slots || ga >= slots + MSG_GA_SEGS || table[ga - slots] != ga)
        log_die("%s: %p is not a live global allocation", fn, (void *)ga);
    if (node < 0 || node >= cfg.nodes)
        log_die("%s: node %d is not a node of this %d-node job", fn, node, cfg.nodes);
    if (off > ga->size || bytes > ga->size - off)
        log_die("%s: %zu bytes at offset %zu pass the end of the %zu-byte segment", fn, bytes,
                off, ga->size);
    if (off % align)
        log_die("%s: offset %zu is not a multiple of the access size, %zu", fn, off, align);
    return ga;
}

static uint64_t ga_read(const char *fn, tsr_ga *ga, int node, size_t off, unsigned width)
{
    checked(fn, ga, node, off, width, width);
    if (node == cfg.node)
        return ga_atomic_load(ga->base + off, width);
    return ga->engine->read(ga, node, off, width);
}

static void ga_write(const char *fn, tsr_ga *ga, int node, size_t off, unsigned width,
                     uint64_t v, int sync)
{
    checked(fn, ga, node, off, width, width);
    if (node == cfg.node)
        ga_atomic_store(ga->base + off, width, v);
    else
        ga->engine->write(ga, node, off, width, v, sync);
}

static void ga_read_async(const char *fn, tsr_ga *ga, int node, size_t off, unsigned width,
                          void *result, tsr_ga_signal *signal)
{
    checked(fn, ga, node, off, width, width);
    if (!result || !signal)
        log_die("%s: result and signal must not be NULL", fn);
    __atomic_fetch_add(&signal->pending, 1, __ATOMIC_RELAXED);
    if (node == cfg.node) {
        ga_op op = {.result = result, .signal = signal, .width = width};
        ga_deliver(&op, ga_atomic_load(ga->base + off, width));
    } else {
        ga->engine->read_async(ga, node, off, width, result, signal);
    }
}

/* The sixteen sized entry points, one definition each through these. */
#define GA_SIZED(bits)                                                                       \
    uint##bits##_t tsr_ga_read##bits(tsr_ga *ga, int node, size_t offset)                    \
    {                                                                                        \
        return (uint##bits##_t)ga_read("tsr_ga_read" #bits, ga, node, offset, bits / 8);     \
    }                                                                                        \
    void tsr_ga_write##bits(tsr_ga *ga, int node, size_t offset, uint##bits##_t value)       \
    {                                                                                        \
        ga_write("tsr_ga_write" #bits, ga, node, offset, bits / 8, value, 1);                \
    }                                                                                        \
    void tsr_ga_write##bits##_async(tsr_ga *ga, int node, size_t offset,                     \
                                    uint##bits##_t value)                                    \
    {                                                                                        \
        ga_write("tsr_ga_write" #bits "_async", ga, node, offset, bits / 8, value, 0);       \
    }                                                                                        \
    void tsr_ga_read##bits##_async(tsr_ga *ga, int node, size_t offset,                      \
                                   uint##bits##_t *result, tsr_ga_signal *signal)            \
    {                                                                                        \
        ga_read_async("tsr_ga_read" #bits "_async", ga, node, offset, bits / 8, result,      \
                      signal);                                                               \
    }
GA_SIZED(8)
GA_SIZED(16)
GA_SIZED(32)
GA_SIZED(64)

/* ---- signals ------------------------------------------------------------- */

void tsr_ga_signal_init(tsr_ga_signal *signal)
{
    guard_check("tsr_ga_signal_init");
    if (!signal)
        log_die("tsr_ga_signal_init: signal is NULL");
    __atomic_store_n(&signal->pending, 0, __ATOMIC_RELAXED);
}

static int signal_clear(void *arg)
{
    return __atomic_load_n(&((tsr_ga_signal *)arg)->pending, __ATOMIC_ACQUIRE) == 0;
}

void tsr_ga_signal_wait(tsr_ga_signal *signal)
{
    guard_check("tsr_ga_signal_wait");
    if (!signal)
        log_die("tsr_ga_signal_wait: signal is NULL");
    ga_wait_for(signal_clear, signal);
}

/* ---- bulk transfers ------------------------------------------------------ */

static void bulk_done(ga_op *op, const void *data, uint32_t len)
{
    if (len)
        memcpy(op->result, data, len);
    waiter_done(&op->w);
}

/* After the fence nothing of this node to the allocation is in flight, so
 * the chunks, all sent before any is waited for, overtake nothing. They are
 * not numbered: an owner serves an unnumbered request at once. */
static void bulk(tsr_ga *ga, int node, size_t off, void *get_dst, const void *put_src, size_t n)
{
    ga->engine->fence(ga);
    size_t chunks = (n + MSG_GA_CHUNK - 1) / MSG_GA_CHUNK;
    ga_op *ops = calloc(chunks ? chunks : 1, sizeof *ops);
    if (!ops)
        log_die("out of memory for a %zu-byte global transfer", n);
    for (size_t i = 0; i < chunks; i++) {
        size_t at = i * MSG_GA_CHUNK, len = n - at < MSG_GA_CHUNK ? n - at : MSG_GA_CHUNK;
        ga_op *op = &ops[i];
        ga_throttle(ga);
        *op = (ga_op){.done = bulk_done, .ga = ga, .node = node};
        waiter_init(&op->w, 1);
        if (get_dst) {
            op->result = (uint8_t *)get_dst + at;
            ga_send_get(op, off + at, (uint32_t)len);
        } else {
            ga_send_put(op, off + at, (const uint8_t *)put_src + at, (uint32_t)len, 0);
        }
    }
    for (size_t i = 0; i < chunks; i++)
        waiter_wait(&ops[i].w);
    free(ops);
}

void tsr_ga_get(tsr_ga *ga, int node, size_t offset, void *dst, size_t bytes)
{
    checked("tsr_ga_get", ga, node, offset, bytes, 1);
    if (bytes && !dst)
        log_die("tsr_ga_get: dst is NULL");
    if (node == cfg.node)
        memcpy(dst, ga->base + offset, bytes);
    else if (bytes)
        bulk(ga, node, offset, dst, NULL, bytes);
}

void tsr_ga_put(tsr_ga *ga, int node, size_t offset, const void *src, size_t bytes)
{
    checked("tsr_ga_put", ga, node, offset, bytes, 1);
    if (bytes && !src)
        log_die("tsr_ga_put: src is NULL");
    if (node == cfg.node)
        memcpy(ga->base + offset, src, bytes);
    else if (bytes)
        bulk(ga, node, offset, NULL, src, bytes);
}

/* ---- allocation and the barrier ------------------------------------------ */

static const ga_engine *engine_of(tsr_ga_engine kind)
{
    switch (kind) {
    case TSR_GA_ORDER_CACHE: return &ga_order_cache;
    case TSR_GA_ORDER_NOCACHE: return &ga_order_nocache;
    case TSR_GA_SEQUENCER: return &ga_sequencer;
    default: return NULL;
    }
}

static tsr_ga_attr resolved(const tsr_ga_attr *attr)
{
    tsr_ga_attr a = TSR_GA_ATTR_DEFAULT;
    if (attr)
        a = *attr;
    if (a.engine == TSR_GA_ENGINE_DEFAULT)
        a.engine = (tsr_ga_engine)cfg.ga_engine;
    if (!engine_of(a.engine))
        log_die("tsr_ga_alloc: attr->engine %d is not a tsr_ga_engine", (int)a.engine);
    if (a.cache_node_bits == -1)
        a.cache_node_bits = cfg.ga_cache_node_bits;
    if (a.cache_addr_bits == -1)
        a.cache_addr_bits = cfg.ga_cache_addr_bits;
    if (a.cache_node_bits < 0 || a.cache_node_bits > GA_NODE_BITS_MAX)
        log_die("tsr_ga_alloc: attr->cache_node_bits %d is not -1 or 0 to %d",
                a.cache_node_bits, GA_NODE_BITS_MAX);
    if (a.cache_addr_bits < 0 || a.cache_addr_bits > GA_ADDR_BITS_MAX)
        log_die("tsr_ga_alloc: attr->cache_addr_bits %d is not -1 or 0 to %d",
                a.cache_addr_bits, GA_ADDR_BITS_MAX);
    return a;
}

static int free_id(void)
{
    for (int i = 0; i < MSG_GA_SEGS; i++)
        if (!table[i])
            return i;
    log_die("tsr_ga_alloc: all %d global allocations are in use (tsr_ga_free some)",
            MSG_GA_SEGS);
}

/* The signature the barrier manager compares: every node must allocate
 * the same size with the same engine and cache shape. */
static coll_sig ga_sig(coll_kind kind, uint64_t arg, const tsr_ga_attr *a)
{
    uint64_t shape = a ? (uint64_t)a->engine | (uint64_t)a->cache_node_bits << 8 |
                             (uint64_t)a->cache_addr_bits << 16
                       : 0;
    return (coll_sig){(uint64_t)kind, arg, shape};
}

tsr_ga *tsr_ga_alloc(size_t bytes, const tsr_ga_attr *attr)
{
    guard_check("tsr_ga_alloc");
    if (cfg.threads > 1)
        log_die("tsr_ga_alloc: Themis serves one application thread per node, and "
                "TSR_THREADS=%d asks for more: run it with TSR_THREADS=1 (docs/THEMIS.md)",
                cfg.threads);
    tsr_ga_attr a = resolved(attr);
    if (bytes == 0 || bytes > GA_SEGMENT_MAX)
        log_die("tsr_ga_alloc(%zu): a segment holds 1 byte to %llu bytes", bytes,
                (unsigned long long)GA_SEGMENT_MAX);
    /* Whole lines, so that OrderCache never fetches past the end. */
    bytes = (bytes + GA_LINE - 1) / GA_LINE * GA_LINE;
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        log_die("tsr_ga_alloc(%zu): out of memory", bytes);
    int id = free_id();
    tsr_ga *ga = &slots[id];
    *ga = (tsr_ga){.id = (uint16_t)id, .kind = a.engine, .size = bytes, .base = base,
                   .engine = engine_of(a.engine)};
    ga->engine->create(ga, &a);
    /* Published before the barrier: no request for it can come earlier. */
    table[ga->id] = ga;
    atomic_fetch_add(&live, 1);
    coll_sig sig = ga_sig(COLL_GA_ALLOC, bytes, &a);
    barrier_collective(&sig);
    return ga;
}

void tsr_ga_free(tsr_ga *ga)
{
    checked("tsr_ga_free", ga, cfg.node, 0, 0, 1);
    ga->engine->fence(ga);
    coll_sig sig = ga_sig(COLL_GA_FREE, ga->size, NULL);
    barrier_collective(&sig);
    table[ga->id] = NULL;
    atomic_fetch_sub(&live, 1);
    ga->engine->destroy(ga);
    munmap(ga->base, ga->size);
}

void *tsr_ga_local(tsr_ga *ga) { return checked("tsr_ga_local", ga, cfg.node, 0, 0, 1)->base; }
size_t tsr_ga_size(tsr_ga *ga) { return checked("tsr_ga_size", ga, cfg.node, 0, 0, 1)->size; }
tsr_ga_engine tsr_ga_engine_of(tsr_ga *ga)
{
    return checked("tsr_ga_engine_of", ga, cfg.node, 0, 0, 1)->kind;
}

void ga_fence_all(void)
{
    if (!atomic_load_explicit(&live, memory_order_relaxed))
        return;
    for (int i = 0; i < MSG_GA_SEGS; i++)
        if (table[i])
            table[i]->engine->fence(table[i]);
}

/* Every synchronization event completes this node's accesses; OrderCache
 * also writes its dirty lines back and drops every line, the paper's
 * flush and invalidation. A release needs the first, an acquire the
 * second (a line cached before it may be stale); the fence does both. */
void tsr_ga_barrier(void)
{
    guard_check("tsr_ga_barrier");
    coll_sig sig = ga_sig(COLL_GA_BARRIER, 0, NULL);
    barrier_collective(&sig);
}

void ga_init(void)
{
    stats_counter *const all[] = {
        &ga_read_hits,    &ga_read_misses, &ga_async_read_hits, &ga_async_read_misses,
        &ga_write_hits,   &ga_write_misses, &ga_write_backs,    &ga_line_stalls,
        &ga_fills_dropped, &ga_requests,   &ga_out_of_order,    &ga_queue_peak,
    };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        stats_register(all[i]);
    ga_wire_init();
    sync_set_hooks(ga_fence_all, ga_fence_all);
}
