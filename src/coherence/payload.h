/*
 * payload.h - the consistency payloads that locks and barriers carry for
 * the protocols, without knowing what they are.
 *
 * A lock request, grant, release, peek answer, barrier arrival and barrier
 * departure each carry a sequence of frames, one per protocol that has
 * something to say: (u32 protocol index, u32 length, bytes padded to 4).
 * Each protocol writes and reads its own frame through the hooks of its
 * table (protocol.h); sync/lock*.c and sync/barrier.c only move the bytes.
 */
#ifndef TSR_PAYLOAD_H
#define TSR_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "tessera.h"

/* A growing byte buffer. */
typedef struct pbuf {
    char *p;
    size_t len, cap;
} pbuf;

/* Appends n bytes of room and returns where they start. */
void *pbuf_room(pbuf *b, size_t n);
void pbuf_put(pbuf *b, const void *src, size_t n);
void pbuf_free(pbuf *b);

/* The `lock` of these hooks is a slot: 0 .. TSR_MAX_LOCKS-1 are the
 * program's locks, then one per pause flag (sync/flag.c). Only the locks
 * (sync/lock.c) know how a slot is named on the wire. */
#define COH_LOCK_SLOTS (TSR_MAX_LOCKS + TSR_MAX_FLAGS)

/* Each builds the frames of every protocol that has the hook. */
void coh_lock_request(int lock, pbuf *out);
/* Whether a lock request's frames are well formed for every protocol: 0,
 * or -1. Checked where a request arrives (acquire, forward, bounce), so
 * that the grant built from it later (coh_lock_grant, coh_lock_handoff)
 * cannot fail. */
int coh_lock_request_check(const void *req, size_t rlen);
/* At the lock's grantor: the grant for `node`, given the frames of its
 * request. Returns -1 when the request is malformed. */
int coh_lock_grant(int lock, int node, const void *req, size_t rlen, pbuf *out);
/* At the releaser, a grant straight to the next holder `node` instead of
 * a release to the manager; -1 when the request is malformed. */
int coh_lock_handoff(int lock, int node, const void *req, size_t rlen, pbuf *out);
void coh_lock_release(int lock, pbuf *out);
void coh_lock_peek(int lock, pbuf *out);
void coh_barrier_arrival(pbuf *out);
void coh_barrier_departure(pbuf *out);

/* The payloads a node reads, by what they are (tsr_protocol.payload_check). */
typedef enum {
    PL_RELEASE,   /* a release, at the lock's manager (lock_merge) */
    PL_GRANT,     /* a grant, at the acquirer (lock_acquire) */
    PL_PEEKED,    /* a peek's answer (lock_peeked) */
    PL_ARRIVAL,   /* a barrier arrival, at the root (barrier_merge) */
    PL_DEPARTURE, /* a barrier departure (barrier_apply) */
} payload_kind;

int coh_frames_valid(const void *p, size_t len);
/* Whether every frame of a payload of this kind (about `lock`, for lock
 * payloads) is one its protocol reads: 0, or -1. Changes nothing, so a
 * handler checks a payload whole where it arrives and rejects it
 * (am_reject) before any protocol has applied a frame. */
int coh_payload_check(payload_kind kind, int lock, const void *p, size_t len);
/* Each hands every frame to its protocol, once coh_payload_check has
 * passed them all; returns -1 (having changed nothing) when it does not. */
int coh_lock_merge(int lock, int node, const void *p, size_t len);
/* Ends this node's interval (every protocol flushes), then applies the
 * grant: the acquire of release consistency. */
int coh_lock_acquire(int lock, const void *p, size_t len);
int coh_lock_peeked(int lock, const void *p, size_t len);
int coh_barrier_merge(int node, const void *p, size_t len);
int coh_barrier_apply(const void *p, size_t len);

#endif
