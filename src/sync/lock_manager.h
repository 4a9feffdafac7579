/*
 * lock_manager.h - the two halves of the lock hand-off (lock.c tells the
 * algorithm). A lock's manager (lock_manager.c) keeps the end of its queue,
 * knows which request cycle of each node is open, and answers reads of the
 * lock's bound data; the nodes (lock.c) ask, keep their successor and grant
 * it. Where one node plays both parts, each half calls the other instead
 * of sending it a message. A try (tsr_trylock) is a request the manager
 * refuses instead of queueing when the lock is held.
 */
#ifndef TSR_LOCK_MANAGER_H
#define TSR_LOCK_MANAGER_H

#include <stddef.h>
#include <stdint.h>

#include "coherence/payload.h"
#include "transport/transport.h"
#include "util/config.h"

/* A request waiting at its predecessor, with its payload (the grant is
 * built from it); under TSR_LOCK_HANDOFF=manager, in the manager's queue. */
typedef struct successor {
    int node; /* -1: none */
    void *req;
    size_t len;
    struct successor *next;
} successor;

static inline int lock_manager_of(int id) { return id % cfg.nodes; }

/* A lock slot (payload.h) as the wire names it, and the slot a message's
 * lock id names. */
uint64_t lock_wire_id(int slot);
int lock_slot(const tsr_msg_hdr *h);

/* A copy of a request or grant payload; out of memory stops the node. */
void *lock_copy(const void *p, size_t len);

/* The manager's and a node's steps return a verdict: NULL when the step
 * was taken, else the rule its message broke, and then it changed nothing.
 * A handler rejects such a message (lock_judge); on this node's own path
 * the same verdict is a bug, and stops the node (lock_own). */
void lock_judge(int src, const tsr_msg_hdr *h, const char *why);
void lock_own(const char *why, int id);

/* The manager's half (lock_manager.c): its tables and handlers, and the
 * steps a node takes at itself when it manages the lock. */
void lock_manager_init(void);
const char *lock_mgr_acquire(int id, int node, uint32_t cycle, const void *req, size_t rlen);
/* A try: granted as lock_mgr_acquire if the lock is free, else refused
 * (lock_send_refusal), never queued. */
const char *lock_mgr_try(int id, int node, uint32_t cycle, const void *req, size_t rlen);
const char *lock_mgr_release(int id, int node, uint32_t cycle, const void *payload,
                             size_t len);
const char *lock_mgr_bounced(int id, int from, int node, const void *req, size_t rlen);

/* The nodes' half (lock.c), for a manager that is also the node concerned:
 * a request forwarded to its predecessor, and a grant sent to its taker. */
const char *lock_forwarded(int id, int node, uint32_t cycle, const void *req, size_t rlen);
void lock_send_grant(int id, int node, const pbuf *out);
/* The refusal of node's try in request cycle `cycle`. */
void lock_send_refusal(int id, int node, uint32_t cycle);

#endif
