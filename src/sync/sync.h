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

#include "coherence/notice.h"

void lock_init(void);
void barrier_init(void);
/* Drops lock notices that a barrier has made every node act on. */
void lock_prune(const notice_set *global);

#endif
