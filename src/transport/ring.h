/*
 * ring.h - a single-producer single-consumer byte ring in memory that two
 * processes share (the shm backend's, shm.c).
 *
 * The writer copies a message's stream bytes (stream.h) at the head and
 * publishes the head; the reader copies them out from the tail and
 * publishes the tail. The head and the tail sit on cache lines of their
 * own, and the writer looks at the tail only when the room it saw last
 * runs out, so a message crosses between the cores with the lines of its
 * bytes and of the head alone.
 *
 * Neither end trusts the other's word: a tail that claims more than was
 * written leaves no room, and a head that claims more than the ring holds
 * is the reader's to refuse (ring_avail). A writer that finds no room
 * raises want_space; the reader that frees room is told (ring_consumed).
 *
 * Beside the ring is a one-message box (ring_box), as Open MPI's
 * shared-memory transport has its "fast boxes": a small message posted
 * there when nothing waits crosses on the box's own two lines, where the
 * ring's reader first sees the head's line and then fetches the data's.
 * The reader keeps the order: it reads the ring up to the head the box
 * was posted at, then the box.
 */
#ifndef TSR_RING_H
#define TSR_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

/* Bytes of a message (header and payload) that the fast box holds. */
#define RING_BOX_BYTES 240

/* One small message beside the ring, on lines of its own: the writer
 * posts a message here when nothing of its waits and the box is free, so
 * it crosses between the cores with its own lines alone (ring_box_post).
 * It is next in the stream when the reader's tail reaches at_head, the
 * ring's head when it was posted.
 *
 * `polled` is the reader's word to the writer: how many of the reader's
 * threads are polling this ring for their replies (ring_polled), so that
 * the writer need not wake the reader's comm thread. It sits beside
 * `taken`, which the reader writes whenever it takes a box message: a
 * thread that raises it before a round trip and lowers it after taking
 * the reply from the box writes a line that is its own at both moments,
 * where a word of its own line would cross between the cores twice a
 * round trip: a 64-byte AM round trip took 0.48-0.51 us with the count in
 * the reader's doorbell line, 0.42-0.46 with it here (alternated runs). */
typedef struct ring_box {
    _Atomic uint32_t posted; /* messages ever posted; the writer's */
    _Atomic uint32_t taken;  /* messages ever taken; the reader's */
    _Atomic uint32_t polled; /* the reader's threads polling the ring */
    uint32_t unused;
    uint64_t at_head;
    char msg[RING_BOX_BYTES];
    char pad[56]; /* the ring's bytes start on a line of their own */
} ring_box;
_Static_assert(sizeof(ring_box) % 64 == 0, "the box ends where a cache line does");

typedef struct ring_hdr {
    _Atomic uint64_t head;       /* bytes ever written; the writer's */
    char pad0[56];
    _Atomic uint64_t tail;       /* bytes ever read; the reader's */
    _Atomic uint32_t want_space; /* the writer waits for room */
    char pad1[52];
    ring_box box;
} ring_hdr; /* followed by the ring's bytes */

/* Sets the bytes of every ring of the job (once, before any is used). */
void ring_setup(size_t bytes);
size_t ring_size(void);

/* The writer's end. Copies as much of m as the ring has room for; 1 when
 * all of it is in. tail_seen is the writer's own copy of the tail, kept
 * between calls. Only copies and atomics: usable on the fault path. */
int ring_write(ring_hdr *r, uint64_t *tail_seen, am_msg *m);
/* Whether the ring has room for a byte, looking at the tail now. */
int ring_has_room(ring_hdr *r);
/* Tells the reader that the writer waits for room (seq_cst, so that a
 * look at the tail that follows cannot miss the reader's freeing it). */
void ring_want_space(ring_hdr *r);

/* The writer's end of the box: 1 if m went there whole, which it does
 * when it fits, the box is free and nothing of m was written yet. The
 * caller has nothing queued for this ring, or m would pass it. */
int ring_box_post(ring_hdr *r, am_msg *m);

/* The reader's end. The looks are inline: the comm thread and a waiting
 * thread make them on every turn. */
static inline int ring_box_full(ring_hdr *r)
{
    return atomic_load_explicit(&r->box.posted, memory_order_acquire) !=
           atomic_load_explicit(&r->box.taken, memory_order_relaxed);
}
static inline int ring_has_data(ring_hdr *r)
{
    return atomic_load(&r->head) != atomic_load_explicit(&r->tail, memory_order_relaxed) ||
           ring_box_full(r);
}
static inline uint64_t ring_tail(ring_hdr *r)
{
    return atomic_load_explicit(&r->tail, memory_order_relaxed);
}
/* The bytes written beyond tail, as the head claims them: more than
 * ring_size() is a lie the caller must refuse. */
static inline uint64_t ring_avail(ring_hdr *r, uint64_t tail)
{
    return atomic_load_explicit(&r->head, memory_order_acquire) - tail;
}
/* Of the avail bytes from tail (ring_avail, read before this look), how
 * many come before the box's message: all of them when the box is empty.
 * *box_next is 1 when that message follows the bytes returned (it is at
 * tail when none are). A box that claims a place behind tail, or further
 * than the ring holds, gives UINT64_MAX. */
uint64_t ring_box_before(ring_hdr *r, uint64_t tail, uint64_t avail, int *box_next);
/* Copies the box's message to buf (RING_BOX_BYTES): its bytes, or 0 if its
 * header claims more than the box holds. The box stays full. */
size_t ring_box_copy(ring_hdr *r, void *buf);
/* The box's message was copied out: the box is the writer's again. */
void ring_box_free(ring_hdr *r);
/* The reader's count of its threads polling the ring for replies:
 * raised (+1) before such a thread's spin and lowered (-1) after it. The
 * lowering thread then fences and looks for what arrived meanwhile, as the
 * writer fences and looks at the count (ring_reader_polls): either it
 * finds the message, or the writer finds the count at zero and wakes the
 * reader's comm thread. */
static inline void ring_polled(ring_hdr *r, int delta)
{
    atomic_fetch_add(&r->box.polled, (uint32_t)delta);
}
/* The writer's look, after writing a message and a seq_cst fence: whether
 * a thread of the reader polls the ring and so will find it. */
static inline int ring_reader_polls(ring_hdr *r)
{
    return atomic_load_explicit(&r->box.polled, memory_order_relaxed) != 0;
}
/* Copies n bytes from stream position pos, across the ring's end. */
void ring_read(ring_hdr *r, uint64_t pos, void *dst, size_t n);
/* The reader has read up to tail: the room is the writer's again. Returns
 * 1 if the writer waited for room, and must now be woken. */
int ring_consumed(ring_hdr *r, uint64_t tail);

#endif
