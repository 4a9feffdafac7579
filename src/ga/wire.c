/*
 * wire.c - the four messages of the global address space: a read
 * (MSG_GA_GET) and a write (MSG_GA_PUT) of a segment, and their replies.
 * Requests and replies go through the transport's unordered service: the
 * engines, not the network, keep accesses in order.
 *
 * Packing (msg.h): a request's arg0 is the offset, arg1 its request id,
 * arg2 the segment id in bits 0-15, then the length (reads) or the byte
 * mask (8-byte writes) in bits 16-31, and the Sequencer's number in bits
 * 32-63 (0: not sequenced). A reply's arg0 is that number again.
 */
#include <stdlib.h>
#include <string.h>

#include "ga/ga.h"
#include "transport/request.h"
#include "util/log.h"

#define SEG_OF(a2) ((uint16_t)(a2))
#define LEN_OF(a2) ((uint32_t)(((a2) >> 16) & 0xffff))
#define MASK_OF(a2) ((uint8_t)((a2) >> 16))
#define SEQ_OF(a2) ((uint32_t)((a2) >> 32))

static uint64_t pack(const ga_op *op, uint32_t lenmask)
{
    return op->ga->id | (uint64_t)lenmask << 16 | (uint64_t)op->seq << 32;
}

/* In-flight requests of one allocation are bounded, so that a program
 * issuing asynchronous writes without end cannot take every request id.
 * An access sends at most two requests after its ga_throttle. */
#define INFLIGHT_MAX 2048

static int below_max(void *arg) { return atomic_load(&((tsr_ga *)arg)->inflight) < INFLIGHT_MAX; }

void ga_throttle(tsr_ga *ga)
{
    if (!below_max(ga))
        ga_wait_for(below_max, ga);
}

static void launch(ga_op *op, int type, uint64_t off, uint64_t a2, const void *bytes,
                   uint32_t len, int reply)
{
    atomic_fetch_add(&op->ga->inflight, 1);
    COUNTER_ADD(ga_requests, 1);
    uint64_t id = req_open(op->node, reply, op);
    am_send_unordered(op->node, type, off, id, a2, bytes, len);
}

void ga_send_get(ga_op *op, uint64_t off, uint32_t len)
{
    op->len = len;
    launch(op, MSG_GA_GET, off, pack(op, len), NULL, 0, MSG_GA_GET_REP);
}

void ga_send_put(ga_op *op, uint64_t off, const void *bytes, uint32_t len, uint8_t mask)
{
    op->len = 0;
    launch(op, MSG_GA_PUT, off, pack(op, mask), bytes, len, MSG_GA_PUT_ACK);
}

/* ---- the owner's side ---------------------------------------------------- */

static int atomic_width(uint64_t off, uint32_t len)
{
    return (len == 1 || len == 2 || len == 4 || len == 8) && off % len == 0;
}

/* A line's dirty bytes go in with one compare-and-swap of the aligned
 * word, so a reader of any access inside it sees all of a write or none. */
static void masked_store(uint8_t *dst, const uint8_t *src, uint8_t mask)
{
    uint64_t bits = 0, value = ga_load(src, GA_LINE);
    for (int i = 0; i < GA_LINE; i++)
        if (mask & (1u << i))
            bits |= (uint64_t)0xff << (8 * i);
    uint64_t *word = (uint64_t *)dst;
    uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(word, &old, (old & ~bits) | (value & bits), 1,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

static void copy_in(uint8_t *dst, const uint8_t *src, uint32_t len, uint8_t mask, uint64_t off)
{
    if (mask) {
        masked_store(dst, src, mask);
    } else if (atomic_width(off, len)) {
        ga_atomic_store(dst, len, ga_load(src, len));
    } else {
        memcpy(dst, src, len);
    }
}

/* Aligned accesses of 1, 2, 4 and 8 bytes are single atomic loads and
 * stores, so that a 64-bit value is never seen half written. */
void ga_serve(tsr_ga *ga, int src, const tsr_msg_hdr *h, const void *payload)
{
    uint64_t off = h->arg[0];
    uint8_t *at = ga->base + off;
    uint32_t seq = SEQ_OF(h->arg[2]);
    if (h->type == MSG_GA_PUT) {
        copy_in(at, payload, h->len, MASK_OF(h->arg[2]), off);
        am_send_unordered(src, MSG_GA_PUT_ACK, seq, h->arg[1], 0, NULL, 0);
        return;
    }
    uint32_t len = LEN_OF(h->arg[2]);
    uint64_t word;
    void *out = atomic_width(off, len) ? &word : malloc(len);
    if (!out)
        log_die("out of memory serving a %u-byte global read", len);
    if (out == &word)
        ga_store(out, len, ga_atomic_load(at, len));
    else
        memcpy(out, at, len);
    am_send_unordered(src, MSG_GA_GET_REP, seq, h->arg[1], 0, out, len);
    if (out != &word)
        free(out);
}

/* What the table of msg.h cannot say: the segment exists here, the bytes
 * lie inside it, a mask comes with an aligned 8-byte write, a number only
 * with the Sequencer and one it can still expect. */
static const char *refused(tsr_ga *ga, int src, const tsr_msg_hdr *h)
{
    uint32_t len = h->type == MSG_GA_GET ? LEN_OF(h->arg[2]) : h->len;
    uint32_t seq = SEQ_OF(h->arg[2]);
    if (!ga)
        return "names no allocation of this node";
    if (len == 0)
        return "moves no bytes";
    if (h->arg[0] > ga->size || len > ga->size - h->arg[0])
        return "reaches past the end of the segment";
    if (h->type == MSG_GA_PUT && MASK_OF(h->arg[2]) && (len != GA_LINE || h->arg[0] % GA_LINE))
        return "has a byte mask but is not an aligned 8-byte write";
    if (seq && ga->kind != TSR_GA_SEQUENCER)
        return "is numbered, but the allocation has no Sequencer";
    if (ga->kind == TSR_GA_SEQUENCER && seq)
        return seq_refused(ga, src, seq);
    return "";
}

static void on_request(int src, const tsr_msg_hdr *h, void *payload)
{
    tsr_ga *ga = ga_lookup(SEG_OF(h->arg[2]));
    const char *why = refused(ga, src, h);
    if (*why) {
        am_reject(src, h, "%s", why);
        return;
    }
    uint32_t seq = SEQ_OF(h->arg[2]);
    if (seq)
        seq_arrive(ga, src, h, payload, seq);
    else
        ga_serve(ga, src, h, payload);
}

/* ---- the requester's side ------------------------------------------------ */

static void on_reply(int src, const tsr_msg_hdr *h, void *payload)
{
    ga_op *op = req_ctx(h->arg[1]);
    if (h->len != op->len) {
        am_reject(src, h, "%u bytes for the %u asked for", h->len, op->len);
        return;
    }
    if (h->arg[0] != op->seq) {
        am_reject(src, h, "answers request number %llu, not %u",
                  (unsigned long long)h->arg[0], op->seq);
        return;
    }
    req_close(h->arg[1]);
    tsr_ga *ga = op->ga;
    op->done(op, payload, h->len);
    atomic_fetch_sub(&ga->inflight, 1);
    ga_event_post();
}

void ga_wire_init(void)
{
    am_register(MSG_GA_GET, on_request);
    am_register(MSG_GA_PUT, on_request);
    am_register(MSG_GA_GET_REP, on_reply);
    am_register(MSG_GA_PUT_ACK, on_reply);
}
