/*
 * rma.h - one-sided reads and writes of memory a peer exposed, for
 * backends that have them (ucx: ucp_get_nbx and ucp_put_nbx), so that a
 * node can copy a page from its home without the home's comm thread
 * running a handler (coherence/hlrc/hlrc_fetch.c). Backends without them
 * say so (transport_rma_ready), and their callers ask by message.
 *
 * A node exposes its segments before transport_start; the backend
 * registers them and hands each peer the keys with its address at start.
 * A peer may read every segment and put into RMA_MARKS, bytes whose only
 * meaning is "copied" (hlrc.c), so nothing a peer writes there can break
 * more than a notice's necessity. A node that takes diffs one-sided
 * (transport_expose_writable) lets its peers also put into RMA_PAGES and
 * increment 32-bit words of RMA_META (coherence/hlrc/hlrc_onesided.c).
 */
#ifndef TSR_RMA_H
#define TSR_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "transport/wait.h"

enum { RMA_PAGES, RMA_META, RMA_MARKS, RMA_SEGS };

/* RMA_GET: len bytes at offset off of the peer's segment seg into buf;
 * RMA_PUT: from buf; RMA_INC32: adds 1 to the aligned 32-bit word there
 * (len 4), atomically with the peer's own atomics on it, and leaves its
 * old value in buf. `fence`: not begun at the peer before every earlier
 * operation of its batch has completed there (UCX's fence, which UCX 1.13
 * keeps only among the operations of one of its transports). RMA_FLUSH,
 * last of its batch only (its other fields unused): the batch ends only
 * once every earlier operation has completed at the peer, whatever
 * transports UCX took, as a put's own completion does not say. */
enum { RMA_GET, RMA_PUT, RMA_INC32, RMA_FLUSH };
typedef struct rma_op {
    void *buf;
    uint64_t off;
    uint32_t len;
    uint8_t seg, kind, fence;
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
/* Before transport_start: peers may also write RMA_PAGES and increment
 * words of RMA_META. */
void transport_expose_writable(void);
int transport_exposed_writable(void);
/* The segment this node exposed (len 0: none). */
void *transport_exposed(int seg, size_t *len);
/* 1 when this node can read and write node's segments one-sided. Any
 * thread, async-signal-safe. */
int transport_rma_ready(int node);
/* 1 when node also lets this node write its pages and increment its page
 * table's words (transport_expose_writable there). Async-signal-safe. */
int transport_rma_writable(int node);
/* Runs ops at node, in order where they ask for a fence, and waits for
 * them. 0 when all completed; -1 when one failed (out of the segment, or
 * the peer's fabric refused it): the caller then asks by message. Any
 * application thread, async-signal-safe (the fault path). */
int transport_rma(int node, const rma_op *ops, int n);

/* For rma.c: the backend's hooks (core.c). What this node may do at
 * node: nothing, read it (and put marks), or write it too. */
enum { RMA_NO_ACCESS, RMA_READABLE, RMA_WRITABLE };
int core_rma_ready(int node);
void core_rma(int node, rma_batch *b);

#endif
