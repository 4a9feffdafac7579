/*
 * sequencer.c - Sequencer (Section 2.3 of the Themis paper): every request
 * of a node to an owner carries the next number of that pair, and the
 * owner performs them in number order.
 *
 * Each node keeps, per peer and per allocation, an outbound counter (the
 * last number it gave), an acknowledgement counter (replies received) and
 * an inbound counter (the next number it will serve). A request whose
 * number is the inbound one is served at once, never queued (the fast
 * path); an early one waits in that peer's dispatch queue, ordered by
 * number, until its predecessors have come. A node has drained the
 * network when each outbound counter equals its acknowledgement counter.
 *
 * Unlike Active Messages, the transport needs no reply per request, so an
 * early request costs no empty reply: it is answered once, when served
 * (two messages either way, not the paper's four). Each peer has its own
 * queue, so one peer's lost order never holds up another's requests.
 */
#include <stdlib.h>
#include <string.h>

#include "ga/ga.h"
#include "util/config.h"
#include "util/log.h"

/* How far ahead of the inbound counter a number may be: bounds the queue a
 * peer can make this node keep. In-flight requests per allocation are
 * fewer (wire.c), so a correct peer never comes near it. */
#define WINDOW (1u << 16)

typedef struct early {
    struct early *next;
    uint32_t seq;
    tsr_msg_hdr h;
    uint8_t payload[]; /* h.len bytes */
} early;

typedef struct peer {
    uint32_t outbound;        /* application thread */
    _Atomic uint32_t acked;   /* communication thread */
    uint32_t inbound;         /* communication thread */
    early *queue;
    uint32_t queued;
} peer;

typedef struct sequencer {
    peer *peers;
    early *spare; /* free list of small queue entries */
} sequencer;

static uint32_t next_number(uint32_t n) { return n + 1 ? n + 1 : 1; }

static void sq_create(tsr_ga *ga, const tsr_ga_attr *attr)
{
    sequencer *s = calloc(1, sizeof *s);
    if (s)
        s->peers = calloc((size_t)cfg.nodes, sizeof *s->peers);
    if (!s || !s->peers)
        log_die("tsr_ga_alloc: out of memory");
    for (int p = 0; p < cfg.nodes; p++)
        s->peers[p].inbound = 1;
    ga->state = s;
}

static void free_list(early *e)
{
    while (e) {
        early *next = e->next;
        free(e);
        e = next;
    }
}

/* A queue is empty unless a peer sent numbers it never filled in. */
static void sq_destroy(tsr_ga *ga)
{
    sequencer *s = ga->state;
    free_list(s->spare);
    for (int p = 0; p < cfg.nodes; p++)
        free_list(s->peers[p].queue);
    free(s->peers);
    free(s);
}

/* ---- the owner's side (communication thread) ----------------------------- */

const char *seq_refused(tsr_ga *ga, int src, uint32_t seq)
{
    const peer *p = &((sequencer *)ga->state)->peers[src];
    if (seq - p->inbound >= WINDOW)
        return "is numbered below the next expected (served already) or too far ahead";
    for (const early *e = p->queue; e; e = e->next)
        if (e->seq == seq)
            return "repeats the number of a request already queued";
    return "";
}

static early *entry(sequencer *s, uint32_t len)
{
    if (len <= GA_LINE && s->spare) {
        early *e = s->spare;
        s->spare = e->next;
        return e;
    }
    early *e = malloc(sizeof *e + (len > GA_LINE ? len : GA_LINE));
    if (!e)
        log_die("out of memory queueing a global request");
    return e;
}

static void recycle(sequencer *s, early *e)
{
    if (e->h.len <= GA_LINE) {
        e->next = s->spare;
        s->spare = e;
    } else {
        free(e);
    }
}

