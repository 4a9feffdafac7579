/*
 * tsr_micro's ring rows: the raw shared-memory ping-pong again, but each
 * message carries Tessera's 40-byte header and goes through a ring, as a
 * message layer's must (the raw box of raw.c holds one message at one
 * place, which no layer with more than one message in flight can do).
 * Still outside Tessera, busy-polled, nothing checked or dispatched: the
 * floor each ring design puts under an AM round trip.
 *
 *   byte ring: the shm backend's own (transport/ring.c). The bytes go at
 *     the writer's head; the head and the reader's tail are words on lines
 *     of their own, and the writer looks at the tail only when the room it
 *     saw last runs out, so a message moves the head's line and its
 *     bytes' between the cores.
 *   slot ring: each 64-byte line begins with the number of the message
 *     that fills it, written last, so the reader's look at the number
 *     brings the first bytes with it; the reader hands the lines back in
 *     batches of a quarter of the ring, not message by message.
 *   fast box: the shm backend's one-message box beside its byte ring
 *     (transport/ring.c), which its small messages take when nothing is
 *     queued: the floor under a 64-byte AM round trip (it holds no 4 KiB
 *     message).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "micro.h"
#include "tessera.h"
#include "transport/ring.h"
#include "transport/stream.h"
#include "transport/transport.h"

#define HDR sizeof(tsr_msg_hdr)

/* ---- Byte ring ------------------------------------------------------------ */

#define BYTES (256 * 1024) /* the shm backend's at up to 16 nodes (shm.c) */

typedef struct byte_ring {
    ring_hdr hdr;
    char data[BYTES]; /* where ring.c puts a ring's bytes: right after its header */
} byte_ring;

static void byte_send(ring_hdr *r, uint64_t *tail_seen, const tsr_msg_hdr *h,
                      const void *payload)
{
    am_msg m = {.hdr = *h, .payload = payload};
    for (unsigned k = 1; !ring_write(r, tail_seen, &m); k++)
        spin_turn(k);
}

static void byte_receive(ring_hdr *r, tsr_msg_hdr *h, void *payload)
{
    uint64_t tail = ring_tail(r);
    for (unsigned k = 1; ring_avail(r, tail) < HDR; k++)
        spin_turn(k);
    ring_read(r, tail, h, HDR);
    for (unsigned k = 1; ring_avail(r, tail) < STREAM_BYTES(h->len); k++)
        spin_turn(k);
    ring_read(r, tail + HDR, payload, h->len);
    ring_consumed(r, tail + STREAM_BYTES(h->len));
}

/* ---- Fast box ------------------------------------------------------------- */

static void box_send(ring_hdr *r, const tsr_msg_hdr *h, const void *payload)
{
    am_msg m = {.hdr = *h, .payload = payload};
    for (unsigned k = 1; !ring_box_post(r, &m); k++)
        spin_turn(k);
}

static void box_receive(ring_hdr *r, tsr_msg_hdr *h, void *payload)
{
    uint64_t box[RING_BOX_BYTES / 8];
    for (unsigned k = 1; !ring_box_full(r); k++)
        spin_turn(k);
    ring_box_copy(r, box);
    ring_box_free(r);
    memcpy(h, box, HDR);
    memcpy(payload, (char *)box + HDR, h->len);
}

/* ---- Slot ring ------------------------------------------------------------ */

#define LINES 4096                   /* 256 KiB */
#define LINE_DATA 56                 /* a line's bytes after its number */
#define RETURN_EVERY (LINES / 4)     /* lines the reader hands back at once */
#define WRAP UINT32_MAX              /* a header length: go on at line 0 */

typedef struct slot_line {
    _Atomic uint64_t number; /* of the message that fills the line, from 1 */
    char data[LINE_DATA];
} slot_line;

typedef struct slot_ring {
    _Atomic uint64_t returned; /* lines the reader is done with */
    char pad[56];
    slot_line line[LINES];
} slot_ring;

/* Each end's own count, in its own memory. */
typedef struct slot_end {
    uint64_t lines;    /* lines written (or read), ever */
    uint64_t messages; /* messages written (or read) */
    uint64_t room_to;  /* writer: `lines` may go up to this without a look */
} slot_end;

static size_t lines_for(size_t bytes) { return (bytes + LINE_DATA - 1) / LINE_DATA; }

/* Room for n lines from the writer's position, looking at what the reader
 * returned only when its last look does not say there is. */
static void slot_room(slot_ring *r, slot_end *w, size_t n)
{
    for (unsigned k = 1; w->lines + n > w->room_to; k++) {
        w->room_to = atomic_load_explicit(&r->returned, memory_order_acquire) + LINES;
        if (w->lines + n > w->room_to)
            spin_turn(k);
    }
}

/* Copies n bytes to (or from) bytes [off, off + n) of the message whose
 * first line is `at`, line by line. */
static void lines_write(slot_ring *r, uint64_t at, size_t off, const void *src, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t o = off + done, k = LINE_DATA - o % LINE_DATA;
        k = k < n - done ? k : n - done;
        memcpy(r->line[(at + o / LINE_DATA) % LINES].data + o % LINE_DATA,
               (const char *)src + done, k);
        done += k;
    }
}

static void lines_read(const slot_ring *r, uint64_t at, size_t off, void *dst, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t o = off + done, k = LINE_DATA - o % LINE_DATA;
        k = k < n - done ? k : n - done;
        memcpy((char *)dst + done, r->line[(at + o / LINE_DATA) % LINES].data + o % LINE_DATA,
               k);
        done += k;
    }
}

/* Numbers the n lines from `at`: the first last, released, so that the
 * reader that sees its number sees every line. */
