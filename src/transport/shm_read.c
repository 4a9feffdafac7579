/*
 * shm_read.c - the shm backend's reading side (shm_read.h).
 *
 * Two kinds of thread read a ring (src, this node): the comm thread, which
 * parses its bytes into src's stream and dispatches every message after
 * am_check, and a thread waiting for a reply, which takes the message at
 * the ring's front only when am_direct says it is such a reply. The
 * ring's `reading` lock keeps them one at a time.
 */
#include "transport/shm_read.h"

#include <stdlib.h>

#include "boot/boot.h"
#include "transport/core.h"
#include "transport/shm_hosts.h"
#include "transport/stream.h"
#include "util/config.h"
#include "util/log.h"
#include "util/spin.h"

static ring_hdr **in;   /* per peer: its ring to this node (shm_ring, looked up once) */
static rx_stream *rx;   /* per peer: the stream its ring's bytes are parsed from */
static spin_t *reading; /* per peer: held by the one thread reading its ring */

static int arrived_from(int src) { return ring_has_data(in[src]); }

/* The reader has read ring (src, this node) up to tail; a writer that
 * waits for room is woken. */
static void consumed(ring_hdr *r, int src, uint64_t tail)
{
    if (ring_consumed(r, tail))
        shm_bell(src);
}

/* How many unread bytes ring (src, this node) holds from tail before the
 * box's message (ring_box_before); *box_next when that message follows.
 * The head and the box's place are the writer's word: they may not claim
 * more than the ring holds, nor a place the reader has passed. */
static uint64_t unread(ring_hdr *r, int src, uint64_t tail, int *box_next)
{
    uint64_t avail = ring_avail(r, tail), before;
    if (avail > ring_size())
        log_die_status(1, "protocol error: node %d's ring claims %llu unread bytes, more than "
                       "its %zu", src, (unsigned long long)avail, ring_size());
    if ((before = ring_box_before(r, tail, avail, box_next)) == UINT64_MAX)
        log_die_status(1, "protocol error: node %d's fast box claims a place %llu bytes from "
                       "the ring's tail", src, (unsigned long long)(r->box.at_head - tail));
    return before;
}

/* Moves what ring (src, this node) holds into src's stream and delivers
 * every whole message, then the box's message when it is next. Returns 1
 * if there was anything. The serving thread only (core_serving); a ring
 * that a waiting thread reads now is left for the next turn. */
int shm_receive_from(int src)
{
    ring_hdr *r = in[src];
    if (!ring_has_data(r) || !spin_trylock(&reading[src]))
        return 0;
    uint64_t tail = ring_tail(r), box[RING_BOX_BYTES / 8];
    int box_next;
    uint64_t avail = unread(r, src, tail, &box_next);
    int any = avail || box_next; /* nothing if a waiting thread just took it */
    while (avail) {
        size_t room;
        char *dst = rx_space(&rx[src], &room);
        size_t k = avail < room ? (size_t)avail : room;
        ring_read(r, tail, dst, k);
        tail += k;
        avail -= k;
        consumed(r, src, tail);
        rx_commit(&rx[src], k);
    }
    if (box_next) {
        tsr_msg_hdr *h = (tsr_msg_hdr *)box;
        if (!ring_box_copy(r, box))
            log_die_status(1, "protocol error: node %d's fast box claims more than its %d "
                           "bytes", src, RING_BOX_BYTES);
        ring_box_free(r);
        core_heard(src);
        am_dispatch(src, h, h + 1);
    }
    spin_unlock(&reading[src]);
    return any;
}

/* The box's message of ring (src, this node), next in the stream: as
 * direct_reply. */
static int direct_box(ring_hdr *r, int src)
{
    uint64_t box[RING_BOX_BYTES / 8];
    tsr_msg_hdr *h = (tsr_msg_hdr *)box;
    if (!ring_box_copy(r, box) || !am_direct(src, h))
        return -1;
    ring_box_free(r);
    am_dispatch_direct(src, h, h + 1);
    return 1;
}

/* The message at the front of ring (src, this node), delivered on the
 * calling thread if am_direct accepts it: 1 if delivered, 0 if it is such a
 * reply but not all in yet, -1 if it is the comm thread's. Only the header
 * is read before the check. The caller holds reading[src], so src's stream
 * is this thread's to copy into (and found empty). A peer that only
 * answers this way is still heard: its heartbeats go to the comm thread. */
static int direct_reply(int src)
{
    ring_hdr *r = in[src];
    uint64_t tail = ring_tail(r), avail = ring_avail(r, tail);
    tsr_msg_hdr h;
    size_t room;
    int box_next;
    if (!rx_idle(&rx[src]) || avail > ring_size())
        return -1;
    uint64_t before = ring_box_before(r, tail, avail, &box_next);
    if (before == UINT64_MAX)
        return -1;
    if (box_next && !before)
        return direct_box(r, src);
    if (avail < STREAM_HDR)
        return 0;
    ring_read(r, tail, &h, STREAM_HDR);
    char *buf = rx_space(&rx[src], &room);
    size_t total = STREAM_BYTES(h.len);
    if (total > room || total > ring_size() || !am_direct(src, &h))
        return -1;
    if (total > avail)
        return 0;
    ring_read(r, tail, buf, total);
    consumed(r, src, tail + total);
    am_dispatch_direct(src, &h, buf + STREAM_HDR);
    return 1;
}

/* A waiting thread's look at ring (src, this node), which holds data. */
static int take_reply(int src)
{
    if (!spin_trylock(&reading[src]))
        return 0; /* the comm thread reads it now */
    int took = direct_reply(src);
    spin_unlock(&reading[src]);
    if (took < 0)
        shm_bell(cfg.node); /* the comm thread's, which may sleep */
    return took > 0;
}

int shm_rings_arrived(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node && arrived_from(j))
            return 1;
    return 0;
}

int shm_take_replies(int peer) { return arrived_from(peer) && take_reply(peer); }

/* A finished peer wrote its MSG_BYE into the ring before it closed its
 * socket, but the two are separate channels: the ring is read to its end
 * (a waiting thread may be reading it too), so a clean exit is not taken
 * for a crash. */
void shm_drain_ring(int src)
{
    while (shm_receive_from(src) || arrived_from(src))
        ;
}

void shm_read_start(void)
{
    in = calloc((size_t)cfg.nodes, sizeof *in);
    rx = calloc((size_t)cfg.nodes, sizeof *rx);
    reading = calloc((size_t)cfg.nodes, sizeof *reading);
    if (!in || !rx || !reading)
        log_die("cannot set up the shm transport: out of memory");
    for (int j = 0; j < cfg.nodes; j++) {
        in[j] = shm_ring(j, cfg.node);
        if (boot.peer_fd[j] >= 0 && shm_here(j))
            rx_init(&rx[j], j);
    }
}

void shm_read_stop(void)
{
    for (int j = 0; rx && j < cfg.nodes; j++)
        rx_free(&rx[j]);
    free(in);
    free(rx);
    free(reading);
}
