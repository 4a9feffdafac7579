/*
 * udp_rel.c - sequence numbers, acknowledgements, retransmission with
 * backoff, de-duplication, fragmentation and the window (udp_rel.h).
 *
 * The sending side of a peer is guarded by its spin lock, since any thread
 * sends, the fault path included: nothing here allocates on that side. The
 * receiving side belongs to the comm thread, which alone allocates (a
 * datagram that arrived ahead of its turn is copied until its turn comes).
 */
#include "transport/udp_rel.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "transport/stream.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(udp_retransmits, "udp: datagrams sent again (not acknowledged in time)");
STATS_COUNTER(udp_duplicates, "udp: datagrams dropped as already received");
STATS_COUNTER(udp_out_of_window, "udp: datagrams dropped as numbered past the window");
STATS_COUNTER(udp_bad_acks, "udp: datagrams dropped for acknowledging numbers never sent");
STATS_COUNTER(udp_multicasts, "udp: datagrams sent once to the job's IP multicast group");
STATS_COUNTER(udp_unordered_early, "udp: unordered messages delivered before an earlier one");

/* The first wait for an acknowledgement, and the longest: the wait doubles
 * with each try. Loopback answers in microseconds, but the receiver's comm
 * thread may be descheduled on a loaded host; sending early costs only a
 * duplicate, which the receiver drops. */
#define RTO_MAX_SHIFT 6

static const rel_ops *ops;
#define DELIVERED ((void *)1)

void rel_setup(const rel_ops *o)
{
    ops = o;
    stats_register(&udp_retransmits);
    stats_register(&udp_duplicates);
    stats_register(&udp_out_of_window);
    stats_register(&udp_bad_acks);
    stats_register(&udp_unordered_early);
    stats_register(&udp_multicasts);
}

void rel_init(rel_peer *p, int node)
{
    memset(p, 0, sizeof *p);
    p->node = node;
}

/* A message several peers share (heap == REL_SHARED, this layer's own
 * value): freed by the last. */
#define REL_SHARED 2
typedef struct shared_msg {
    _Atomic int refs;
    am_msg m;
} shared_msg;

static void release_msg(am_msg *m)
{
    if (m && m->heap == 1) {
        free(m);
    } else if (m && m->heap == REL_SHARED) {
        shared_msg *s = (shared_msg *)((char *)m - offsetof(shared_msg, m));
        if (atomic_fetch_sub(&s->refs, 1) == 1)
            free(s);
    }
}

void rel_unshare(am_msg *shared) { free((char *)shared - offsetof(shared_msg, m)); }

am_msg *rel_share(const am_msg *m, int members)
{
    shared_msg *s = malloc(sizeof *s + m->hdr.len);
    if (!s)
        return NULL;
    atomic_init(&s->refs, members);
    s->m = *m;
    if (m->hdr.len)
        memcpy(s + 1, m->payload, m->hdr.len);
    s->m.payload = s + 1;
    s->m.heap = REL_SHARED;
    s->m.sent = 0;
    return &s->m;
}

/* The pieces (header, payload, padding) of m's stream bytes [off, off + len).
 * They point into m itself, which outlives the datagram's sending. */
static int fragment_iov(am_msg *m, size_t off, size_t len, struct iovec iov[3])
{
    static const char zeros[8];
    const char *part[3] = {(const char *)&m->hdr, m->payload, zeros};
    size_t size[3] = {STREAM_HDR, m->hdr.len, STREAM_PAD8(m->hdr.len) - m->hdr.len};
    int k = 0;
    for (int i = 0; i < 3 && len; i++) {
        if (off >= size[i]) {
            off -= size[i];
            continue;
        }
        size_t take = size[i] - off < len ? size[i] - off : len;
        iov[k++] = (struct iovec){(void *)(part[i] + off), take};
        off = 0;
        len -= take;
    }
    return k;
}

/* The acknowledgement to send now: the next number expected, and the
 * bitmap made against that number. A bitmap read against another number
 * claims datagrams that have not arrived, and the peer would never send
 * them again. The comm thread changes the two together inside an odd
 * ack_version (one writer: a sequence lock); a sender that finds them
 * changing sends no bitmap, which claims nothing beyond the number and is
 * always true. Wait-free, so the fault path may send. */
