/*
 * sync.h - locks and barriers: the points where release consistency makes
 * writes visible.
 *
 * Locks have a manager node (id mod N) that queues requests in FIFO order
 * and keeps, per lock, the write notices its releasers handed in; a grant
 * carries them to the next acquirer. The barrier has one manager (node 0)
 * that collects every node's notices and sends back their union.
 */
#ifndef TSR_SYNC_H
#define TSR_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "coherence/notice.h"
#include "sync/collective.h"

void lock_init(void);
void barrier_init(void);
/* The barrier that ends (tsr_alloc) or begins (tsr_free) a collective call,
 * or is one (tsr_barrier): carries the call's signature to the manager. */
void barrier_collective(const coll_sig *sig);
/* At the lock's manager: the data bound to lock `id` (tsr_hint_lock_data)
 * that the next grant will carry. */
void lock_set_data(int id, const void *data, size_t len);
/* Whether this node holds lock `id` (the stall detector asks). */
int lock_held_here(int id);
/* At a barrier arrival: adds the releases sent to each manager since the
 * last barrier to sent[] (the barrier's counted messages). */
void lock_count_releases(uint32_t *sent);
/* Drops lock notices that a barrier has made every node act on. */
void lock_prune(const notice_set *global);

#endif
