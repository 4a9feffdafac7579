/*
 * udp_rel.h - the udp backend's reliability: what turns lossy, duplicating,
 * reordering datagrams into exactly-once messages, ordered per peer.
 *
 * Each direction of each pair of nodes is a numbered sequence of
 * datagrams. An ordered message is cut into fragments of the byte stream
 * stream.h defines (header, payload, padding), at most REL_FRAG bytes each,
 * one fragment a datagram, so the receiver puts messages of any size (up to
 * MSG_FRAMES_MAX) together again with the same rx_stream, and its checks,
 * as the tcp and shm backends. An unordered message (am_send_unordered)
 * that fits one datagram takes a sequence number too, but is delivered as
 * soon as it arrives; the number only makes it exactly-once.
 *
 * At most REL_WINDOW datagrams per peer are unacknowledged (flow control:
 * the rest wait in the sender's queue). Every datagram carries the
 * receiver side's cumulative acknowledgement and a selective bitmap, so a
 * reply acknowledges its request before it is handled; a datagram not
 * acknowledged in time is sent again, each time waiting twice as long.
 *
 * A multicast message (rel_multicast) takes the next numbers of every
 * member's sequence at once, each fragment one datagram to the job's IP
 * group naming each member's number: ordered with the sender's unicast
 * messages to each member, acknowledged by each member in its own
 * sequence, and sent again by unicast to a member that did not
 * acknowledge it.
 *
 * This layer knows no sockets: udp.c gives it a way to send a datagram and
 * to deliver data (rel_ops), and the unit test gives it a lossy channel.
 */
#ifndef TSR_UDP_REL_H
#define TSR_UDP_REL_H

#include <stdint.h>
#include <sys/uio.h>

#include "util/spin.h"
#include "transport/transport.h"

#define REL_WINDOW 64   /* unacknowledged datagrams per peer; the sack bitmap's width */
#define REL_FRAG 8192   /* data bytes in one datagram */
#define REL_MAGIC 0x55525354u /* "TSRU" */

enum { REL_DATA = 1, REL_UNORDERED, REL_ACK, REL_MULTICAST };
#define REL_GROUP 0xffff /* rel_hdr.dst of a REL_MULTICAST datagram */
/* The largest message sent by multicast: fragments beyond half the window
 * would wait too long for room in every member's window at once. */
#define REL_MULTICAST_MAX (REL_WINDOW / 2 * REL_FRAG)

/* The header of every datagram (40 bytes, then `len` data bytes). */
typedef struct rel_hdr {
    uint32_t magic;
    uint16_t src, dst;
    uint64_t token; /* the secret the receiver gave the sender (udp.c) */
    uint32_t seq;   /* REL_DATA, REL_UNORDERED: its number from src to dst */
    uint32_t ack;   /* every datagram from dst to src numbered below it arrived */
    uint64_t sack;  /* bit i: so did number ack + 1 + i */
    uint16_t kind;  /* REL_* */
    uint16_t len;   /* data bytes, at most REL_FRAG */
    uint32_t members; /* REL_MULTICAST: rel_member entries before the data; else 0 */
} rel_hdr;

/* A member's part of a REL_MULTICAST datagram (24 bytes). */
typedef struct rel_member {
    uint16_t node, zero;
    uint32_t seq;   /* the datagram's number in the sender's sequence to node */
    uint32_t ack;   /* what the sender has received from node, as rel_hdr.ack */
    uint32_t zero2;
    uint64_t token; /* node's token for the sender */
} rel_member;

/* A datagram's first retransmission falls due this long after it was
 * sent; each further one twice as long after the last, up to 64 times. */
#define REL_RTO_NS 5000000ull

