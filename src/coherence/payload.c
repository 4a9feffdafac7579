/*
 * payload.c - frames of the protocols' synchronization payloads (see
 * payload.h). Writing: each protocol with the hook appends its frame, and
 * a protocol that writes nothing leaves no frame, so a lock or barrier
 * costs nothing for protocols that have no pages in play. Reading: the
 * frames are checked before any is handed on.
 */
#include "coherence/payload.h"

#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/protocol.h"
#include "util/log.h"

#define FRAME_HDR 8

void *pbuf_room(pbuf *b, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        if (!(b->p = realloc(b->p, cap)))
            log_die_status(1, "out of memory (%zu bytes of synchronization payload)", cap);
        b->cap = cap;
    }
    void *at = b->p + b->len;
    b->len += n;
    return at;
}

void pbuf_put(pbuf *b, const void *src, size_t n)
{
    if (n)
        memcpy(pbuf_room(b, n), src, n);
}

void pbuf_free(pbuf *b)
{
    free(b->p);
    *b = (pbuf){0};
}

/* Frame writing: the header is reserved, the protocol appends its bytes,
 * and the frame is dropped again if it appended none. */
static size_t frame_open(pbuf *out)
{
    size_t at = out->len;
    pbuf_room(out, FRAME_HDR);
    return at;
}

static void frame_close(pbuf *out, size_t at, uint32_t proto)
{
    size_t len = out->len - at - FRAME_HDR;
    if (!len) {
        out->len = at;
        return;
    }
    uint32_t hdr[2] = {proto, (uint32_t)len};
    memcpy(out->p + at, hdr, sizeof hdr);
    memset(pbuf_room(out, -len & 3), 0, -len & 3);
}

#define WRITE_FRAMES(out, hook, ...)                                                    \
    for (uint32_t i = 1; i < COH_NPROTO; i++)                                          \
        if (coh_protocols[i]->hook) {                                                   \
            size_t at_ = frame_open(out);                                               \
            coh_protocols[i]->hook(__VA_ARGS__);                                        \
            frame_close(out, at_, i);                                                   \
        }

void coh_lock_request(int lock, pbuf *out) { WRITE_FRAMES(out, lock_request, lock, out) }
void coh_lock_release(int lock, pbuf *out) { WRITE_FRAMES(out, lock_release, lock, out) }
void coh_lock_peek(int lock, pbuf *out) { WRITE_FRAMES(out, lock_peek, lock, out) }
void coh_barrier_arrival(pbuf *out) { WRITE_FRAMES(out, barrier_arrival, out) }
void coh_barrier_departure(pbuf *out) { WRITE_FRAMES(out, barrier_departure, out) }

/* The frame at *pos: its protocol and bytes; advances *pos. Returns -1 if
 * it is truncated, names no protocol, or breaks table order (each
 * protocol's frame comes once, in table order). */
static int frame_next(const void *p, size_t len, size_t *pos, uint32_t *proto,
                      const char **bytes, size_t *blen)
{
    uint32_t hdr[2];
    if (len - *pos < FRAME_HDR)
        return -1;
    memcpy(hdr, (const char *)p + *pos, sizeof hdr);
    size_t padded = ((size_t)hdr[1] + 3) & ~(size_t)3;
    if (hdr[0] <= *proto || hdr[0] >= COH_NPROTO || !hdr[1] ||
        padded > len - *pos - FRAME_HDR)
        return -1;
    *proto = hdr[0];
    *bytes = (const char *)p + *pos + FRAME_HDR;
    *blen = hdr[1];
    *pos += FRAME_HDR + padded;
    return 0;
}

int coh_frames_valid(const void *p, size_t len)
{
    uint32_t proto = 0;
    const char *bytes;
    size_t blen;
    for (size_t pos = 0; pos < len;)
        if (frame_next(p, len, &pos, &proto, &bytes, &blen))
            return -1;
    return 0;
}

/* Whether protocol pr has the reader of payloads of this kind. */
static int reads(const tsr_protocol *pr, payload_kind kind)
{
    switch (kind) {
    case PL_RELEASE:
        return pr->lock_merge != NULL;
    case PL_GRANT:
        return pr->lock_acquire != NULL;
    case PL_PEEKED:
        return pr->lock_peeked != NULL;
    case PL_ARRIVAL:
        return pr->barrier_merge != NULL;
    default: /* PL_DEPARTURE */
        return pr->barrier_apply != NULL;
    }
}

