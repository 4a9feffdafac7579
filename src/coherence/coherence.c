#include "coherence/coherence.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/adopt.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/alloc.h"
#include "memory/region.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

/* Index 0 means "not allocated"; protocol k lives at k + 1. */
static const tsr_protocol *const protocols[] = {NULL, &hlrc_protocol, &munin_protocol};
#define NPROTO (sizeof protocols / sizeof protocols[0])

/* Notices this node produced or learned since the last barrier, and for
 * each lock the notice-set clock when this node last released it. */
static notice_set known;
static uint32_t lock_sent[TSR_MAX_LOCKS];

/* Barrier epochs, and per epoch parity the counted messages still expected
 * (see tsr_protocol.flush): it goes below zero when messages arrive before
 * the barrier has said how many to expect. Only the application thread
 * advances the epoch, but the comm thread reads it (a Munin manager tags the
 * updates it relays, whose receivers ignore the tag), hence atomic. */
static _Atomic uint32_t epoch;
static waiter counted[2];

void coh_init(void)
{
    for (size_t i = 1; i < NPROTO; i++)
        protocols[i]->init();
    adopt_init();
    detect_on_fault(coh_fault);
}

void coh_map(uint32_t first, uint32_t n, const tsr_attr *attr)
{
    uint8_t proto = (uint8_t)(attr->proto + 1);
    if (attr->proto < 0 || proto >= NPROTO)
        log_die("tsr_alloc_attr: unknown protocol %d", (int)attr->proto);
    for (uint32_t i = 0; i < n; i++) {
        page_meta *m = &region.meta[first + i];
        m->home = (uint16_t)alloc_home(attr, i, n);
        m->proto = proto;
    }
    protocols[proto]->map(first, n, attr);
}

void coh_unmap(uint32_t first, uint32_t n)
{
    uint8_t proto = region.meta[first].proto;
    if (proto && protocols[proto]->unmap)
        protocols[proto]->unmap(first, n);
}

const tsr_protocol *coh_protocol_of(uint32_t page) { return protocols[region.meta[page].proto]; }

int coh_protocol_known(unsigned proto) { return proto > 0 && proto < NPROTO; }

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
    protocols[proto]->fault(page, is_write);
    return 0;
}

void coh_note(uint32_t page, uint32_t version) { notice_add(&known, page, version); }

void coh_release(void)
{
    for (size_t i = 1; i < NPROTO; i++)
        protocols[i]->flush(NULL);
}

void coh_barrier_release(uint32_t *sent)
{
    for (size_t i = 1; i < NPROTO; i++)
        protocols[i]->flush(sent);
}

uint32_t coh_epoch(void) { return epoch; }

void coh_counted_arrival(uint32_t e) { waiter_done(&counted[e & 1]); }

static void *encode_since(uint32_t since, size_t *len)
{
    void *buf = malloc((size_t)notice_count_since(&known, since) * NOTICE_WIRE + 1);
    if (!buf)
        log_die("out of memory (write notices)");
    *len = notice_encode(&known, since, buf);
    return buf;
}

void *coh_lock_notices(int lock, size_t *len)
{
    void *buf = encode_since(lock_sent[lock], len);
    lock_sent[lock] = known.clock;
    return buf;
}

void *coh_all_notices(size_t *len) { return encode_since(0, len); }

static void apply_notice(uint32_t page, uint32_t version)
{
    if (page >= region.npages || !region.meta[page].proto)
        return; /* freed since the notice was made */
    const tsr_protocol *pr = protocols[region.meta[page].proto];
    if (pr->invalidate)
        pr->invalidate(page, version);
}

void coh_acquire(const void *notices, size_t len)
{
    if (len % NOTICE_WIRE)
        log_die("protocol error: lock grant carries %zu bytes of notices", len);
    /* Writes made before this acquire must reach their homes before a page
     * they touch is dropped: end the interval first. */
    coh_release();
    const uint32_t *w = notices;
    for (size_t i = 0; i < len / NOTICE_WIRE; i++) {
        apply_notice(w[2 * i], w[2 * i + 1]);
        coh_note(w[2 * i], w[2 * i + 1]);
    }
}

void coh_barrier_done(const notice_set *global, uint32_t expected)
{
    waiter *w = &counted[epoch & 1];
    atomic_fetch_add(&w->pending, expected);
    waiter_wait(w);
    epoch++;
    for (size_t i = 1; i < NPROTO; i++)
        if (protocols[i]->barrier_done)
            protocols[i]->barrier_done();
    for (uint32_t i = 0; i < global->n; i++)
        apply_notice(global->e[i].page, global->e[i].version);
    /* Every node has now acted on every notice of the epoch. */
    notice_clear(&known);
}

/* Bound data travels as one frame per protocol that has any: (u32 length,
 * bytes), in table order. */
void *coh_lock_data(int lock, size_t *len)
{
    size_t bytes = 0, frames = 0;
    for (size_t i = 1; i < NPROTO; i++)
        if (protocols[i]->lock_data) {
            bytes += protocols[i]->lock_data(lock, NULL);
            frames++;
        }
    *len = 0;
    if (!bytes)
        return NULL; /* nothing bound to this lock */
    char *buf = malloc(bytes + 4 * frames);
    if (!buf)
        log_die("out of memory (lock data)");
    for (size_t i = 1; i < NPROTO; i++) {
        if (!protocols[i]->lock_data)
            continue;
        uint32_t part = (uint32_t)protocols[i]->lock_data(lock, buf + *len + 4);
        memcpy(buf + *len, &part, 4);
        *len += 4 + part;
    }
    return buf;
}

void coh_lock_install(int lock, const void *data, size_t len, int writable)
{
    size_t at = 0;
    for (size_t i = 1; i < NPROTO && at < len; i++) {
        if (!protocols[i]->lock_data)
            continue;
        uint32_t part;
        if (len - at < 4 || (memcpy(&part, (const char *)data + at, 4), len - at - 4 < part))
            log_die_status(1, "protocol error: malformed data bound to lock %d", lock);
        if (part)
            protocols[i]->lock_install(lock, (const char *)data + at + 4, part, writable);
        at += 4 + part;
    }
}
