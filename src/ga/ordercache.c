/*
 * ordercache.c - OrderCache (Section 2.2 of the Themis paper): a
 * direct-mapped, write-back software cache of other nodes' segments.
 *
 * Reads that hit are served from the line; a miss fetches the whole line
 * (8 bytes, so 8- and 16-bit reads bring their neighbours). Writes go into
 * the line, marking their bytes dirty, and leave only when the line is
 * evicted, when the write is synchronous, or at a barrier, with the byte
 * mask of what is dirty: a line written only in part is never fetched.
 * lines.h says how one outstanding write per line keeps a node's accesses
 * to an address in order. A late asynchronous read result is put in the
 * line only if the line is still clean (the paper drops it otherwise); its
 * caller gets it anyway. Barriers write back every dirty line, wait for
 * every acknowledgement, and invalidate the whole cache.
 */
#include <stdlib.h>
#include <string.h>

#include "ga/lines.h"
#include "util/log.h"

static int holds(const ga_desc *d, uint64_t tag) { return d->tag == tag && (d->valid | d->dirty); }

/* With the lock held: makes the descriptor hold `tag`, writing back the
 * dirty line it held (once that line may be written). Returns 1 if it
 * held the tag already. */
static int take_line(tsr_ga *ga, ga_lines *L, const ga_where *w)
{
    ga_desc *d = &L->desc[w->index];
    if (holds(d, w->tag))
        return 1;
    if (d->dirty) {
        while (!lines_may_write(d))
            lines_stall(L, d);
        lines_send_write(ga, w->index, lines_node(L, w->index, d->tag),
                         lines_offset(L, w->index, d->tag), L->line[w->index], GA_LINE, d->dirty,
                         NULL);
    }
    d->tag = w->tag;
    d->valid = d->dirty = 0;
    return 0;
}

/* Fill of a synchronous read: the caller merges it (under the lock). */
static void read_done(ga_op *op, const void *data, uint32_t len)
{
    ga_lines *L = op->ga->state;
    pthread_mutex_lock(&L->lock);
    lines_read_done(L, op);
    pthread_mutex_unlock(&L->lock);
    memcpy(op->result, data, len);
    waiter_done(&op->w);
}

/* Fetched bytes go under dirty ones: those are this node's writes made
 * before the read, which the line's owner does not have yet. */
static void overlay(uint8_t *line, const uint8_t *fetched, uint8_t dirty)
{
    for (int i = 0; i < GA_LINE; i++)
        if (!(dirty & (1u << i)))
            line[i] = fetched[i];
}

static void merge(ga_lines *L, uint32_t index, const uint8_t *fetched)
{
    overlay(L->line[index], fetched, L->desc[index].dirty);
    L->desc[index].valid = 0xff;
}

/* With the lock held, on a miss: fetch may leave once no write of this
 * line is in flight. */
static void wait_to_fetch(tsr_ga *ga, ga_lines *L, const ga_where *w)
{
    for (;;) {
        take_line(ga, L, w);
        if (lines_may_read(&L->desc[w->index], w->tag))
            return;
        lines_stall(L, &L->desc[w->index]);
    }
}

static uint64_t oc_read(tsr_ga *ga, int node, uint64_t off, unsigned width)
{
    ga_throttle(ga);
    ga_lines *L = ga->state;
    ga_where w = lines_where(L, node, off, width);
    ga_desc *d = &L->desc[w.index];
    pthread_mutex_lock(&L->lock);
    if (!(holds(d, w.tag) && (d->valid & w.mask) == w.mask)) {
        COUNTER_ADD(ga_read_misses, 1);
        uint8_t fetched[GA_LINE];
        ga_op op = {.done = read_done, .ga = ga, .node = node, .result = fetched};
        waiter_init(&op.w, 1);
        wait_to_fetch(ga, L, &w);
        lines_send_read(ga, &op, w.index, w.line_off, GA_LINE);
        pthread_mutex_unlock(&L->lock);
        waiter_wait(&op.w);
        pthread_mutex_lock(&L->lock);
        merge(L, w.index, fetched);
    } else {
        COUNTER_ADD(ga_read_hits, 1);
    }
    uint64_t v = ga_load(L->line[w.index] + w.at, width);
    pthread_mutex_unlock(&L->lock);
    return v;
}

