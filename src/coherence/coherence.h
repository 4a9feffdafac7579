/*
 * coherence.h - the coherence layer as synchronization sees it.
 *
 * Release consistency: a release (unlock, barrier arrival) first ends this
 * node's interval in every protocol (coh_release), then hands on each
 * protocol's payload; an acquire (lock grant, barrier departure) ends the
 * interval too and applies the payloads it receives. What the payloads say
 * (write notices, vector timestamps, data bound to a lock) is each
 * protocol's own business: locks and barriers carry them as frames
 * (payload.h) through the hooks of protocol.h.
 */
#ifndef TSR_COHERENCE_H
#define TSR_COHERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "coherence/payload.h"
#include "tessera.h"

void coh_init(void);

/* What a protocol needs of the synchronization layer, which lies above
 * this one: Munin's collective hints pass barriers, and a read of data
 * bound to a lock peeks at the lock. sync lends both at its init
 * (lock_init), so the protocols call up through these pointers and no
 * include of theirs points up a layer. */
typedef struct coh_sync_ops {
    void (*barrier)(void);
    void (*lock_peek)(int lock);
    /* Sends this node's gathered barrier arrivals on toward the root now
     * (sync/gather.c), for a protocol whose barrier_eager just turned on;
     * comm thread. */
    void (*arrivals_flush)(void);
} coh_sync_ops;
extern coh_sync_ops coh_sync;
void coh_lend_sync(const coh_sync_ops *ops);
/* Gives pages [first, first+n) to the allocation's protocol and homes. */
void coh_map(uint32_t first, uint32_t n, const tsr_attr *attr);
/* Hands pages [first, first+n) of an allocation being freed back to its
 * protocol. */
void coh_unmap(uint32_t first, uint32_t n);
/* tsr_free_local gave back pages [first, first+n), all of one run of this
 * node's arena: its protocol may make every node forget them, and then
 * they belong to no protocol (protocol.h: free_local). */
void coh_free_local(uint32_t first, uint32_t n);
/* Collective (every node, before its next lock or barrier): memory this
 * node allocates alone (tsr_malloc) may use `proto` from now on. */
void coh_prepare_local(tsr_proto_t proto);
/* The node's protocol lock (async-signal-safe, not recursive). The fault
 * path and range checks take it themselves; the synchronization layer
 * holds it across its calls to coh_sync_point, coh_release,
 * coh_barrier_release, coh_barrier_done and payload.h's coh_lock_request,
 * coh_lock_acquire, coh_lock_release, coh_lock_handoff and
 * coh_barrier_arrival, which therefore never take it. Never held while
 * waiting for another application thread. */
void coh_enter(void);
void coh_leave(void);
/* The name of a protocol that serves one thread only and keeps pages
 * (Munin), or NULL: calls from other threads are refused then. */
const char *coh_one_thread_kept(void);
/* Entry from the fault handler, any thread; returns -1 when addr is not shared memory
 * that Tessera manages (the fault is then the program's own). */
int coh_fault(void *addr, int is_write);

/* The application thread holds no lock and is about to synchronize
 * (tsr_lock, the end of tsr_unlock, a barrier's entry: `barrier`):
 * protocol.h's sync_point. */
void coh_sync_point(int barrier);
/* A range check (range.c, tsr_range_*): makes the pages of count blocks of
 * len bytes, step bytes apart from addr, consistent for reading or writing,
 * as faults on them would; bytes outside the shared memory are ignored.
 * Returns 1 if some page needed protocol work. Any thread. */
int coh_range(const void *addr, size_t len, size_t step, size_t count, int is_write);
/* Registers the range checks' counters; counts a fault that reached a protocol. */
void coh_range_init(void);
void coh_count_fault(void);

/* Flushes every protocol's writes of the current interval (lock release). */
void coh_release(void);
/* The same at a barrier arrival: sent[node] (cfg.nodes counters, zeroed by
 * the caller) counts the messages sent without acks that `node` must
 * receive before it leaves the barrier (see tsr_protocol.flush). */
void coh_barrier_release(uint32_t *sent);
/* At barrier departure: waits for the `expected` counted messages of the
 * epoch, starts a new epoch, applies the departure's frames and tells every
 * protocol (tsr_protocol.barrier_done). Returns -1 if the frames are
 * malformed. */
int coh_barrier_done(const void *departure, size_t len, uint32_t expected);
/* After the last coh_barrier_done of a barrier (two for a parked node):
 * tells every protocol (tsr_protocol.barrier_left). */
void coh_barrier_left(void);
/* The root, before the departure: parked `node` applies it only with the
 * next barrier's (tsr_protocol.barrier_held). */
void coh_barrier_held(int node);
/* Whether a protocol needs every barrier arrival at the root as soon as a
 * node has it (tsr_protocol.barrier_eager). */
int coh_barrier_eager(void);

/* A replicated sequential section (api/fork.c) begins or ends, each after
 * a barrier (whose flush must leave the section's writes alone): each
 * protocol keeps the section's writes local
 * (tsr_protocol.replicate_begin/end). Stops the job if a protocol that has
 * pages cannot. */
void coh_replicate_begin(void);
void coh_replicate_end(void);
/* tsr_finalize, past its last barrier: no page's access changes after this
 * (the comm thread's included), so that the globals can be unshared. */
void coh_close(void);
/* Whether a replicated section is running on this node. */
int coh_replicating(void);
/* A protocol kept a page written in a section local (the named counter
 * replicated_writes). Async-signal-safe. */
void coh_replicated_write(void);

#endif
