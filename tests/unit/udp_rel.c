/* The udp backend's reliability layer (transport/udp_rel.c) without a
 * network: node 0 sends to node 1 through an in-memory channel that loses,
 * reorders and duplicates datagrams, with a clock the test moves. What node
 * 1 delivers must be exactly the stream bytes of every message sent, in
 * order (unordered ones exactly once each); a full window must hold the
 * rest back; an acknowledgement of numbers never sent must be refused. */
#include "check.h"
#include "stats/stats.h"
#include "transport/stream.h"
#include "transport/udp_rel.h"
#include "util/config.h"

#define MAX_DGRAMS 4096

typedef struct dgram {
    rel_hdr h;
    char data[REL_FRAG];
} dgram;

/* inbox[n]: datagrams on their way to node n. */
static dgram *inbox[2][MAX_DGRAMS];
static int queued[2];
static uint64_t clock_ns = 1;
static rel_peer to_b, to_a; /* node 0's view of node 1, and node 1's of node 0 */

static char *got;
static size_t got_len, got_cap;
static int unordered_seen[1000], unordered_total;

static void emit(int dest, const rel_hdr *h, const struct iovec *data, int n)
{
    if (queued[dest] == MAX_DGRAMS)
        return; /* the channel is full: lost */
    dgram *d = malloc(sizeof *d);
    d->h = *h;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        memcpy(d->data + off, data[i].iov_base, data[i].iov_len);
        off += data[i].iov_len;
    }
    inbox[dest][queued[dest]++] = d;
}

static void deliver(int src, const void *data, size_t len)
{
    if (got_len + len > got_cap) {
        got_cap = (got_len + len) * 2;
        got = realloc(got, got_cap);
    }
    memcpy(got + got_len, data, len);
    got_len += len;
}

static void deliver_unordered(int src, const void *data, size_t len)
{
    tsr_msg_hdr h;
    memcpy(&h, data, sizeof h);
    unordered_seen[h.arg[0]]++;
    unordered_total++;
}

/* The group reaches node 1 only here: its part of the datagram goes on as
 * the unicast datagram it stands for (udp_group.c does the same). */
static void emit_group(const rel_hdr *h, rel_member *members, const struct iovec *data, int n)
{
    CHECK(h->members == 1 && members[0].node == 1, "multicast to other members than node 1");
    rel_hdr mine = {REL_MAGIC, 0, 1, 0, members[0].seq, members[0].ack, 0, REL_DATA, h->len, 0};
    emit(1, &mine, data, n);
}

static uint64_t now_ns(void) { return clock_ns; }

/* Bytes waiting for room in a window, as the send queue's bound sees them. */
static long queued_bytes;
static void count_queued(int dest, long bytes) { queued_bytes += bytes; }

static const rel_ops ops = {emit, emit_group, deliver, deliver_unordered, now_ns, count_queued};

typedef struct channel {
    int lose_every;   /* lose one datagram in this many (0: none) */
    int duplicate;    /* hand each datagram over twice */
    int reverse;      /* hand a batch over last first */
} channel;

static unsigned drawn;

/* Everything on its way to node `to` is lost. */
static void lose_all(int to)
{
    for (int i = 0; i < queued[to]; i++)
        free(inbox[to][i]);
    queued[to] = 0;
}

/* Hands node `to` what is on its way to it, through channel c. */
static void carry(int to, const channel *c)
{
    rel_peer *p = to == 1 ? &to_a : &to_b;
    int n = queued[to];
    queued[to] = 0;
    dgram *batch[MAX_DGRAMS];
    memcpy(batch, inbox[to], (size_t)n * sizeof *batch);
    for (int k = 0; k < n; k++) {
        dgram *d = batch[c->reverse ? n - 1 - k : k];
        int lost = c->lose_every && ++drawn % (unsigned)c->lose_every == 0;
        for (int copies = lost ? 0 : 1 + c->duplicate; copies > 0; copies--)
            CHECK(rel_receive(p, &d->h, d->data) == 0, "an honest datagram refused");
        free(d);
    }
    rel_flush_ack(p);
}

/* Runs the channel until node 0 has nothing unacknowledged. */
static int run(const channel *c)
{
    for (int turn = 0; turn < 10000; turn++) {
        carry(1, c);
        carry(0, c);
        if (rel_idle(&to_b) && !queued[0] && !queued[1])
            return turn;
        clock_ns += 2000000;
        rel_retransmit(&to_b, clock_ns);
    }
    return -1;
}

static uint64_t counter(const char *name)
{
    uint64_t v = 0;
    tsr_counter_get(name, &v);
    return v;
}

/* Posts `count` messages of growing sizes (some larger than a datagram)
 * and returns their stream bytes, concatenated. */
static char *post_messages(int count, size_t *len)
{
    char *want = NULL;
    *len = 0;
    for (int i = 0; i < count; i++) {
        size_t plen = (size_t)(i * 7919) % (3 * REL_FRAG);
        am_msg *m = malloc(sizeof *m + plen);
        m->hdr = (tsr_msg_hdr){(uint32_t)plen, MSG_ECHO_REQ, 0, {(uint64_t)i, 0, 0}, 0};
        m->payload = m + 1;
        for (size_t k = 0; k < plen; k++)
            ((char *)(m + 1))[k] = (char)(k * 31 + (size_t)i);
        m->heap = 1;
        size_t total = STREAM_BYTES(plen);
        want = realloc(want, *len + total);
        memset(want + *len, 0, total);
        memcpy(want + *len, &m->hdr, STREAM_HDR);
        memcpy(want + *len + STREAM_HDR, m + 1, plen);
        *len += total;
        rel_post(&to_b, m, 0);
    }
    return want;
}

