/*
 * udp_rel.c - libFuzzer target: datagrams from an authenticated peer into
 * the udp backend's reliability layer (transport/udp_rel.c), with numbers,
 * acknowledgements and lengths of the input's choosing, as a peer that is
 * buggy or forged could send them. udp.c has checked what it checks before
 * (magic, addresses, token, kind, length); everything after that is this
 * layer's to get right.
 *
 * Each input is a sequence of 8-byte records, each one datagram to node 0
 * from node 1 and a few things node 0 does meanwhile:
 *
 *   u8 what  bits 0-1: REL_DATA, REL_UNORDERED or REL_ACK (3: DATA);
 *            bit 6: a long datagram; bit 7: a number far from the window
 *   s8 seq   the datagram's number, from the one node 0 expects next
 *   s8 ack   its acknowledgement, from the oldest node 0 has in flight
 *   u8 sack, u8 shift   its selective bitmap: sack << shift
 *   u8 len   data bytes beyond the first 4 (x31 when long)
 *   u8 post  node 0 sends post % 4 messages to node 1 first
 *   u8 tick  node 0's clock moves tick ms, then it retransmits and acks
 *
 * The data is not the input's: its first 4 bytes are the datagram's number
 * and the rest a pattern of it, so delivery can be checked exactly. Every
 * number is delivered at most once, with its own bytes; an ordered one
 * only once every number below it was delivered; node 0's window never
 * holds more than REL_WINDOW numbers, and never sends one outside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/stream.h"
#include "transport/udp_rel.h"
#include "util/config.h"

#define SEQS 65536 /* inputs are far shorter than this many records */

static rel_peer peer; /* node 0's view of node 1 */
static uint64_t clock_ns = 1;
static uint8_t delivered[SEQS];
static uint32_t lowest_missing; /* every number below it was delivered */

static uint8_t pattern(uint32_t seq, size_t k) { return (uint8_t)(seq * 7 + k); }

static void check_window(void)
{
    if (peer.next - peer.base > REL_WINDOW)
        __builtin_trap();
}

/* What node 0 sends: nothing travels, but it must be in the window. */
static void emit(int dest, const rel_hdr *h, const struct iovec *data, int n)
{
    (void)data;
    (void)n;
    if (dest != 1 || (h->kind != REL_ACK && h->seq - peer.base >= peer.next - peer.base))
        __builtin_trap();
}

static void emit_group(const rel_hdr *h, rel_member *members, const struct iovec *data, int n)
{
    (void)h, (void)members, (void)data, (void)n;
    __builtin_trap(); /* nothing here multicasts */
}

static void arrived(const void *data, size_t len, int ordered)
{
    uint32_t seq;
    if (len < sizeof seq)
        __builtin_trap();
    memcpy(&seq, data, sizeof seq);
    if (seq >= SEQS || delivered[seq] || (ordered && seq != lowest_missing))
        __builtin_trap();
    for (size_t k = sizeof seq; k < len; k++)
        if (((const uint8_t *)data)[k] != pattern(seq, k))
            __builtin_trap();
    delivered[seq] = 1;
    while (lowest_missing < SEQS && delivered[lowest_missing])
        lowest_missing++;
}

static void deliver(int src, const void *data, size_t len)
{
    if (src != 1)
        __builtin_trap();
    arrived(data, len, 1);
}

static void deliver_unordered(int src, const void *data, size_t len)
{
    if (src != 1)
        __builtin_trap();
    arrived(data, len, 0);
}

static uint64_t now_ns(void) { return clock_ns; }
static void queued(int dest, long bytes) { (void)dest, (void)bytes; }

static const rel_ops ops = {emit, emit_group, deliver, deliver_unordered, now_ns, queued};

static void post(int count)
{
    for (int i = 0; i < count; i++) {
        size_t len = (size_t)(i + 1) * 3000; /* up to two datagrams each */
        am_msg *m = calloc(1, sizeof *m + len);
        if (!m)
            abort();
        m->hdr = (tsr_msg_hdr){(uint32_t)len, MSG_ECHO_REQ, 0, {0, 0, 0}, 0};
        m->payload = m + 1;
        m->heap = 1;
        rel_post(&peer, m, 0);
        check_window();
    }
}

static void datagram(const uint8_t *r)
{
    static uint8_t data[REL_FRAG];
    uint16_t kind = (r[0] & 3) == 3 ? REL_DATA : (uint16_t)((r[0] & 3) + REL_DATA);
    uint32_t expect = atomic_load(&peer.expect);
    uint32_t seq = r[0] & 0x80 ? expect + ((uint32_t)r[1] << 24) : expect + (uint32_t)(int8_t)r[1];
    size_t len = kind == REL_ACK ? 0 : 4 + (r[0] & 0x40 ? (size_t)r[5] * 31 : r[5]);
    memcpy(data, &seq, sizeof seq);
    for (size_t k = sizeof seq; k < len; k++)
        data[k] = pattern(seq, k);
    rel_hdr h = {REL_MAGIC, 1, 0, 0, kind == REL_ACK ? 0 : seq,
                 peer.base + (uint32_t)(int8_t)r[2], (uint64_t)r[3] << (r[4] % 64), kind,
                 (uint16_t)len, 0};
    rel_receive(&peer, &h, data);
    check_window();
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    static int ready;
    if (!ready) {
        cfg.node = 0;
        cfg.nodes = 2;
        rel_setup(&ops);
        ready = 1;
    }
    rel_init(&peer, 1);
    memset(delivered, 0, sizeof delivered);
    lowest_missing = 0;
    for (size_t i = 0; i + 8 <= size; i += 8) {
        const uint8_t *r = in + i;
        post(r[6] % 4);
        datagram(r);
        clock_ns += (uint64_t)r[7] * 1000000;
        rel_retransmit(&peer, clock_ns);
        rel_flush_ack(&peer);
    }
    rel_free(&peer);
    return 0;
}
