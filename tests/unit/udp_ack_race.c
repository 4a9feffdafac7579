/* An acknowledgement that node 1 sends while its comm thread delivers names
 * only datagrams that have arrived (transport/udp_rel.c).
 *
 * Every datagram carries the cumulative acknowledgement (the next number
 * expected) and a bitmap of the numbers held beyond it; the bitmap means
 * something only against the number it was made for. Any thread may send,
 * so here a second thread keeps sending node 1's datagrams again while the
 * main thread hands node 1 node 0's datagrams in blocks, the block's first
 * last: each delivery then moves the number through the held ones. A
 * bitmap read against a number it was not made for claims the datagram
 * after the block, which has not arrived. Node 0 would take that claim as
 * an acknowledgement, never send the datagram again, and the stream would
 * stop for good (mp/ga_flood under UDP faults at 5 nodes did). */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"
#include "transport/stream.h"
#include "transport/udp_rel.h"
#include "util/config.h"

#define BLOCK 8
#define BLOCKS 5000
#define IN_FLIGHT 2 /* few, so that the sender takes its lock briefly */
#define SEQS (BLOCK * BLOCKS + REL_WINDOW) /* as far as any bitmap reaches */

static rel_peer to_a; /* node 1's view of node 0 */
static _Atomic unsigned char arrived[SEQS];
static _Atomic long acks_checked, false_claims;
static _Atomic int done;

/* Node 1's datagrams to node 0: each acknowledgement is checked against
 * what has arrived. Runs on the sending thread. */
static void emit(int dest, const rel_hdr *h, const struct iovec *data, int n)
{
    (void)dest, (void)data, (void)n;
    int ok = h->ack == 0 || atomic_load(&arrived[h->ack - 1]);
    for (uint64_t bits = h->sack; bits; bits &= bits - 1)
        ok &= atomic_load(&arrived[h->ack + 1 + (uint32_t)__builtin_ctzll(bits)]);
    atomic_fetch_add(&acks_checked, 1);
    if (!ok)
        atomic_fetch_add(&false_claims, 1);
}

static void emit_group(const rel_hdr *h, rel_member *m, const struct iovec *d, int n)
{
    (void)h, (void)m, (void)d, (void)n;
}
static void deliver(int src, const void *data, size_t len) { (void)src, (void)data, (void)len; }
static uint64_t now_ns(void) { return 1; }
static void queued(int dest, long bytes) { (void)dest, (void)bytes; }

static const rel_ops ops = {emit, emit_group, deliver, deliver, now_ns, queued};

/* Sends node 1's whole window again and again, each datagram with the
 * acknowledgement of its moment, until the main thread is done. */
static void *resend(void *arg)
{
    (void)arg;
    while (!atomic_load(&done))
        rel_retransmit(&to_a, UINT64_MAX);
    return NULL;
}

/* Node 0's datagram `seq`, a fragment of its ordered stream, reaches node 1. */
static void arrive(uint32_t seq)
{
    static const char bytes[STREAM_HDR];
    rel_hdr h = {REL_MAGIC, 0, 1, 0, seq, 0, 0, REL_DATA, sizeof bytes, 0};
    atomic_store(&arrived[seq], 1);
    CHECK(rel_receive(&to_a, &h, bytes) == 0, "an honest datagram %u refused", seq);
}

int main(void)
{
    cfg.node = 1;
    cfg.nodes = 2;
    rel_setup(&ops);
    rel_init(&to_a, 0);
    /* Datagrams of node 1's own, for the other thread to send again. */
    static am_msg out[IN_FLIGHT];
    for (int i = 0; i < IN_FLIGHT; i++) {
        out[i].hdr = (tsr_msg_hdr){0, MSG_ECHO_REQ, 0, {(uint64_t)i, 0, 0}, 0};
        rel_post(&to_a, &out[i], 0);
    }
    pthread_t t;
    if (pthread_create(&t, NULL, resend, NULL))
        return 2;
    for (uint32_t b = 0; b < BLOCKS; b++) {
        uint32_t first = b * BLOCK;
        for (uint32_t k = 1; k < BLOCK; k++)
            arrive(first + k);
        arrive(first);
    }
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    CHECK(atomic_load(&acks_checked) > 0, "no acknowledgement was sent while delivering");
    CHECK(atomic_load(&false_claims) == 0,
          "%ld of %ld acknowledgements named a datagram that had not arrived",
          atomic_load(&false_claims), atomic_load(&acks_checked));
    printf("# %ld acknowledgements checked\n", atomic_load(&acks_checked));
    rel_free(&to_a);
    return check_done("udp_ack_race");
}