static void reset(void)
{
    rel_free(&to_b);
    rel_free(&to_a);
    rel_init(&to_b, 1);
    rel_init(&to_a, 0);
    got_len = 0;
}

static void ordered_through(const char *what, channel c)
{
    reset();
    size_t want_len;
    char *want = post_messages(200, &want_len);
    int turns = run(&c);
    CHECK(turns >= 0, "%s: never finished", what);
    CHECK(got_len == want_len && !memcmp(got, want, want_len),
          "%s: %zu bytes delivered for %zu, or not the same", what, got_len, want_len);
    free(want);
}

static void window_full(void)
{
    reset();
    size_t want_len;
    char *want = post_messages(300, &want_len);
    CHECK(to_b.next - to_b.base == REL_WINDOW, "window: %u in flight, not %d",
          to_b.next - to_b.base, REL_WINDOW);
    CHECK(to_b.q_head != NULL, "window: nothing held back");
    CHECK(queued_bytes > 0, "window: what waits for room is not counted as queued");
    /* Nothing gets through for a while: still no more than the window. */
    for (int i = 0; i < 5; i++) {
        lose_all(1);
        clock_ns += 100000000;
        rel_retransmit(&to_b, clock_ns);
    }
    lose_all(1);
    CHECK(to_b.next - to_b.base == REL_WINDOW, "window grew while nothing was acknowledged");
    channel clean = {0};
    CHECK(run(&clean) >= 0, "window: never finished");
    CHECK(got_len == want_len && !memcmp(got, want, want_len), "window: wrong stream");
    CHECK(queued_bytes == 0, "window: %ld bytes still counted as queued once all went", queued_bytes);
    free(want);
}

static void unordered(void)
{
    reset();
    unordered_total = 0;
    memset(unordered_seen, 0, sizeof unordered_seen);
    uint64_t early = counter("udp_unordered_early");
    for (int i = 0; i < 60; i++) {
        am_msg *m = calloc(1, sizeof *m);
        m->hdr = (tsr_msg_hdr){0, MSG_ECHO_REQ, 0, {(uint64_t)i, 0, 0}, 0};
        m->heap = 1;
        rel_post(&to_b, m, 1);
    }
    channel c = {.duplicate = 1, .reverse = 1};
    CHECK(run(&c) >= 0, "unordered: never finished");
    int once = 1;
    for (int i = 0; i < 60; i++)
        once &= unordered_seen[i] == 1;
    CHECK(once && unordered_total == 60, "unordered: not each exactly once (%d)", unordered_total);
    CHECK(counter("udp_unordered_early") > early, "unordered: none delivered ahead of its turn");
    CHECK(got_len == 0, "unordered: bytes went to the ordered stream");
}

/* A multicast between two unicast messages keeps its place in node 1's
 * stream; with messages queued before it, it is refused (the caller then
 * sends it by unicast). */
static void multicast(void)
{
    reset();
    size_t first_len, last_len;
    char *first = post_messages(1, &first_len);
    am_msg m = {NULL, {5, MSG_ECHO_REQ, 0, {77, 0, 0}, 0}, "hello", 0, 0};
    rel_peer *members[] = {&to_b};
    am_msg *shared = rel_share(&m, 1);
    CHECK(rel_multicast(members, 1, shared), "multicast refused with an empty window");
    char *last = post_messages(1, &last_len);
    channel c = {.lose_every = 3};
    CHECK(run(&c) >= 0, "multicast: never finished");
    size_t mid = STREAM_BYTES(5);
    CHECK(got_len == first_len + mid + last_len && !memcmp(got, first, first_len) &&
              !memcmp(got + first_len, &m.hdr, STREAM_HDR) &&
              !memcmp(got + first_len + STREAM_HDR, "hello", 5) &&
              !memcmp(got + first_len + mid, last, last_len),
          "multicast: not delivered in its place between two unicast messages");
    free(first);
    free(last);
    reset();
    free(post_messages(REL_WINDOW + 1, &first_len));
    shared = rel_share(&m, 1);
    CHECK(!rel_multicast(members, 1, shared), "multicast taken ahead of queued messages");
    rel_unshare(shared);
    lose_all(1);
}

static void forged_ack(void)
{
    reset();
    size_t len;
    free(post_messages(3, &len));
    rel_hdr h = {REL_MAGIC, 1, 0, 0, 0, to_b.next + 1, 0, REL_ACK, 0, 0};
    CHECK(rel_receive(&to_b, &h, NULL) == -1, "an acknowledgement past what was sent taken");
    h.ack = to_b.base;
    h.sack = 1ull << 63;
    CHECK(rel_receive(&to_b, &h, NULL) == -1, "a selective acknowledgement past the window taken");
    CHECK(to_b.base == 0, "a refused acknowledgement released datagrams");
    lose_all(1);
}

int main(void)
{
    cfg.node = 0;
    cfg.nodes = 2;
    rel_setup(&ops);
    rel_init(&to_b, 1);
    rel_init(&to_a, 0);
    ordered_through("clean channel", (channel){0});
    uint64_t again = counter("udp_retransmits"), dups = counter("udp_duplicates");
    ordered_through("loss", (channel){.lose_every = 7});
    CHECK(counter("udp_retransmits") > again, "loss: nothing sent again");
    ordered_through("reordering", (channel){.reverse = 1});
    ordered_through("duplication", (channel){.duplicate = 1});
    CHECK(counter("udp_duplicates") > dups, "duplication: no duplicate counted");
    ordered_through("all three", (channel){.lose_every = 5, .duplicate = 1, .reverse = 1});
    window_full();
    unordered();
    multicast();
    forged_ack();
    reset();
    free(got);
    return check_done("udp_rel");
}
