/* The shm backend's byte ring (transport/ring.c) in one process: messages
 * of many sizes go in and come out as the same stream bytes, across the
 * ring's end; a message larger than the room goes in pieces as the reader
 * frees room; a writer that asked for room is told when the reader frees
 * it; the writer's copy of the tail is only a lower bound on the room; and
 * neither end believes the other's word: a tail ahead of the head leaves no
 * room, a head too far ahead is reported as more than the ring holds. The
 * fast box beside the ring keeps the stream's order and takes only what
 * fits, and a box that lies about its place or its length is refused. */
#include <stdatomic.h>

#include "check.h"
#include "transport/ring.h"
#include "transport/stream.h"

#define SIZE 4096

static ring_hdr *r;
static uint64_t tail_seen;

/* A message of `len` payload bytes whose bytes say `seed`. */
static void make(am_msg *m, char *payload, size_t len, int seed)
{
    for (size_t i = 0; i < len; i++)
        payload[i] = (char)(seed + i);
    *m = (am_msg){0};
    m->hdr = (tsr_msg_hdr){(uint32_t)len, 7, 0, {(uint64_t)seed, 0, 0}, 0};
    m->payload = payload;
}

/* Reads one whole message from the tail and checks it is m's; with
 * `alone`, that nothing follows it. */
static void read_next(const am_msg *m, const char *payload, int alone)
{
    static char buf[SIZE];
    uint64_t tail = ring_tail(r);
    size_t total = STREAM_BYTES(m->hdr.len);
    if (alone ? ring_avail(r, tail) != total : ring_avail(r, tail) < total) {
        CHECK(0, "%llu bytes unread, %zu expected", (unsigned long long)ring_avail(r, tail), total);
        return;
    }
    ring_read(r, tail, buf, total);
    CHECK(!memcmp(buf, &m->hdr, STREAM_HDR), "header of message %llu differs",
          (unsigned long long)m->hdr.arg[0]);
    CHECK(!memcmp(buf + STREAM_HDR, payload, m->hdr.len), "payload of message %llu differs",
          (unsigned long long)m->hdr.arg[0]);
    ring_consumed(r, tail + total);
}

static void read_back(const am_msg *m, const char *payload) { read_next(m, payload, 1); }

static void round_trips(void)
{
    static char payload[2000];
    for (int i = 0; i < 500; i++) { /* enough to go round the ring many times */
        am_msg m;
        size_t len = (size_t)(i * 37) % sizeof payload;
        make(&m, payload, len, i);
        if (!ring_write(r, &tail_seen, &m)) {
            CHECK(0, "message %d (%zu bytes) not all in", i, len);
            return;
        }
        read_back(&m, payload);
    }
    CHECK(!ring_has_data(r), "data left after every message was read");
}

/* A message bigger than the ring goes in as the reader frees room. */
static void pieces(void)
{
    static char payload[3 * SIZE], out[3 * SIZE + STREAM_HDR + 8];
    am_msg m;
    make(&m, payload, sizeof payload, 3);
    size_t got = 0, total = STREAM_BYTES(m.hdr.len);
    int writes = 0;
    while (got < total && writes < 100) { /* bounded: a ring that never frees room fails */
        ring_write(r, &tail_seen, &m);
        writes++;
        uint64_t tail = ring_tail(r), avail = ring_avail(r, tail);
        ring_read(r, tail, out + got, (size_t)avail);
        got += (size_t)avail;
        ring_consumed(r, tail + avail);
    }
    CHECK(got == total && writes >= 4,
          "%zu of a %zu-byte message went in %d writes through a %d-byte ring", got, total,
          writes, SIZE);
    CHECK(!memcmp(out + STREAM_HDR, payload, sizeof payload), "the pieces differ from the message");
}

/* Full ring: the writer asks for room, and the reader's freeing it says so. */
static void want_space(void)
{
    static char payload[SIZE];
    am_msg a, b;
    make(&a, payload, SIZE - STREAM_HDR - 64, 4);
    CHECK(ring_write(r, &tail_seen, &a), "a message that fits did not go in");
    make(&b, payload, 200, 5);
    CHECK(!ring_write(r, &tail_seen, &b), "a message went into a full ring");
    CHECK(b.sent <= 64, "%zu bytes went into 64 bytes of room", b.sent);
    ring_want_space(r);
    uint64_t tail = ring_tail(r);
    CHECK(ring_consumed(r, tail + STREAM_BYTES(a.hdr.len)) == 1,
          "freeing room did not tell the writer that asked for it");
    CHECK(ring_consumed(r, tail + STREAM_BYTES(a.hdr.len)) == 0, "the writer was told twice");
    CHECK(ring_write(r, &tail_seen, &b), "the rest did not go in once there was room");
    tail = ring_tail(r);
    ring_consumed(r, tail + ring_avail(r, tail));
}

/* The writer's copy of the tail may be old: it only undercounts the room,
 * and a write that needs more looks again. */
