/*
 * coherence.h - the coherence layer as synchronization sees it.
 *
 * Release consistency in four calls: a release (unlock, barrier arrival)
 * first flushes this node's writes to their homes and then hands on the
 * write notices it knows; an acquire (lock grant, barrier departure) applies
 * the notices it receives, invalidating stale cached pages. Notices travel
 * transitively: a node passes on the notices it learned as well as its own,
 * so an acquirer sees every write that happened before its acquire.
 */
#ifndef TSR_COHERENCE_H
#define TSR_COHERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "coherence/notice.h"
#include "tessera.h"

void coh_init(void);
/* Gives pages [first, first+n) to the allocation's protocol and homes. */
void coh_map(uint32_t first, uint32_t n, const tsr_attr *attr);
/* Hands pages [first, first+n) of an allocation being freed back to its
 * protocol. */
void coh_unmap(uint32_t first, uint32_t n);
/* Entry from the fault handler; returns -1 when addr is not shared memory
 * that Tessera manages (the fault is then the program's own). */
int coh_fault(void *addr, int is_write);

/* Flushes every protocol's writes of the current interval (lock release). */
void coh_release(void);
/* The same at a barrier arrival: sent[node] (cfg.nodes counters, zeroed by
 * the caller) counts the messages sent without acks that `node` must
 * receive before it leaves the barrier (see tsr_protocol.flush). */
void coh_barrier_release(uint32_t *sent);
/* Notices for a lock's releaser to send: those not yet sent with this lock.
 * Returns a malloc'd wire buffer and its length. */
void *coh_lock_notices(int lock, size_t *len);
/* Every notice known since the last barrier (barrier arrival). */
void *coh_all_notices(size_t *len);
/* Applies notices received with a lock grant. */
void coh_acquire(const void *notices, size_t len);
/* At barrier departure: waits for the `expected` counted messages of the
 * epoch, applies the union of notices and starts a new epoch. */
void coh_barrier_done(const notice_set *global, uint32_t expected);

/* Data bound to a lock (tsr_hint_lock_data): what this node gives up at
 * its release (malloc'd; NULL and *len 0 when nothing is bound), and its
 * installation at the next holder (writable) or a reader without the lock. */
void *coh_lock_data(int lock, size_t *len);
void coh_lock_install(int lock, const void *data, size_t len, int writable);

#endif
