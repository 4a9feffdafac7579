/*
 * rma.h - one-sided reads and writes of memory a peer exposed, for
 * backends that have them (ucx: ucp_get_nbx and ucp_put_nbx), so that a
 * node can copy a page from its home without the home's comm thread
 * running a handler (coherence/hlrc/hlrc_fetch.c). Backends without them
 * say so (transport_rma_ready), and their callers ask by message.
 *
 * A node exposes its segments before transport_start; the backend
 * registers them and hands each peer the keys with its address at start.
 * A peer may only read RMA_PAGES and RMA_META; RMA_MARKS is the one
 * segment a peer writes, bytes whose only meaning is "copied" (hlrc.c), so
 * nothing a peer writes there can break more than a notice's necessity.
 */
#ifndef TSR_RMA_H
#define TSR_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "transport/wait.h"

enum { RMA_PAGES, RMA_META, RMA_MARKS, RMA_SEGS };

/* One get (put == 0) or put of len bytes at offset off of the peer's
 * segment seg, into or from buf. `fence`: not begun at the peer before
 * every earlier operation of its batch has completed there. */
typedef struct rma_op {
    void *buf;
    uint64_t off;
    uint32_t len;
    uint8_t seg, put, fence;
} rma_op;

/* A batch handed to the backend: it ends the waiter when every operation
 * has completed, having set `failed` if any did not. */
typedef struct rma_batch {
    struct rma_batch *next;
    const rma_op *ops;
    int n, node;
    _Atomic int failed, pending; /* pending: the backend's count */
    waiter w;
} rma_batch;

/* Before transport_start: segment seg of this node is [base, base+len). */
void transport_expose(int seg, void *base, size_t len);
/* The segment this node exposed (len 0: none). */
void *transport_exposed(int seg, size_t *len);
/* 1 when this node can read and write node's segments one-sided. Any
 * thread, async-signal-safe. */
int transport_rma_ready(int node);
/* Runs ops at node, in order where they ask for a fence, and waits for
 * them. 0 when all completed; -1 when one failed (out of the segment, or
 * the peer's fabric refused it): the caller then asks by message. Any
 * application thread, async-signal-safe (the fault path). */
int transport_rma(int node, const rma_op *ops, int n);

/* For rma.c: the backend's hooks (core.c). */
int core_rma_ready(int node);
void core_rma(int node, rma_batch *b);

#endif
