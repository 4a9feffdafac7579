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
static int writable;

void transport_expose(int seg, void *base, size_t len)
{
    segs[seg].base = base;
    segs[seg].len = len;
}

void transport_expose_writable(void) { writable = 1; }

int transport_exposed_writable(void) { return writable; }

void *transport_exposed(int seg, size_t *len)
{
    *len = segs[seg].len;
    return segs[seg].base;
}

int transport_rma_ready(int node) { return core_rma_ready(node) != RMA_NO_ACCESS; }

int transport_rma_writable(int node) { return core_rma_ready(node) == RMA_WRITABLE; }

int transport_rma(int node, const rma_op *ops, int n)
{
    rma_batch b = {.ops = ops, .n = n, .node = node};
    waiter_init(&b.w, 1);
    am_expect_reply();
    core_rma(node, &b);
    waiter_wait(&b.w);
    return b.failed ? -1 : 0;
}
