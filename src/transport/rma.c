/*
 * rma.c - one-sided access to the memory peers exposed (rma.h): the
 * segments this node exposes, and the wait for a batch that the backend's
 * comm thread runs (a UCX worker is serialized: the faulting thread does
 * not call UCX itself, transport/ucx.c).
 */
#include "transport/rma.h"

#include "transport/transport.h"

static struct {
    void *base;
    size_t len;
} segs[RMA_SEGS];

void transport_expose(int seg, void *base, size_t len)
{
    segs[seg].base = base;
    segs[seg].len = len;
}

void *transport_exposed(int seg, size_t *len)
{
    *len = segs[seg].len;
    return segs[seg].base;
}

int transport_rma_ready(int node) { return core_rma_ready(node); }

int transport_rma(int node, const rma_op *ops, int n)
{
    rma_batch b = {.ops = ops, .n = n, .node = node};
    waiter_init(&b.w, 1);
    am_expect_reply();
    core_rma(node, &b);
    waiter_wait(&b.w);
    return b.failed ? -1 : 0;
}