typedef struct rel_ops {
    /* Sends one datagram to dest: header, then the data in n pieces.
     * Async-signal-safe (it runs on the fault path). */
    void (*emit)(int dest, const rel_hdr *h, const struct iovec *data, int n);
    /* Sends one REL_MULTICAST datagram to the group (members' tokens are
     * filled by the callee). */
    void (*emit_group)(const rel_hdr *h, rel_member *members, const struct iovec *data, int n);
    /* Ordered bytes of src's stream, in order (comm thread). */
    void (*deliver)(int src, const void *data, size_t len);
    /* One whole unordered message's stream bytes (comm thread). */
    void (*deliver_unordered)(int src, const void *data, size_t len);
    uint64_t (*now_ns)(void);
    /* Bytes of a message that wait for room in dest's window (bytes > 0),
     * or that entered it or were dropped (bytes < 0): what TSR_SEND_QUEUE
     * bounds (sendq.c). Async-signal-safe, under the peer's lock. */
    void (*queued)(int dest, long bytes);
} rel_ops;

/* A datagram in flight: which bytes of which message it carries. */
typedef struct rel_slot {
    am_msg *m;      /* NULL: acknowledged (or free) */
    size_t off;     /* its first byte in m's stream bytes */
    uint16_t len;
    uint8_t kind;
    uint8_t last;   /* m's last fragment: acknowledging it releases m */
    uint32_t tries;
    uint64_t due_ns; /* when it is sent again, if not acknowledged by then */
} rel_slot;

typedef struct rel_peer {
    int node;
    /* Sending side, under `lock` (any thread, the fault path included). */
    spin_t lock;
    am_msg *q_head, *q_tail; /* ordered messages not yet all in the window;
                              * the head's `sent` counts its bytes that are */
    am_msg *u_head, *u_tail; /* unordered messages waiting for room */
    uint32_t base, next;     /* oldest unacknowledged number, next number */
    rel_slot slot[REL_WINDOW];
    uint32_t ack_out;        /* the acknowledgement last sent to this peer */
    uint64_t sack_out;
    int closed;
    /* Receiving side: the comm thread's; expect and sack are read by
     * senders for the acknowledgement every datagram carries, and change
     * together while ack_version is odd (udp_rel.c, ack_now). */
    _Atomic uint32_t expect; /* next number to deliver in order */
    _Atomic uint64_t sack;   /* bit i: number expect + 1 + i arrived */
    _Atomic uint32_t ack_version;
    int ack_due;             /* 1: acknowledge; 2: even if nothing changed */
    void *held[REL_WINDOW];  /* arrived ahead of expect; (void *)1: delivered */
    uint16_t held_len[REL_WINDOW];
    uint8_t held_kind[REL_WINDOW];
} rel_peer;

/* The operations every peer uses; also registers the counters. */
void rel_setup(const rel_ops *ops);
void rel_init(rel_peer *p, int node);
/* Frees what the peer still holds (after the comm thread ended). */
void rel_free(rel_peer *p);

/* Queues m (owned by the caller until acknowledged when heap == 0, freed
 * by this layer when heap == 1; never -1) and sends what the window
 * allows. Any thread; async-signal-safe for heap == 0. */
void rel_post(rel_peer *p, am_msg *m, int unordered);

/* A copy of m that `members` peers share, for rel_multicast; freed when
 * the last of them has it acknowledged. NULL if memory is short. */
am_msg *rel_share(const am_msg *m, int members);
/* Frees a shared copy that was never sent. */
void rel_unshare(am_msg *shared);
/* Sends shared (from rel_share, for n peers in increasing node order) by
 * multicast if every one of them has nothing queued and room in its window
 * for all of it; returns 1, or 0 having sent nothing. Any thread but the
 * fault path. */
int rel_multicast(rel_peer **peers, int n, am_msg *shared);

/* Takes a datagram from the peer whose header udp.c has authenticated
 * (magic, addresses, token, len). Returns 0, or -1 if it must be dropped
 * whole (an acknowledgement of numbers never sent). Comm thread. */
int rel_receive(rel_peer *p, const rel_hdr *h, const void *data);
/* Sends a bare acknowledgement if one is due and no datagram carried it. */
void rel_flush_ack(rel_peer *p);
/* Sends again what is overdue; returns the nanoseconds until the next
 * deadline (UINT64_MAX: none). Comm thread. */
uint64_t rel_retransmit(rel_peer *p, uint64_t now);
/* 1 when nothing waits to be sent or acknowledged. */
int rel_idle(rel_peer *p);
/* The peer left after its MSG_BYE: forget what it did not acknowledge. */
void rel_close(rel_peer *p);

#endif
