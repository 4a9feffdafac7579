/*
 * tessera_ga.h - Themis' global address space (docs/THEMIS.md).
 *
 * A collective allocation gives every node a segment of the same size; a
 * global address is a node and an offset in that node's segment. Reads and
 * writes of 8, 16, 32 and 64 bits (each one atomic, the 64-bit ones too)
 * go to the owner over the network; their order is that of the Java and
 * Titanium model: one node sees its own accesses to an address in program
 * order, and every node sees every write made before a tsr_ga_barrier once
 * that barrier has returned. Writes of different nodes, or of one node to
 * different addresses, may be seen in any order before it.
 *
 * An engine enforces that order over a transport that may reorder messages,
 * chosen per allocation or for the job (TSR_GA_ENGINE): OrderCache, a
 * write-back software cache with one outstanding write per line;
 * OrderNoCache, its ordering without caching; Sequencer, sequence numbers
 * per pair of nodes, which also gives every node the same order of one
 * node's writes to one owner.
 *
 * Offsets must be aligned to the access's size. Every call here must come
 * from the thread that called tsr_init; tsr_ga_alloc, tsr_ga_free and
 * tsr_ga_barrier are collective.
 */
#ifndef TESSERA_GA_H
#define TESSERA_GA_H

#include <stddef.h>
#include <stdint.h>

#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_ga tsr_ga; /* one collective allocation */

typedef enum {
    TSR_GA_ENGINE_DEFAULT = 0, /* the job's: TSR_GA_ENGINE */
    TSR_GA_ORDER_CACHE,
    TSR_GA_ORDER_NOCACHE,
    TSR_GA_SEQUENCER,
} tsr_ga_engine;

typedef struct tsr_ga_attr {
    tsr_ga_engine engine;
    /* OrderCache's index: the low cache_node_bits of the node number above
     * the low cache_addr_bits of the line number (lines of 8 bytes), so
     * 2^(node_bits + addr_bits) lines. -1: TSR_GA_CACHE_NODE_BITS and
     * TSR_GA_CACHE_ADDR_BITS. */
    int cache_node_bits, cache_addr_bits;
} tsr_ga_attr;

#define TSR_GA_ATTR_DEFAULT {TSR_GA_ENGINE_DEFAULT, -1, -1}

/* Completion signal of asynchronous reads: set to zero by
 * tsr_ga_signal_init, raised by each read issued with it, lowered as each
 * completes. Only the runtime may change `pending`. */
typedef struct tsr_ga_signal {
    uint32_t pending;
} tsr_ga_signal;

/* Collective: a segment of `bytes` on every node, zeroed; attr NULL means
 * TSR_GA_ATTR_DEFAULT. Stops the job with a message on a bad argument. */
TSR_API tsr_ga *tsr_ga_alloc(size_t bytes, const tsr_ga_attr *attr);
/* Collective: waits for every access to it, then releases it everywhere. */
TSR_API void tsr_ga_free(tsr_ga *ga);
/* This node's segment (plain memory: other nodes' writes land in it). */
TSR_API void *tsr_ga_local(tsr_ga *ga);
TSR_API size_t tsr_ga_size(tsr_ga *ga);
/* The engine an allocation uses (TSR_GA_ENGINE_DEFAULT resolved). */
TSR_API tsr_ga_engine tsr_ga_engine_of(tsr_ga *ga);

/* Synchronous reads: the value at (node, offset). */
TSR_API uint8_t tsr_ga_read8(tsr_ga *ga, int node, size_t offset);
TSR_API uint16_t tsr_ga_read16(tsr_ga *ga, int node, size_t offset);
TSR_API uint32_t tsr_ga_read32(tsr_ga *ga, int node, size_t offset);
TSR_API uint64_t tsr_ga_read64(tsr_ga *ga, int node, size_t offset);

/* Synchronous writes: return once the owner holds the value. */
TSR_API void tsr_ga_write8(tsr_ga *ga, int node, size_t offset, uint8_t value);
TSR_API void tsr_ga_write16(tsr_ga *ga, int node, size_t offset, uint16_t value);
TSR_API void tsr_ga_write32(tsr_ga *ga, int node, size_t offset, uint32_t value);
TSR_API void tsr_ga_write64(tsr_ga *ga, int node, size_t offset, uint64_t value);

/* Asynchronous writes: return at once; complete by the next tsr_ga_barrier. */
TSR_API void tsr_ga_write8_async(tsr_ga *ga, int node, size_t offset, uint8_t value);
TSR_API void tsr_ga_write16_async(tsr_ga *ga, int node, size_t offset, uint16_t value);
TSR_API void tsr_ga_write32_async(tsr_ga *ga, int node, size_t offset, uint32_t value);
TSR_API void tsr_ga_write64_async(tsr_ga *ga, int node, size_t offset, uint64_t value);

/* Asynchronous reads: raise *signal, return at once; when the value comes,
 * store it at *result and lower *signal. */
TSR_API void tsr_ga_read8_async(tsr_ga *ga, int node, size_t offset, uint8_t *result,
                                tsr_ga_signal *signal);
TSR_API void tsr_ga_read16_async(tsr_ga *ga, int node, size_t offset, uint16_t *result,
                                 tsr_ga_signal *signal);
TSR_API void tsr_ga_read32_async(tsr_ga *ga, int node, size_t offset, uint32_t *result,
                                 tsr_ga_signal *signal);
TSR_API void tsr_ga_read64_async(tsr_ga *ga, int node, size_t offset, uint64_t *result,
                                 tsr_ga_signal *signal);

TSR_API void tsr_ga_signal_init(tsr_ga_signal *signal);
/* Returns when every read issued with signal has completed. Messages keep
 * being served meanwhile (by the communication thread). */
TSR_API void tsr_ga_signal_wait(tsr_ga_signal *signal);

/* Bulk transfers of any length and alignment: every earlier access of this
 * node to the allocation completes first (OrderCache also writes back and
 * drops its lines), then the bytes move; both return when they have. */
TSR_API void tsr_ga_get(tsr_ga *ga, int node, size_t offset, void *dst, size_t bytes);
TSR_API void tsr_ga_put(tsr_ga *ga, int node, size_t offset, const void *src, size_t bytes);

/* Collective: completes every access this node issued to any allocation
 * (OrderCache writes back and drops every line), then waits for every node
 * to do the same: after it, every node reads every write made before it. */
TSR_API void tsr_ga_barrier(void);

#ifdef __cplusplus
}
#endif

#endif
