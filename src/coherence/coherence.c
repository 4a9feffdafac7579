#include <sched.h>
#include "coherence/coherence.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/adopt.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/alloc.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/guard.h"
#include "util/log.h"
#include "util/sigmutex.h"

/* Index 0 means "not allocated"; protocol k lives at k + 1. */
const tsr_protocol *const coh_protocols[COH_NPROTO] = {NULL, &hlrc_protocol, &munin_protocol,
                                                      &lrc_protocol, &scope_protocol};

/* Barrier epochs, and per epoch modulo COUNTED_EPOCHS the counted messages
 * still expected (see tsr_protocol.flush): it goes below zero when
 * messages arrive before the barrier has said how many to expect. Three
 * epochs can be open at once: a node parked in tsr_serve at epoch e applies
 * e's and e + 1's departures when node 0's fork wakes it, and node 0 may
 * by then send messages counted by e + 2 (sync/barrier.c). Only the
 * application thread advances the epoch, but the comm thread reads it (a
 * Munin manager tags the updates it relays, whose receivers ignore the
 * tag), hence atomic. */
static _Atomic uint32_t epoch;
STATS_COUNTER(replicated_writes, "pages written in replicated sections, kept local");
#define COUNTED_EPOCHS 4
static waiter counted[COUNTED_EPOCHS];
/* Pages each protocol keeps, by index (coh_set_proto): a replicated
 * section asks whether a protocol without section hooks has any, and the
 * answer must cost what the job allocated, not what it reserved. */
static _Atomic uint32_t kept[COH_NPROTO];

coh_sync_ops coh_sync;

void coh_lend_sync(const coh_sync_ops *ops) { coh_sync = *ops; }

void coh_init(void)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->init)
            coh_protocols[i]->init();
    adopt_init();
    coh_range_init();
    stats_register(&replicated_writes);
    detect_on_fault(coh_fault);
}

void coh_map(uint32_t first, uint32_t n, const tsr_attr *attr)
{
    uint8_t proto = (uint8_t)(attr->proto + 1);
    if (attr->proto < 0 || proto >= COH_NPROTO)
        log_die("tsr_alloc_attr: unknown protocol %d", (int)attr->proto);
    /* Before any thread can touch its pages: under uffd a second thread's
     * fault could not be told from the first one's. */
    if (coh_protocols[proto]->one_thread && cfg.threads > 1)
        log_die("protocol %s serves one application thread per node, and TSR_THREADS=%d asks "
                "for more: run its memory with TSR_THREADS=1 (docs/API.md, \"Threads\")",
                coh_protocols[proto]->name, cfg.threads);
    for (uint32_t i = 0; i < n; i++) {
        region.meta[first + i].home = (uint16_t)alloc_home(attr, i, n);
        coh_set_proto(first + i, proto);
    }
    coh_protocols[proto]->map(first, n, attr);
}

void coh_unmap(uint32_t first, uint32_t n)
{
    uint8_t proto = region.meta[first].proto;
    if (proto && coh_protocols[proto]->unmap)
        coh_protocols[proto]->unmap(first, n);
}

void coh_free_local(uint32_t first, uint32_t n)
{
    const tsr_protocol *p = coh_protocol_of(first);
    if (!p || !p->free_local || !p->free_local(first, n))
        return;
    detect_set_access(first, n, ACCESS_NONE);
    region_discard(first, n);
    for (uint32_t q = first; q < first + n; q++) {
        coh_set_proto(q, 0);
        region.meta[q].home = 0;
        region.meta[q].state = 0;
    }
}

void coh_barrier_held(int node)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->barrier_held)
            coh_protocols[i]->barrier_held(node);
}

int coh_barrier_eager(void)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->barrier_eager && coh_protocols[i]->barrier_eager())
            return 1;
    return 0;
}

void coh_sync_point(int barrier)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->sync_point)
            coh_protocols[i]->sync_point(barrier);
}

void coh_prepare_local(tsr_proto_t proto)
{
    const tsr_protocol *p = coh_protocols[proto + 1];
    if (p->prepare_local)
        p->prepare_local();
}

void coh_set_proto(uint32_t page, uint8_t proto)
{
    page_meta *m = &region.meta[page];
    if (m->proto == proto)
        return;
    if (m->proto)
        atomic_fetch_sub(&kept[m->proto], 1);
    if (proto)
        atomic_fetch_add(&kept[proto], 1);
    /* range.c reads it from application threads without the lock */
    __atomic_store_n(&m->proto, proto, __ATOMIC_RELAXED);
}

const tsr_protocol *coh_protocol_of(uint32_t page) { return coh_protocols[region.meta[page].proto]; }

int coh_protocol_known(unsigned proto) { return proto > 0 && proto < COH_NPROTO; }

/* The node's protocol lock: every thread's faults, and the synchronization
 * layer's calls in here, run one at a time, so a page is fetched once
 * however many threads fault on it, and no twin, diff, invalidation or
 * access change meets another half done (docs/ARCHITECTURE.md, "Several
 * application threads"). The comm thread never takes it: a thread holding
 * it may wait for a reply that only the comm thread delivers. */
static sigmutex node_lock;
/* Whether this thread holds it. The lock is not recursive, so a fault on
 * shared memory while the thread holds it (the runtime reading the
 * program's view of a page it should read through its own) would wait on
 * itself forever: it stops the node, named, instead. */
static __thread int holding;

void coh_enter(void)
{
    if (holding)
        log_die("internal error: a shared-memory fault while this thread holds the node's "
                "protocol lock (the runtime touched the program's view of a page)");
    sigmutex_lock(&node_lock);
    holding = 1;
}

void coh_leave(void)
{
    holding = 0;
    sigmutex_unlock(&node_lock);
}

