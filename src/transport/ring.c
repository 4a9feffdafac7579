/*
 * ring.c - the shm backend's byte ring (ring.h).
 */
#include "transport/ring.h"

#include <stdatomic.h>
#include <string.h>

#include "transport/stream.h"

static size_t size;

void ring_setup(size_t bytes) { size = bytes; }

size_t ring_size(void) { return size; }

static char *data_of(ring_hdr *r) { return (char *)(r + 1); }

/* The room for the writer at head, looking at the tail again only when
 * the last look leaves less than `need`. A tail that claims more than was
 * written leaves no room, and the message waits (this may run on the
 * fault path, which cannot stop the node with a message). */
static size_t room(ring_hdr *r, uint64_t head, uint64_t *tail_seen, size_t need)
{
    uint64_t used = head - *tail_seen;
    if (used > size || size - used < need) {
        *tail_seen = atomic_load(&r->tail);
        used = head - *tail_seen;
    }
    return used > size ? 0 : size - (size_t)used;
}

int ring_write(ring_hdr *r, uint64_t *tail_seen, am_msg *m)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t left = room(r, head, tail_seen, STREAM_BYTES(m->hdr.len) - m->sent);
    const void *base[3];
    size_t len[3];
    int n = tx_pieces(m, base, len);
    for (int i = 0; i < n && left; i++) {
        size_t k = len[i] < left ? len[i] : left, off = (size_t)(head % size);
        size_t first = k < size - off ? k : size - off;
        memcpy(data_of(r) + off, base[i], first);
        memcpy(data_of(r), (const char *)base[i] + first, k - first);
        head += k;
        left -= k;
        m->sent += k;
    }
    atomic_store_explicit(&r->head, head, memory_order_release);
    return m->sent == STREAM_BYTES(m->hdr.len);
}

int ring_has_room(ring_hdr *r)
{
    return atomic_load_explicit(&r->head, memory_order_relaxed) - atomic_load(&r->tail) < size;
}

void ring_want_space(ring_hdr *r) { atomic_store(&r->want_space, 1); }

int ring_box_post(ring_hdr *r, am_msg *m)
{
    ring_box *b = &r->box;
    uint32_t posted = atomic_load_explicit(&b->posted, memory_order_relaxed);
    if (m->sent || sizeof m->hdr + m->hdr.len > RING_BOX_BYTES ||
        atomic_load_explicit(&b->taken, memory_order_acquire) != posted)
        return 0;
    memcpy(b->msg, &m->hdr, sizeof m->hdr);
    if (m->hdr.len) /* an empty message's payload may be NULL */
        memcpy(b->msg + sizeof m->hdr, m->payload, m->hdr.len);
    b->at_head = atomic_load_explicit(&r->head, memory_order_relaxed);
    atomic_store_explicit(&b->posted, posted + 1, memory_order_release);
    m->sent = STREAM_BYTES(m->hdr.len);
    return 1;
}

/* The head was read (acquire) before this look at the box, so a box posted
 * before any byte the reader saw is seen full here. */
uint64_t ring_box_before(ring_hdr *r, uint64_t tail, uint64_t avail, int *box_next)
{
    *box_next = 0;
    if (!ring_box_full(r))
        return avail;
    uint64_t ahead = r->box.at_head - tail;
    if (ahead > size)
        return UINT64_MAX;
    if (ahead > avail)
        return avail; /* ring bytes before the box are still on their way */
    *box_next = 1;
    return ahead;
}

size_t ring_box_copy(ring_hdr *r, void *buf)
{
    tsr_msg_hdr h;
    memcpy(&h, r->box.msg, sizeof h);
    if (h.len > RING_BOX_BYTES - sizeof h)
        return 0;
    memcpy(buf, r->box.msg, sizeof h + h.len);
    memcpy(buf, &h, sizeof h); /* the header checked, whatever the writer did since */
    return sizeof h + h.len;
}

void ring_box_free(ring_hdr *r)
{
    uint32_t posted = atomic_load_explicit(&r->box.posted, memory_order_relaxed);
    atomic_store_explicit(&r->box.taken, posted, memory_order_release);
}

void ring_read(ring_hdr *r, uint64_t pos, void *dst, size_t n)
{
    size_t off = (size_t)(pos % size), first = n < size - off ? n : size - off;
    memcpy(dst, data_of(r) + off, first);
    memcpy((char *)dst + first, data_of(r), n - first);
}

/* The seq_cst store and load pair with the writer's ring_want_space and
 * its look at the tail: one of the two sees the other's. */
int ring_consumed(ring_hdr *r, uint64_t tail)
{
    atomic_store(&r->tail, tail);
    return atomic_load(&r->want_space) && atomic_exchange(&r->want_space, 0);
}