static void lines_number(slot_ring *r, uint64_t at, size_t n, uint64_t number)
{
    for (size_t i = n; i-- > 0;)
        atomic_store_explicit(&r->line[(at + i) % LINES].number, number,
                              i ? memory_order_relaxed : memory_order_release);
}

static void slot_send(slot_ring *r, slot_end *w, const tsr_msg_hdr *h, const void *payload)
{
    size_t n = lines_for(HDR + h->len);
    if (w->lines % LINES + n > LINES) { /* no room before the end: go on at line 0 */
        tsr_msg_hdr wrap = {.len = WRAP};
        slot_room(r, w, LINES - w->lines % LINES);
        lines_write(r, w->lines, 0, &wrap, HDR);
        lines_number(r, w->lines, 1, ++w->messages);
        w->lines += LINES - w->lines % LINES;
    }
    slot_room(r, w, n);
    lines_write(r, w->lines, 0, h, HDR);
    lines_write(r, w->lines, HDR, payload, h->len);
    lines_number(r, w->lines, n, ++w->messages);
    w->lines += n;
}

static void slot_receive(slot_ring *r, slot_end *e, tsr_msg_hdr *h, void *payload)
{
    for (;;) {
        slot_line *first = &r->line[e->lines % LINES];
        for (unsigned k = 1;
             atomic_load_explicit(&first->number, memory_order_acquire) != e->messages + 1; k++)
            spin_turn(k);
        e->messages++;
        lines_read(r, e->lines, 0, h, HDR);
        uint64_t was = e->lines;
        if (h->len == WRAP) {
            e->lines += LINES - e->lines % LINES;
        } else {
            lines_read(r, e->lines, HDR, payload, h->len);
            e->lines += lines_for(HDR + h->len);
        }
        if (e->lines / RETURN_EVERY != was / RETURN_EVERY)
            atomic_store_explicit(&r->returned, e->lines / RETURN_EVERY * RETURN_EVERY,
                                  memory_order_release);
        if (h->len != WRAP)
            return;
    }
}

/* ---- The ping-pongs --------------------------------------------------------- */

typedef struct rings {
    byte_ring bytes[2]; /* [0]: node 0 to node 1; [1]: back */
    slot_ring slots[2];
} rings;

typedef struct ring_burst {
    rings *shared;
    uint64_t tail_seen; /* this node's, as the writer of its byte ring */
    slot_end end[2];    /* this node's: writer of its ring, reader of the other */
    size_t len;
    int kind; /* KIND_* */
} ring_burst;

enum { KIND_BYTES, KIND_SLOTS, KIND_BOX };

/* Sends through this node's ring or box, `dir` 0 (to node 1) or 1 (back). */
static void ring_send(ring_burst *b, int dir, const tsr_msg_hdr *h, const void *payload)
{
    if (b->kind == KIND_SLOTS)
        slot_send(&b->shared->slots[dir], &b->end[0], h, payload);
    else if (b->kind == KIND_BOX)
        box_send(&b->shared->bytes[dir].hdr, h, payload);
    else
        byte_send(&b->shared->bytes[dir].hdr, &b->tail_seen, h, payload);
}

void ring_pingpong(const void *arg, long first, long rounds)
{
    ring_burst *b = (ring_burst *)arg;
    static char out[4096], in[4096];
    int me = tsr_node();
    tsr_msg_hdr h = {(uint32_t)b->len, 0, (uint16_t)me, {0, 0, 0}, 0}, got;
    for (long i = first; i < first + rounds; i++) {
        h.arg[0] = (uint64_t)i;
        if (me == 0)
            ring_send(b, 0, &h, out);
        if (b->kind == KIND_SLOTS)
            slot_receive(&b->shared->slots[!me], &b->end[1], &got, in);
        else if (b->kind == KIND_BOX)
            box_receive(&b->shared->bytes[!me].hdr, &got, in);
        else
            byte_receive(&b->shared->bytes[!me].hdr, &got, in);
        if (got.arg[0] != (uint64_t)i || got.len != b->len)
            abort(); /* the ring lost or reordered a message */
        if (me == 1)
            ring_send(b, 1, &h, in);
    }
}

/* ring.c's size is one per process: the shm backend's, which is BYTES at
 * the nodes tsr_micro runs, or none under the other backends. */
static void rings_setup(void)
{
    if (!ring_size())
        ring_setup(BYTES);
    if (ring_size() != BYTES) {
        fprintf(stderr, "tsr_micro: the shm rings are %zu bytes here, not %d\n", ring_size(),
                BYTES);
        exit(1);
    }
}

void *box_burst_open(void)
{
    rings_setup();
    static ring_burst b;
    b = (ring_burst){.shared = raw_shared(sizeof(rings)), .len = round_trip_sizes[0],
                     .kind = KIND_BOX};
    return &b;
}

void box_burst_close(void *arg)
{
    munmap(((ring_burst *)arg)->shared, sizeof(rings));
}

/* The byte and slot rings; the box's row is paired.c's. */
void bench_raw_rings(void)
{
    rings_setup();
    rings *shared = raw_shared(sizeof(rings));
    static const char *const kinds[2] = {"shm_ring", "shm_slots"};
    for (int kind = 0; kind < 2; kind++)
        for (int s = 0; s < 2; s++) {
            /* Each size starts from fresh rings: the counts restart. */
            if (tsr_node() == 0)
                memset(shared, 0, sizeof *shared);
            ring_burst b = {.shared = shared, .len = round_trip_sizes[s], .kind = kind};
            tsr_barrier();
            double t = fastest_burst(ring_pingpong, &b);
            char name[64];
            snprintf(name, sizeof name, "%s_%zu", kinds[kind], round_trip_sizes[s]);
            report(name, t, BURST);
            tsr_barrier();
        }
    munmap(shared, sizeof(rings));
}
