/*
 * gather.h - a barrier's arrivals up the tree its departure comes down
 * (tree.h, gather.c), and the root's side of them, which barrier.c keeps.
 */
#ifndef TSR_GATHER_H
#define TSR_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "coherence/payload.h"
#include "sync/collective.h"

/* One node's arrival, as a MSG_BARRIER_ARRIVE entry carries it: its park
 * flag, its collective call and the protocols' frames (unread here). */
typedef struct arrival {
    int node;
    uint32_t park;
    coll_sig sig;
    const char *frames;
    size_t len;
} arrival;

void gather_init(void);
/* The application thread: this node's arrival at barrier `epoch`, with its
 * counters of messages sent (one per node) and the protocols' frames. */
void gather_arrive(uint64_t epoch, uint32_t park, const uint32_t *sent, const coll_sig *sig,
                   const pbuf *frames);
/* A MSG_FORK woke this node past barrier `next` - 1: the next arrivals to
 * gather are those of barrier `next` (none came for the one it slept
 * through, every other node waiting too). */
void gather_skip(uint64_t next);
/* Sends up at once what was gathered, and so every later arrival of this
 * barrier (coh_sync_ops.arrivals_flush: LRC's collection round counts each
 * node's arrival at node 0 as it comes). */
void gather_flush(void);

/* barrier.c, at the root (node 0): why it refuses `a` at barrier `epoch`
 * (NULL: it does not), changing nothing; then the counters of one message
 * and each of its arrivals, which end the barrier once all are in. */
const char *barrier_refuses(uint64_t epoch, const arrival *a);
void barrier_counted(const uint32_t *sent);
void barrier_arrived(const arrival *a);

#endif
