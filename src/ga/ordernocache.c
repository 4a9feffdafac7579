/*
 * ordernocache.c - OrderNoCache (Section 2.2.7 of the Themis paper):
 * OrderCache's ordering without its caching. Every read goes to the owner,
 * every write leaves at once; the line descriptors only keep what is in
 * flight, so that a write still waits for an earlier write (or read) of
 * its line, and a read for an earlier write of it.
 */
#include <stdlib.h>

#include "ga/lines.h"
#include "util/log.h"

static void read_done(ga_op *op, const void *data, uint32_t len)
{
    ga_lines *L = op->ga->state;
    pthread_mutex_lock(&L->lock);
    lines_read_done(L, op);
    pthread_mutex_unlock(&L->lock);
    if (op->heap) {
        ga_deliver(op, ga_load(data, op->width));
        free(op);
    } else {
        ga_store(op->result, op->width, ga_load(data, op->width));
        waiter_done(&op->w);
    }
}

/* With the lock held: sends op's read once no write of its line is out. */
static void send_read(tsr_ga *ga, ga_op *op, uint64_t off)
{
    ga_lines *L = ga->state;
    ga_where w = lines_where(L, op->node, off, op->width);
    ga_desc *d = &L->desc[w.index];
    while (!lines_may_read(d, w.tag))
        lines_stall(L, d);
    d->tag = w.tag;
    lines_send_read(ga, op, w.index, off, op->width);
}

static uint64_t nc_read(tsr_ga *ga, int node, uint64_t off, unsigned width)
{
    ga_throttle(ga);
    ga_lines *L = ga->state;
    uint64_t value = 0;
    ga_op op = {.done = read_done, .ga = ga, .node = node, .width = width, .result = &value};
    waiter_init(&op.w, 1);
    COUNTER_ADD(ga_read_misses, 1);
    pthread_mutex_lock(&L->lock);
    send_read(ga, &op, off);
    pthread_mutex_unlock(&L->lock);
    waiter_wait(&op.w);
    return value;
}

static void nc_read_async(tsr_ga *ga, int node, uint64_t off, unsigned width, void *result,
                          tsr_ga_signal *signal)
{
    ga_throttle(ga);
    ga_lines *L = ga->state;
    ga_op *op = malloc(sizeof *op);
    if (!op)
        log_die("out of memory for a global read");
    *op = (ga_op){.done = read_done, .ga = ga, .node = node, .width = width, .result = result,
                  .signal = signal, .heap = 1};
    COUNTER_ADD(ga_async_read_misses, 1);
    pthread_mutex_lock(&L->lock);
    send_read(ga, op, off);
    pthread_mutex_unlock(&L->lock);
}

static void nc_write(tsr_ga *ga, int node, uint64_t off, unsigned width, uint64_t value,
                     int sync)
{
    ga_throttle(ga);
    ga_lines *L = ga->state;
    ga_where w = lines_where(L, node, off, width);
    ga_desc *d = &L->desc[w.index];
    uint8_t bytes[GA_LINE];
    ga_store(bytes, width, value);
    ga_op op;
    COUNTER_ADD(ga_write_misses, 1);
    pthread_mutex_lock(&L->lock);
    while (!lines_may_write(d))
        lines_stall(L, d);
    d->tag = w.tag;
    lines_send_write(ga, w.index, node, off, bytes, width, 0, sync ? &op : NULL);
    pthread_mutex_unlock(&L->lock);
    if (sync)
        waiter_wait(&op.w);
}

static void nc_create(tsr_ga *ga, const tsr_ga_attr *attr) { lines_create(ga, attr, 0); }

const ga_engine ga_order_nocache = {
    .name = "ordernocache",
    .create = nc_create,
    .destroy = lines_destroy,
    .read = nc_read,
    .write = nc_write,
    .read_async = nc_read_async,
    .fence = lines_drain,
};
