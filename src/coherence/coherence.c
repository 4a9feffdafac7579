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
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

/* Index 0 means "not allocated"; protocol k lives at k + 1. */
const tsr_protocol *const coh_protocols[COH_NPROTO] = {NULL, &hlrc_protocol, &munin_protocol,
                                                      &lrc_protocol};

/* Barrier epochs, and per epoch parity the counted messages still expected
 * (see tsr_protocol.flush): it goes below zero when messages arrive before
 * the barrier has said how many to expect. Only the application thread
 * advances the epoch, but the comm thread reads it (a Munin manager tags the
 * updates it relays, whose receivers ignore the tag), hence atomic. */
static _Atomic uint32_t epoch;
STATS_COUNTER(replicated_writes, "pages written in replicated sections, kept local");
static waiter counted[2];

coh_sync_ops coh_sync;

void coh_lend_sync(const coh_sync_ops *ops) { coh_sync = *ops; }

void coh_init(void)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
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
    for (uint32_t i = 0; i < n; i++) {
        page_meta *m = &region.meta[first + i];
        m->home = (uint16_t)alloc_home(attr, i, n);
        m->proto = proto;
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
        region.meta[q].proto = 0;
        region.meta[q].home = 0;
        region.meta[q].state = 0;
    }
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

const tsr_protocol *coh_protocol_of(uint32_t page) { return coh_protocols[region.meta[page].proto]; }

int coh_protocol_known(unsigned proto) { return proto > 0 && proto < COH_NPROTO; }

int coh_fault(void *addr, int is_write)
{
    if (!region_contains(addr))
        return -1;
    uint32_t page = page_of(addr);
    uint8_t proto = region.meta[page].proto;
    if (!proto) {
        /* Perhaps another node's tsr_malloc memory, met here for the first time. */
        if (adopt_fault(addr, page))
            return -1;
        proto = region.meta[page].proto;
    }
    coh_count_fault();
    coh_protocols[proto]->fault(page, is_write);
    return 0;
}

void coh_release(void)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
        coh_protocols[i]->flush(NULL);
}

void coh_barrier_release(uint32_t *sent)
{
    for (size_t i = 1; i < COH_NPROTO; i++)
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

void coh_counted_arrival(uint32_t e) { waiter_done(&counted[e & 1]); }

int coh_barrier_done(const void *departure, size_t len, uint32_t expected)
{
    waiter *w = &counted[epoch & 1];
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

/* Whether some page is kept by protocol index k: a section must not start
 * with pages whose writes nothing would keep local. */
static int protocol_in_use(uint8_t k)
{
    for (uint32_t p = 0; p < region.npages; p++)
        if (region.meta[p].proto == k)
            return 1;
    return 0;
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
        else if (protocol_in_use(i))
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
