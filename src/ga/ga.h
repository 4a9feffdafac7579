/*
 * ga.h - the global address space layer (Themis): allocations, the
 * messages that read and write segments (wire.c), and the engines that
 * order them (ordercache.c, ordernocache.c, sequencer.c, over the line
 * descriptors of lines.c). docs/THEMIS.md describes them.
 *
 * Threads: the application thread issues accesses; the communication
 * thread runs the handlers, which serve other nodes' requests and complete
 * this node's (ga_op.done). An engine's state shared by both is guarded by
 * its own mutex, never held while waiting.
 */
#ifndef TSR_GA_H
#define TSR_GA_H

#include <stdatomic.h>
#include <stdint.h>

#include "tessera_ga.h"
#include "transport/transport.h"
#include "transport/wait.h"

#define GA_LINE 8 /* bytes of an OrderCache line: the widest access */

typedef struct ga_op ga_op;
/* Called on the communication thread with the reply's bytes (a read's
 * value, or nothing for a write's acknowledgement). */
typedef void (*ga_done_fn)(ga_op *op, const void *data, uint32_t len);

/* One request in flight, named by a request id (transport/request.h). */
struct ga_op {
    ga_done_fn done;
    tsr_ga *ga;
    int node;
    uint32_t seq;   /* Sequencer's number, 0 for the other engines */
    uint32_t len;   /* bytes a read expects back */
    uint32_t line;  /* OrderCache/OrderNoCache: the descriptor it holds */
    uint64_t tag;   /* OrderCache: the line's tag when it was sent */
    uint64_t off;   /* where in the line (or segment) the caller's bytes are */
    unsigned width; /* bytes the caller asked for */
    void *result;   /* where the value goes (async reads, bulk gets) */
    tsr_ga_signal *signal;
    waiter w;       /* a synchronous access waits on it */
    int heap;       /* allocated by its sender: done frees it */
    uint8_t dirty;  /* OrderCache async read: the line's dirty bytes when sent, */
    uint8_t mine[GA_LINE]; /* and their values, newer than the owner's */
};

typedef struct ga_engine {
    const char *name;
    void (*create)(tsr_ga *ga, const tsr_ga_attr *attr);
    void (*destroy)(tsr_ga *ga);
    uint64_t (*read)(tsr_ga *ga, int node, uint64_t off, unsigned width);
    void (*write)(tsr_ga *ga, int node, uint64_t off, unsigned width, uint64_t value, int sync);
    void (*read_async)(tsr_ga *ga, int node, uint64_t off, unsigned width, void *result,
                       tsr_ga_signal *signal);
    /* Every access issued so far has completed; OrderCache's lines are
     * written back and dropped. */
    void (*fence)(tsr_ga *ga);
} ga_engine;

extern const ga_engine ga_order_cache, ga_order_nocache, ga_sequencer;

struct tsr_ga {
    uint16_t id;
    tsr_ga_engine kind;
    size_t size;
    uint8_t *base; /* this node's segment */
    const ga_engine *engine;
    void *state;   /* the engine's */
    _Atomic uint32_t inflight; /* this node's requests not yet answered */
};

/* Limits of tsr_ga_alloc's arguments. */
#define GA_NODE_BITS_MAX 12
#define GA_ADDR_BITS_MAX 24
#define GA_SEGMENT_MAX ((uint64_t)1 << 40)

/* ---- ga.c ---- */
/* Registers the counters and the message handlers (at tsr_init). */
void ga_init(void);
/* Completes every access this node issued to any allocation: at
 * tsr_ga_barrier, and at tsr_finalize so that none is still in flight when
 * the connections close. */
void ga_fence_all(void);
/* The allocation `id` names, or NULL. */
tsr_ga *ga_lookup(uint64_t id);
/* Completion events: every completed request posts one, and the
 * application thread waits here for its condition (a line's outstanding
 * write acknowledged, a signal at zero, every request answered). */
void ga_event_post(void);
void ga_wait_for(int (*ready)(void *arg), void *arg);
/* Aligned atomic accesses of width 1, 2, 4 or 8 to a segment. */
uint64_t ga_atomic_load(const void *p, unsigned width);
void ga_atomic_store(void *p, unsigned width, uint64_t value);
/* Values in a private byte buffer, of width 1, 2, 4 or 8, unaligned. */
uint64_t ga_load(const void *p, unsigned width);
void ga_store(void *p, unsigned width, uint64_t value);
/* Stores an async read's value at its caller's result and lowers its signal. */
void ga_deliver(ga_op *op, uint64_t value);

/* ---- wire.c ---- */
void ga_wire_init(void);
/* Waits while the allocation has too many requests in flight. Called
 * before each access, never with an engine's lock held (the replies that
 * end the wait may need it). */
void ga_throttle(tsr_ga *ga);
/* Sends a read of len bytes at (node, off) for op (op->done gets them). */
void ga_send_get(ga_op *op, uint64_t off, uint32_t len);
/* Sends a write of len bytes; mask (8-byte writes only): the bytes that count. */
void ga_send_put(ga_op *op, uint64_t off, const void *bytes, uint32_t len, uint8_t mask);
/* Performs a checked request on this node's segment and replies (the
 * Sequencer calls it in sequence order). */
void ga_serve(tsr_ga *ga, int src, const tsr_msg_hdr *h, const void *payload);

/* ---- sequencer.c: the server side ---- */
/* A request numbered seq from src, already checked: served now if it is
 * the next one, otherwise kept until it is. */
void seq_arrive(tsr_ga *ga, int src, const tsr_msg_hdr *h, const void *payload, uint32_t seq);
/* Why seq cannot be the number of a request from src ("" if it can). */
const char *seq_refused(tsr_ga *ga, int src, uint32_t seq);

/* ---- stats: counters of every engine (ga.c registers them) ---- */
#include "stats/stats.h"
extern stats_counter ga_read_hits, ga_read_misses, ga_async_read_hits, ga_async_read_misses,
    ga_write_hits, ga_write_misses, ga_write_backs, ga_line_stalls, ga_fills_dropped,
    ga_requests, ga_out_of_order, ga_queue_peak;

#endif