static void stale_tail(void)
{
    static char payload[SIZE];
    am_msg m;
    uint64_t stale = tail_seen - (SIZE - 100); /* as if the writer last looked long ago */
    make(&m, payload, SIZE / 2, 6);
    CHECK(ring_write(r, &stale, &m), "a stale tail kept a message from an empty ring");
    CHECK(stale == ring_tail(r), "the writer did not look at the tail again");
    read_back(&m, payload);
}

/* The other end's words are not believed. */
static void lies(void)
{
    static char payload[64];
    am_msg m;
    uint64_t head = atomic_load(&r->head);
    atomic_store(&r->tail, head + 100); /* read more than was written */
    uint64_t seen = head + 100;
    make(&m, payload, sizeof payload, 7);
    CHECK(!ring_write(r, &seen, &m) && m.sent == 0, "a tail ahead of the head left room");
    CHECK(!ring_has_room(r), "a tail ahead of the head has room");
    atomic_store(&r->tail, head);
    atomic_store(&r->head, head + SIZE + 1); /* wrote more than the ring holds */
    CHECK(ring_avail(r, head) > ring_size(), "a head too far ahead was not reported as such");
}

/* Reads the ring's bytes before the box's message and checks they are m's
 * whole, the box's message following them; returns whether it is then at
 * the tail. */
static int read_to_box(const am_msg *m, const char *payload)
{
    uint64_t tail = ring_tail(r);
    int next;
    uint64_t before = ring_box_before(r, tail, ring_avail(r, tail), &next);
    CHECK(before == STREAM_BYTES(m->hdr.len) && next,
          "%llu bytes before the box's message (%s), %zu expected", (unsigned long long)before,
          next ? "follows" : "does not follow", STREAM_BYTES(m->hdr.len));
    read_next(m, payload, 0);
    tail = ring_tail(r);
    return ring_box_before(r, tail, ring_avail(r, tail), &next) == 0 && next;
}

/* The box keeps the stream's order: ring, box, ring reads as posted, the
 * box taking one message at a time and only small ones. */
static void box_order(void)
{
    static char payload[3][64];
    uint64_t box[RING_BOX_BYTES / 8];
    am_msg a, b, c, d, big;
    make(&a, payload[0], 24, 8);
    make(&b, payload[1], 64, 9);
    make(&c, payload[2], 40, 10);
    CHECK(ring_write(r, &tail_seen, &a), "message a did not go in");
    CHECK(ring_box_post(r, &b), "message b did not go into the empty box");
    CHECK(!ring_box_post(r, &c), "message c went into a full box");
    CHECK(ring_write(r, &tail_seen, &c), "message c did not go into the ring");
    CHECK(read_to_box(&a, payload[0]), "after a, the box's message was not next");
    size_t n = ring_box_copy(r, box);
    CHECK(n == sizeof b.hdr + 64 && !memcmp(box, &b.hdr, sizeof b.hdr) &&
          !memcmp((char *)box + sizeof b.hdr, payload[1], 64), "the box did not hold b");
    CHECK(ring_has_data(r), "a full box is no data");
    ring_box_free(r);
    uint64_t tail = ring_tail(r);
    int next;
    CHECK(ring_box_before(r, tail, ring_avail(r, tail), &next) == ring_avail(r, tail) && !next,
          "an empty box holds back the ring");
    read_back(&c, payload[2]);
    CHECK(!ring_has_data(r), "data left after a, b and c were read");
    static char large[RING_BOX_BYTES];
    make(&big, large, RING_BOX_BYTES - sizeof big.hdr + 1, 11);
    CHECK(!ring_box_post(r, &big), "a message larger than the box went in");
    make(&d, payload[0], 8, 12);
    d.sent = 8;
    CHECK(!ring_box_post(r, &d), "a message partly in the ring went into the box");
}

/* The box's place and length are the writer's word, not believed. */
static void box_lies(void)
{
    static char payload[8];
    uint64_t box[RING_BOX_BYTES / 8];
    am_msg m;
    make(&m, payload, sizeof payload, 13);
    CHECK(ring_box_post(r, &m), "a message did not go into the empty box");
    uint64_t tail = ring_tail(r);
    int next;
    r->box.at_head = tail - 1;
    CHECK(ring_box_before(r, tail, 0, &next) == UINT64_MAX, "a box behind the tail was believed");
    r->box.at_head = tail + SIZE + 1;
    CHECK(ring_box_before(r, tail, 0, &next) == UINT64_MAX, "a box beyond the ring was believed");
    r->box.at_head = tail;
    ((tsr_msg_hdr *)r->box.msg)->len = RING_BOX_BYTES;
    CHECK(ring_box_copy(r, box) == 0, "a box claiming more than it holds was copied");
    ring_box_free(r);
}

int main(void)
{
    ring_setup(SIZE);
    r = calloc(1, sizeof *r + SIZE);
    round_trips();
    pieces();
    want_space();
    stale_tail();
    box_order();
    box_lies();
    lies();
    free(r);
    return check_done("ring");
}