static void enqueue(tsr_ga *ga, peer *p, int src, const tsr_msg_hdr *h, const void *payload,
                    uint32_t seq)
{
    early *e = entry(ga->state, h->len);
    e->seq = seq;
    e->h = *h;
    memcpy(e->payload, payload, h->len);
    early **at = &p->queue;
    while (*at && (*at)->seq - p->inbound < seq - p->inbound)
        at = &(*at)->next;
    e->next = *at;
    *at = e;
    COUNTER_ADD(ga_out_of_order, 1);
    if (++p->queued > atomic_load(&ga_queue_peak.value))
        atomic_store(&ga_queue_peak.value, p->queued);
}

void seq_arrive(tsr_ga *ga, int src, const tsr_msg_hdr *h, const void *payload, uint32_t seq)
{
    sequencer *s = ga->state;
    peer *p = &s->peers[src];
    if (seq != p->inbound) {
        enqueue(ga, p, src, h, payload, seq);
        return;
    }
    ga_serve(ga, src, h, payload);
    p->inbound = next_number(p->inbound);
    while (p->queue && p->queue->seq == p->inbound) {
        early *e = p->queue;
        p->queue = e->next;
        p->queued--;
        ga_serve(ga, src, &e->h, e->payload);
        p->inbound = next_number(p->inbound);
        recycle(s, e);
    }
}

/* ---- the requester's side ------------------------------------------------ */

static void done(ga_op *op, const void *data, uint32_t len)
{
    sequencer *s = op->ga->state;
    atomic_fetch_add(&s->peers[op->node].acked, 1);
    if (op->heap) {
        if (op->result)
            ga_deliver(op, ga_load(data, op->width));
        free(op);
        return;
    }
    if (op->result)
        ga_store(op->result, op->width, ga_load(data, op->width));
    waiter_done(&op->w);
}

static ga_op *numbered(tsr_ga *ga, ga_op *op, int node, unsigned width)
{
    sequencer *s = ga->state;
    ga_throttle(ga);
    if (!op && !(op = malloc(sizeof *op)))
        log_die("out of memory for a global access");
    peer *p = &s->peers[node];
    p->outbound = next_number(p->outbound);
    *op = (ga_op){.done = done, .ga = ga, .node = node, .width = width, .seq = p->outbound};
    waiter_init(&op->w, 1);
    return op;
}

static uint64_t sq_read(tsr_ga *ga, int node, uint64_t off, unsigned width)
{
    uint64_t value = 0;
    ga_op op;
    numbered(ga, &op, node, width)->result = &value;
    COUNTER_ADD(ga_read_misses, 1);
    ga_send_get(&op, off, width);
    waiter_wait(&op.w);
    return value;
}

static void sq_read_async(tsr_ga *ga, int node, uint64_t off, unsigned width, void *result,
                          tsr_ga_signal *signal)
{
    ga_op *op = numbered(ga, NULL, node, width);
    op->heap = 1;
    op->result = result;
    op->signal = signal;
    COUNTER_ADD(ga_async_read_misses, 1);
    ga_send_get(op, off, width);
}

static void sq_write(tsr_ga *ga, int node, uint64_t off, unsigned width, uint64_t value,
                     int sync)
{
    uint8_t bytes[GA_LINE];
    ga_store(bytes, width, value);
    ga_op local, *op = numbered(ga, sync ? &local : NULL, node, width);
    op->heap = !sync;
    COUNTER_ADD(ga_write_misses, 1);
    ga_send_put(op, off, bytes, width, 0);
    if (sync)
        waiter_wait(&op->w);
}

static int drained(void *arg)
{
    const sequencer *s = arg;
    for (int p = 0; p < cfg.nodes; p++)
        if (atomic_load(&s->peers[p].acked) != s->peers[p].outbound)
            return 0;
    return 1;
}

static void sq_fence(tsr_ga *ga) { ga_wait_for(drained, ga->state); }

const ga_engine ga_sequencer = {
    .name = "sequencer",
    .create = sq_create,
    .destroy = sq_destroy,
    .read = sq_read,
    .write = sq_write,
    .read_async = sq_read_async,
    .fence = sq_fence,
};
