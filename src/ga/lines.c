#include "ga/lines.h"

#include <stdlib.h>

#include "util/log.h"

void lines_create(tsr_ga *ga, const tsr_ga_attr *attr, int keep_bytes)
{
    ga_lines *L = calloc(1, sizeof *L);
    if (!L)
        log_die("tsr_ga_alloc: out of memory");
    pthread_mutex_init(&L->lock, NULL);
    L->node_bits = attr->cache_node_bits;
    L->addr_bits = attr->cache_addr_bits;
    L->count = 1u << (L->node_bits + L->addr_bits);
    L->desc = calloc(L->count, sizeof *L->desc);
    L->line = keep_bytes ? calloc(L->count, GA_LINE) : NULL;
    if (!L->desc || (keep_bytes && !L->line))
        log_die("tsr_ga_alloc: out of memory for %u cache lines", L->count);
    ga->state = L;
}

void lines_destroy(tsr_ga *ga)
{
    ga_lines *L = ga->state;
    pthread_mutex_destroy(&L->lock);
    free(L->desc);
    free(L->line);
    free(L);
}

/* The index's high bits are the node's low bits, so each node has its own
 * region of the table and two nodes' hot lines do not evict each other. */
ga_where lines_where(const ga_lines *L, int node, uint64_t off, unsigned width)
{
    uint64_t number = off / GA_LINE;
    uint64_t node_low = (uint64_t)node & ((1u << L->node_bits) - 1);
    uint64_t addr_low = number & ((1ull << L->addr_bits) - 1);
    ga_where w = {
        .index = (uint32_t)(node_low << L->addr_bits | addr_low),
        .tag = (uint64_t)(node >> L->node_bits) << 48 | number >> L->addr_bits,
        .line_off = number * GA_LINE,
        .at = (unsigned)(off % GA_LINE),
    };
    w.mask = (uint8_t)(((1u << width) - 1) << w.at);
    return w;
}

int lines_node(const ga_lines *L, uint32_t index, uint64_t tag)
{
    return (int)((tag >> 48) << L->node_bits | index >> L->addr_bits);
}

uint64_t lines_offset(const ga_lines *L, uint32_t index, uint64_t tag)
{
    uint64_t low = index & ((1u << L->addr_bits) - 1);
    return ((tag & ((1ull << 48) - 1)) << L->addr_bits | low) * GA_LINE;
}

int lines_may_write(const ga_desc *d)
{
    return !atomic_load(&d->writing) && !atomic_load(&d->reading);
}

int lines_may_read(const ga_desc *d, uint64_t tag)
{
    return !atomic_load(&d->writing) || d->write_tag != tag;
}

static int idle(void *arg) { return lines_may_write(arg); }

void lines_stall(ga_lines *L, ga_desc *d)
{
    COUNTER_ADD(ga_line_stalls, 1);
    pthread_mutex_unlock(&L->lock);
    ga_wait_for(idle, d);
    pthread_mutex_lock(&L->lock);
}

static void write_done(ga_op *op, const void *data, uint32_t len)
{
    ga_lines *L = op->ga->state;
    atomic_store(&L->desc[op->line].writing, 0);
    if (op->heap)
        free(op);
    else
        waiter_done(&op->w);
}

void lines_send_write(tsr_ga *ga, uint32_t index, int node, uint64_t off, const void *bytes,
                      uint32_t len, uint8_t mask, ga_op *sync)
{
    ga_lines *L = ga->state;
    ga_op *op = sync ? sync : malloc(sizeof *op);
    if (!op)
        log_die("out of memory for a global write");
    *op = (ga_op){.done = write_done, .ga = ga, .node = node, .line = index, .heap = !sync};
    waiter_init(&op->w, 1);
    L->desc[index].write_tag = L->desc[index].tag;
    atomic_store(&L->desc[index].writing, 1);
    COUNTER_ADD(ga_write_backs, 1);
    ga_send_put(op, off, bytes, len, mask);
}

void lines_send_read(tsr_ga *ga, ga_op *op, uint32_t index, uint64_t off, uint32_t len)
{
    ga_lines *L = ga->state;
    op->line = index;
    op->tag = L->desc[index].tag;
    atomic_fetch_add(&L->desc[index].reading, 1);
    ga_send_get(op, off, len);
}

void lines_read_done(ga_lines *L, const ga_op *op)
{
    atomic_fetch_sub(&L->desc[op->line].reading, 1);
}

static int drained(void *arg) { return atomic_load(&((tsr_ga *)arg)->inflight) == 0; }

void lines_drain(tsr_ga *ga) { ga_wait_for(drained, ga); }