int coh_payload_check(payload_kind kind, int lock, const void *p, size_t len)
{
    if (coh_frames_valid(p, len))
        return -1;
    uint32_t proto = 0;
    const char *bytes = NULL;
    size_t blen = 0;
    for (size_t pos = 0; pos < len;) {
        frame_next(p, len, &pos, &proto, &bytes, &blen);
        const tsr_protocol *pr = coh_protocols[proto];
        if (!reads(pr, kind) || (pr->payload_check && pr->payload_check(kind, lock, bytes, blen)))
            return -1;
    }
    return 0;
}

/* Hands each frame to its protocol's reader, once every frame has passed
 * its protocol's check: a malformed frame leaves every protocol as it was. */
#define READ_FRAMES(kind, lock, p, len, hook, ...)                                      \
    do {                                                                                \
        if (coh_payload_check(kind, lock, p, len))                                      \
            return -1;                                                                  \
        uint32_t proto_ = 0;                                                            \
        const char *bytes = NULL;                                                       \
        size_t blen = 0;                                                                \
        for (size_t pos_ = 0; pos_ < (len);) {                                          \
            frame_next(p, len, &pos_, &proto_, &bytes, &blen);                          \
            if (coh_protocols[proto_]->hook(__VA_ARGS__))                               \
                return -1;                                                              \
        }                                                                               \
        return 0;                                                                       \
    } while (0)

int coh_lock_merge(int lock, int node, const void *p, size_t len)
{
    READ_FRAMES(PL_RELEASE, lock, p, len, lock_merge, lock, node, bytes, blen);
}

int coh_lock_acquire(int lock, const void *p, size_t len)
{
    /* Writes made before this acquire must reach their destinations before
     * a page they touch is dropped: end the interval first. */
    coh_release();
    READ_FRAMES(PL_GRANT, lock, p, len, lock_acquire, lock, bytes, blen);
}

int coh_lock_peeked(int lock, const void *p, size_t len)
{
    READ_FRAMES(PL_PEEKED, lock, p, len, lock_peeked, lock, bytes, blen);
}

int coh_barrier_merge(int node, const void *p, size_t len)
{
    READ_FRAMES(PL_ARRIVAL, -1, p, len, barrier_merge, node, bytes, blen);
}

int coh_barrier_apply(const void *p, size_t len)
{
    READ_FRAMES(PL_DEPARTURE, -1, p, len, barrier_apply, bytes, blen);
}

/* The frame of protocol i in a request, if any, at *pos (advanced past
 * it): each protocol's frame is looked at in table order, present or not. */
static int request_frame(const void *req, size_t rlen, size_t *pos, uint32_t i,
                         const char **bytes, size_t *blen)
{
    uint32_t proto = i - 1;
    size_t at = *pos;
    if (at >= rlen || frame_next(req, rlen, &at, &proto, bytes, blen) || proto != i)
        return 0;
    *pos = at;
    return 1;
}

int coh_lock_request_check(const void *req, size_t rlen)
{
    if (coh_frames_valid(req, rlen))
        return -1;
    size_t pos = 0;
    for (uint32_t i = 1; i < COH_NPROTO; i++) {
        const tsr_protocol *pr = coh_protocols[i];
        const char *bytes = NULL;
        size_t blen = 0;
        int mine = request_frame(req, rlen, &pos, i, &bytes, &blen);
        if (mine && !pr->lock_request)
            return -1;
        if (pr->lock_request_check && pr->lock_request_check(mine ? bytes : NULL, blen))
            return -1;
    }
    return pos == rlen ? 0 : -1;
}

/* A grant reads the request frame of each protocol, present or not; built
 * by the manager (lock_grant) or by the releaser (lock_handoff). */
static int grant_frames(int lock, int node, const void *req, size_t rlen, pbuf *out, int direct)
{
    if (coh_frames_valid(req, rlen))
        return -1;
    size_t pos = 0;
    for (uint32_t i = 1; i < COH_NPROTO; i++) {
        const tsr_protocol *pr = coh_protocols[i];
        int (*hook)(int, int, const void *, size_t, pbuf *) =
            direct ? pr->lock_handoff : pr->lock_grant;
        const char *bytes = NULL;
        size_t blen = 0;
        int mine = request_frame(req, rlen, &pos, i, &bytes, &blen);
        if (mine && !hook)
            return -1;
        if (hook) {
            size_t at = frame_open(out);
            if (hook(lock, node, mine ? bytes : NULL, mine ? blen : 0, out))
                return -1;
            frame_close(out, at, i);
        }
    }
    return 0;
}

int coh_lock_grant(int lock, int node, const void *req, size_t rlen, pbuf *out)
{
    return grant_frames(lock, node, req, rlen, out, 0);
}

int coh_lock_handoff(int lock, int node, const void *req, size_t rlen, pbuf *out)
{
    return grant_frames(lock, node, req, rlen, out, 1);
}