/* Under segv the faulting thread is the caller; under uffd the handler
 * thread, which cannot say whose fault it serves: sync_threads_check
 * refuses the other threads' calls there instead. */
static void refuse_thread(uint8_t proto, void *addr)
{
    if (coh_protocols[proto]->one_thread && !detect_serves_kernel_faults() &&
        !guard_on_app_thread())
        log_die_status(1, "a second thread accessed shared memory at %p, kept by protocol %s, "
                       "which serves only the thread that called tsr_init (docs/API.md, "
                       "\"Threads\")", addr, coh_protocols[proto]->name);
}

static int fault_locked(void *addr, int is_write)
{
    uint32_t page = page_of(addr);
    uint8_t proto = region.meta[page].proto;
    if (!proto) {
        /* Perhaps another node's tsr_malloc memory, met here for the first time. */
        if (adopt_fault(addr, page))
            return -1;
        proto = region.meta[page].proto;
    }
    refuse_thread(proto, addr);
    coh_count_fault();
    uint64_t t0 = trace_begin();
    coh_protocols[proto]->fault(page, is_write);
    TRACE_SPAN(t0, is_write ? EV_FAULT_WRITE : EV_FAULT_READ, 0, page, 0);
    return 0;
}

int coh_fault(void *addr, int is_write)
{
    if (!region_contains(addr))
        return -1;
    coh_enter();
    int r = fault_locked(addr, is_write);
    coh_leave();
    return r;
}

const char *coh_one_thread_kept(void)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->one_thread && atomic_load(&kept[i]))
            return coh_protocols[i]->name;
    return NULL;
}

void coh_release(void)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (!coh_protocols[i]->variant_of)
            coh_protocols[i]->flush(NULL);
}

void coh_barrier_release(uint32_t *sent)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (!coh_protocols[i]->variant_of)
            coh_protocols[i]->flush(sent);
}

uint32_t coh_epoch(void) { return epoch; }

uint32_t coh_mc_section(void)
{
    return cfg.multicast != MULTICAST_OFF && cfg.nodes > 2 ? epoch + 1 : 0;
}

int coh_mc_current(uint32_t mine, uint64_t s)
{
    return mine ? s == mine : s == (uint64_t)epoch + 1 || s == (uint64_t)epoch + 2;
}

uint32_t coh_mc_asked(uint32_t mine, uint64_t arg0)
{
    uint32_t s = (uint32_t)(arg0 >> 32);
    return s && coh_mc_current(mine, s) ? s : 0;
}

/* Offers in flight from the fault path to the comm thread (protocol.h).
 * With none free, nothing is offered: the others ask. */
#define OFFER_SLOTS 64
static am_msg offers[OFFER_SLOTS];
static _Atomic uint8_t offer_busy[OFFER_SLOTS];

void coh_offer(int type, uint32_t page, uint32_t section)
{
    for (int k = 0; k < OFFER_SLOTS; k++)
        if (!atomic_exchange(&offer_busy[k], 1)) {
            am_post(cfg.node, &offers[k], type, page, section, (uint64_t)k, NULL, 0);
            return;
        }
}

int coh_offer_taken(int src, const tsr_msg_hdr *h)
{
    if (src != cfg.node || h->arg[2] >= OFFER_SLOTS)
        return -1;
    atomic_store(&offer_busy[h->arg[2]], 0); /* its message is read: the slot is free */
    return 0;
}

void coh_counted_arrival(uint32_t e) { waiter_done(&counted[e % COUNTED_EPOCHS]); }

int coh_barrier_done(const void *departure, size_t len, uint32_t expected)
{
    waiter *w = &counted[epoch % COUNTED_EPOCHS];
    atomic_fetch_add(&w->pending, expected);
    waiter_wait(w);
    epoch++;
    if (coh_barrier_apply(departure, len))
        return -1;
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->barrier_done)
            coh_protocols[i]->barrier_done();
    return 0;
}

void coh_barrier_left(void)
{
    coh_enter();
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->barrier_left)
            coh_protocols[i]->barrier_left();
    coh_leave();
}

static int replicating;

void coh_replicated_write(void) { COUNTER_ADD(replicated_writes, 1); }

int coh_replicating(void) { return replicating; }

void coh_replicate_begin(void)
{
    replicating = 1;
    for (uint8_t i = 1; i < COH_NPROTO; i++) {
        if (coh_protocols[i]->replicate_begin)
            coh_protocols[i]->replicate_begin();
        else if (!coh_protocols[i]->variant_of && atomic_load(&kept[i]))
            log_die("tsr_replicate_begin: protocol %s keeps allocated pages and has no "
                    "replicated sections (docs/OMPNOW.md says which protocols do)",
                    coh_protocols[i]->name);
    }
}

void coh_replicate_end(void)
{
    replicating = 0;
    for (size_t i = 1; i < COH_NPROTO; i++)
        if (coh_protocols[i]->replicate_end)
            coh_protocols[i]->replicate_end();
}

/* The comm thread may change a page's access (hlrc_protect_sticky) while
 * it serves peers; tsr_finalize, once past its last barrier, maps the
 * program's globals private again and drops their windows (globals.c),
 * after which no access may change: coh_close waits for a change under
 * way and refuses later ones. */
static _Atomic int closing, protecting;

int coh_comm_access_begin(void)
{
    atomic_fetch_add(&protecting, 1);
    if (!atomic_load(&closing))
        return 1;
    atomic_fetch_sub(&protecting, 1);
    return 0;
}

void coh_comm_access_end(void) { atomic_fetch_sub(&protecting, 1); }

void coh_close(void)
{
    atomic_store(&closing, 1);
    while (atomic_load(&protecting))
        sched_yield();
}