static void async_read_done(ga_op *op, const void *data, uint32_t len)
{
    ga_lines *L = op->ga->state;
    pthread_mutex_lock(&L->lock);
    lines_read_done(L, op);
    ga_desc *d = &L->desc[op->line];
    if (d->tag == op->tag && d->dirty)
        COUNTER_ADD(ga_fills_dropped, 1);
    else if (d->tag == op->tag)
        memcpy(L->line[op->line], data, GA_LINE), d->valid = 0xff;
    pthread_mutex_unlock(&L->lock);
    overlay(op->mine, data, op->dirty);
    ga_deliver(op, ga_load(op->mine + op->off, op->width));
    free(op);
}

static void oc_read_async(tsr_ga *ga, int node, uint64_t off, unsigned width, void *result,
                          tsr_ga_signal *signal)
{
    ga_throttle(ga);
    ga_lines *L = ga->state;
    ga_where w = lines_where(L, node, off, width);
    ga_desc *d = &L->desc[w.index];
    pthread_mutex_lock(&L->lock);
    if (holds(d, w.tag) && (d->valid & w.mask) == w.mask) {
        COUNTER_ADD(ga_async_read_hits, 1);
        ga_op hit = {.result = result, .signal = signal, .width = width};
        ga_deliver(&hit, ga_load(L->line[w.index] + w.at, width));
        pthread_mutex_unlock(&L->lock);
        return;
    }
    COUNTER_ADD(ga_async_read_misses, 1);
    ga_op *op = malloc(sizeof *op);
    if (!op)
        log_die("out of memory for a global read");
    *op = (ga_op){.done = async_read_done, .ga = ga, .node = node, .off = w.at, .width = width,
                  .result = result, .signal = signal, .heap = 1};
    wait_to_fetch(ga, L, &w);
    op->dirty = d->dirty;
    memcpy(op->mine, L->line[w.index], GA_LINE);
    lines_send_read(ga, op, w.index, w.line_off, GA_LINE);
    pthread_mutex_unlock(&L->lock);
}

static void oc_write(tsr_ga *ga, int node, uint64_t off, unsigned width, uint64_t value,
                     int sync)
{
    ga_throttle(ga);
    ga_lines *L = ga->state;
    ga_where w = lines_where(L, node, off, width);
    ga_desc *d = &L->desc[w.index];
    pthread_mutex_lock(&L->lock);
    COUNTER_ADD(*(take_line(ga, L, &w) ? &ga_write_hits : &ga_write_misses), 1);
    ga_store(L->line[w.index] + w.at, width, value);
    d->dirty |= w.mask;
    d->valid |= w.mask;
    if (sync) {
        ga_op op;
        while (!lines_may_write(d))
            lines_stall(L, d);
        lines_send_write(ga, w.index, node, w.line_off, L->line[w.index], GA_LINE, d->dirty, &op);
        d->dirty = 0;
        pthread_mutex_unlock(&L->lock);
        waiter_wait(&op.w);
        return;
    }
    pthread_mutex_unlock(&L->lock);
}

/* The sweep of Figure 5: every descriptor is looked at. */
static void oc_fence(tsr_ga *ga)
{
    ga_lines *L = ga->state;
    pthread_mutex_lock(&L->lock);
    for (uint32_t i = 0; i < L->count; i++) {
        ga_desc *d = &L->desc[i];
        if (!d->dirty)
            continue;
        pthread_mutex_unlock(&L->lock);
        ga_throttle(ga);
        pthread_mutex_lock(&L->lock);
        while (!lines_may_write(d))
            lines_stall(L, d);
        lines_send_write(ga, i, lines_node(L, i, d->tag), lines_offset(L, i, d->tag), L->line[i],
                         GA_LINE, d->dirty, NULL);
        d->dirty = 0;
    }
    pthread_mutex_unlock(&L->lock);
    lines_drain(ga);
    pthread_mutex_lock(&L->lock);
    for (uint32_t i = 0; i < L->count; i++)
        L->desc[i].valid = L->desc[i].dirty = 0;
    pthread_mutex_unlock(&L->lock);
}

static void oc_create(tsr_ga *ga, const tsr_ga_attr *attr) { lines_create(ga, attr, 1); }

const ga_engine ga_order_cache = {
    .name = "ordercache",
    .create = oc_create,
    .destroy = lines_destroy,
    .read = oc_read,
    .write = oc_write,
    .read_async = oc_read_async,
    .fence = oc_fence,
};