static void ack_now(rel_peer *p, uint32_t *ack, uint64_t *sack)
{
    uint32_t v = atomic_load_explicit(&p->ack_version, memory_order_acquire);
    *ack = atomic_load_explicit(&p->expect, memory_order_relaxed);
    *sack = atomic_load_explicit(&p->sack, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if ((v & 1) || atomic_load_explicit(&p->ack_version, memory_order_relaxed) != v)
        *sack = 0;
}

/* The comm thread's side of ack_now, around a change of expect and the
 * bitmap together: the version turns odd before either store (the fence)
 * and even after both (the release). */
static void ack_change_begin(rel_peer *p)
{
    uint32_t v = atomic_load_explicit(&p->ack_version, memory_order_relaxed);
    atomic_store_explicit(&p->ack_version, v + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void ack_change_end(rel_peer *p)
{
    uint32_t v = atomic_load_explicit(&p->ack_version, memory_order_relaxed);
    atomic_store_explicit(&p->ack_version, v + 1, memory_order_release);
}

/* Sends the datagram of slot seq, with the acknowledgement of the moment.
 * Under p->lock. */
static void transmit(rel_peer *p, uint32_t seq)
{
    rel_slot *s = &p->slot[seq % REL_WINDOW];
    struct iovec iov[3];
    int k = fragment_iov(s->m, s->off, s->len, iov);
    rel_hdr h = {REL_MAGIC, (uint16_t)cfg.node, (uint16_t)p->node, 0, seq, 0, 0, s->kind,
                 s->len, 0};
    ack_now(p, &h.ack, &h.sack);
    p->ack_out = h.ack;
    p->sack_out = h.sack;
    s->tries++;
    uint32_t shift = s->tries - 1 < RTO_MAX_SHIFT ? s->tries - 1 : RTO_MAX_SHIFT;
    s->due_ns = ops->now_ns() + (REL_RTO_NS << shift);
    ops->emit(p->node, &h, iov, k);
}

/* Puts the next fragment (or unordered message) in the window: 1 if there
 * was one and room for it. Under p->lock. */
static int fill_slot(rel_peer *p)
{
    if (p->next - p->base >= REL_WINDOW || (!p->u_head && !p->q_head))
        return 0;
    rel_slot *s = &p->slot[p->next % REL_WINDOW];
    am_msg *m;
    if ((m = p->u_head)) {
        p->u_head = m->next;
        *s = (rel_slot){m, 0, (uint16_t)STREAM_BYTES(m->hdr.len), REL_UNORDERED, 1, 0, 0};
        ops->queued(p->node, -(long)s->len);
    } else {
        m = p->q_head;
        size_t left = STREAM_BYTES(m->hdr.len) - m->sent;
        size_t len = left < REL_FRAG ? left : REL_FRAG;
        *s = (rel_slot){m, m->sent, (uint16_t)len, REL_DATA, len == left, 0, 0};
        m->sent += len;
        ops->queued(p->node, -(long)len);
        if (s->last)
            p->q_head = m->next;
    }
    /* Whether the transport frees m is read now: a caller-owned message
     * may be gone before its last fragment is acknowledged cumulatively
     * (its reply came first, through the selective bitmap). */
    if (m->heap != 1 && m->heap != REL_SHARED)
        s->last = 0;
    transmit(p, p->next++);
    return 1;
}

void rel_post(rel_peer *p, am_msg *m, int unordered)
{
    spin_lock(&p->lock);
    if (p->closed) {
        spin_unlock(&p->lock);
        release_msg(m);
        return;
    }
    m->next = NULL;
    m->sent = 0;
    unordered = unordered && STREAM_BYTES(m->hdr.len) <= REL_FRAG;
    am_msg **head = unordered ? &p->u_head : &p->q_head;
    am_msg **tail = unordered ? &p->u_tail : &p->q_tail;
    if (*head)
        (*tail)->next = m;
    else
        *head = m;
    *tail = m;
    ops->queued(p->node, (long)STREAM_BYTES(m->hdr.len));
    while (fill_slot(p))
        ;
    spin_unlock(&p->lock);
}

static int multicast_fits(rel_peer **peers, int n, uint32_t frags)
{
    for (int i = 0; i < n; i++) {
        rel_peer *p = peers[i];
        if (p->closed || p->q_head || p->u_head || p->next - p->base + frags > REL_WINDOW)
            return 0;
    }
    return 1;
}

int rel_multicast(rel_peer **peers, int n, am_msg *m)
{
    size_t total = STREAM_BYTES(m->hdr.len);
    uint32_t frags = (uint32_t)((total + REL_FRAG - 1) / REL_FRAG);
    rel_member members[n];
    for (int i = 0; i < n; i++)
        spin_lock(&peers[i]->lock);
    int fits = total <= REL_MULTICAST_MAX && multicast_fits(peers, n, frags);
    for (size_t off = 0; fits && off < total; off += REL_FRAG) {
        uint16_t len = (uint16_t)(total - off < REL_FRAG ? total - off : REL_FRAG);
        uint64_t due = ops->now_ns() + REL_RTO_NS;
        for (int i = 0; i < n; i++) {
            rel_peer *p = peers[i];
            uint32_t seq = p->next++;
            p->slot[seq % REL_WINDOW] =
                (rel_slot){m, off, len, REL_DATA, off + len == total, 1, due};
            p->ack_out = atomic_load_explicit(&p->expect, memory_order_relaxed);
            p->sack_out = 0;
            members[i] = (rel_member){(uint16_t)p->node, 0, seq, p->ack_out, 0, 0};
        }
        struct iovec iov[3];
        int k = fragment_iov(m, off, len, iov);
        rel_hdr h = {REL_MAGIC, (uint16_t)cfg.node, REL_GROUP, 0, 0, 0, 0, REL_MULTICAST, len,
                     (uint32_t)n};
        COUNTER_ADD(udp_multicasts, 1);
        ops->emit_group(&h, members, iov, k);
    }
    for (int i = n - 1; i >= 0; i--)
        spin_unlock(&peers[i]->lock);
    return fits;
}

/* Under p->lock: the peer has every datagram below ack, and those the
 * bitmap names (bit i: ack + 1 + i). -1 if it names one never sent. An
 * acknowledgement behind base is stale (its datagram was overtaken, or
 * duplicated): it says nothing new. */
static int take_ack(rel_peer *p, uint32_t ack, uint64_t sack)
{
    if ((int32_t)(ack - p->base) < 0)
        return 0;
    uint32_t top = sack ? ack + 64 - (uint32_t)__builtin_clzll(sack) : ack;
    if (ack - p->base > p->next - p->base || (sack && top - p->base >= p->next - p->base))
        return -1;
    for (; p->base != ack; p->base++) {
        rel_slot *s = &p->slot[p->base % REL_WINDOW];
        if (s->last)
            release_msg(s->m);
        s->m = NULL;
    }
    for (uint64_t bits = sack; bits; bits &= bits - 1)
        p->slot[(ack + 1 + (uint32_t)__builtin_ctzll(bits)) % REL_WINDOW].tries = 0;
    /* A hole below a datagram that arrived is most likely lost: it goes
     * again at once, the first time (fast retransmission). */
    for (uint32_t seq = ack; seq != top; seq++)
        if (p->slot[seq % REL_WINDOW].tries == 1) {
            COUNTER_ADD(udp_retransmits, 1);
            transmit(p, seq);
        }
    while (fill_slot(p))
        ;
    return 0;
}

static void update_sack(rel_peer *p)
{
    uint32_t expect = atomic_load_explicit(&p->expect, memory_order_relaxed);
    uint64_t sack = 0;
    for (uint32_t i = 0; i < 64 && i + 1 < REL_WINDOW; i++)
        if (p->held[(expect + 1 + i) % REL_WINDOW])
            sack |= 1ull << i;
    atomic_store_explicit(&p->sack, sack, memory_order_relaxed);
}

/* Delivers the datagram numbered expect, then every one held after it.
 * The number moves first, so that a reply a handler sends acknowledges
 * the request it answers. */
static void deliver_in_order(rel_peer *p, int kind, const void *data, size_t len)
{
    void *copy = NULL; /* a held datagram's copy, freed once delivered */
    for (;;) {
        uint32_t seq = atomic_load_explicit(&p->expect, memory_order_relaxed);
        ack_change_begin(p);
        atomic_store_explicit(&p->expect, seq + 1, memory_order_relaxed);
        p->held[seq % REL_WINDOW] = NULL;
        update_sack(p);
        ack_change_end(p);
        if (kind == REL_UNORDERED)
            ops->deliver_unordered(p->node, data, len);
        else if (kind == REL_DATA)
            ops->deliver(p->node, data, len);
        free(copy);
        unsigned i = (seq + 1) % REL_WINDOW;
        void *next = p->held[i];
        if (!next)
            return;
        int early = next == DELIVERED; /* an unordered one, delivered on arrival */
        copy = early ? NULL : next;
        kind = early ? 0 : p->held_kind[i];
        data = next;
        len = p->held_len[i];
    }
}

/* Keeps a datagram that arrived ahead of its turn (an unordered one is
 * delivered now, and only its number kept). */
static void hold(rel_peer *p, const rel_hdr *h, const void *data)
{
    unsigned i = h->seq % REL_WINDOW;
    if (h->kind == REL_UNORDERED) {
        p->held[i] = DELIVERED;
        update_sack(p);
        COUNTER_ADD(udp_unordered_early, 1);
        ops->deliver_unordered(p->node, data, h->len);
        return;
    }
    void *copy = malloc(h->len ? h->len : 1);
    if (!copy)
        return; /* as if lost: it will come again */
    memcpy(copy, data, h->len);
    p->held[i] = copy;
    p->held_len[i] = h->len;
    p->held_kind[i] = (uint8_t)h->kind;
    update_sack(p);
}

int rel_receive(rel_peer *p, const rel_hdr *h, const void *data)
{
    spin_lock(&p->lock);
    int bad = take_ack(p, h->ack, h->sack);
    spin_unlock(&p->lock);
    if (bad) {
        COUNTER_ADD(udp_bad_acks, 1);
        return -1;
    }
    if (h->kind == REL_ACK)
        return 0;
    uint32_t expect = atomic_load_explicit(&p->expect, memory_order_relaxed);
    uint32_t d = h->seq - expect;
    if (d >= REL_WINDOW || (d && p->held[h->seq % REL_WINDOW])) {
        if (d < REL_WINDOW || d > UINT32_MAX / 2) {
            COUNTER_ADD(udp_duplicates, 1);
            p->ack_due = 2; /* our acknowledgement was lost: say it again */
        } else {
            COUNTER_ADD(udp_out_of_window, 1);
        }
        return 0;
    }
    if (!p->ack_due)
        p->ack_due = 1;
    if (d == 0)
        deliver_in_order(p, h->kind, data, h->len);
    else
        hold(p, h, data);
    return 0;
}

void rel_flush_ack(rel_peer *p)
{
    if (!p->ack_due)
        return;
    spin_lock(&p->lock);
    uint32_t ack;
    uint64_t sack;
    ack_now(p, &ack, &sack);
    if (!p->closed && (p->ack_due == 2 || ack != p->ack_out || sack != p->sack_out)) {
        rel_hdr h = {REL_MAGIC, (uint16_t)cfg.node, (uint16_t)p->node, 0, 0, ack, sack,
                     REL_ACK, 0, 0};
        p->ack_out = ack;
        p->sack_out = sack;
        ops->emit(p->node, &h, NULL, 0);
    }
    p->ack_due = 0;
    spin_unlock(&p->lock);
}

uint64_t rel_retransmit(rel_peer *p, uint64_t now)
{
    uint64_t next_due = UINT64_MAX;
    spin_lock(&p->lock);
    for (uint32_t seq = p->base; seq != p->next; seq++) {
        rel_slot *s = &p->slot[seq % REL_WINDOW];
        if (!s->tries)
            continue; /* selectively acknowledged */
        if (s->due_ns <= now) {
            COUNTER_ADD(udp_retransmits, 1);
            transmit(p, seq);
        }
        if (s->due_ns < next_due)
            next_due = s->due_ns;
    }
    spin_unlock(&p->lock);
    return next_due == UINT64_MAX ? UINT64_MAX : next_due > now ? next_due - now : 0;
}

int rel_idle(rel_peer *p)
{
    spin_lock(&p->lock);
    int idle = p->closed || (!p->q_head && !p->u_head && p->base == p->next);
    spin_unlock(&p->lock);
    return idle;
}

/* Under p->lock: releases every message still queued or in flight. */
static void drop_all(rel_peer *p)
{
    for (; p->base != p->next; p->base++) {
        rel_slot *s = &p->slot[p->base % REL_WINDOW];
        if (s->last)
            release_msg(s->m);
        s->m = NULL;
    }
    for (am_msg **q = &p->q_head; q; q = q == &p->q_head ? &p->u_head : NULL)
        while (*q) {
            am_msg *m = *q;
            *q = m->next;
            ops->queued(p->node, -(long)(STREAM_BYTES(m->hdr.len) - m->sent));
            release_msg(m);
        }
}

void rel_close(rel_peer *p)
{
    spin_lock(&p->lock);
    p->closed = 1;
    drop_all(p);
    spin_unlock(&p->lock);
}

void rel_free(rel_peer *p)
{
    rel_close(p);
    for (int i = 0; i < REL_WINDOW; i++)
        if (p->held[i] != DELIVERED)
            free(p->held[i]);
}
