/*
 * udp.c - the udp backend: one datagram socket per node, Tessera's own
 * reliability on top (udp_rel.h), TSR_FAULTS below it (udp_fault.h).
 *
 * Peers are authenticated through the TCP mesh of the bootstrap, which
 * only nodes that showed the job secret joined: over it each node tells
 * each peer its datagram port and a random token of 64 bits that the peer
 * must put in every datagram it sends here. A datagram is taken only from
 * the address and port its claimed sender announced, with that sender's
 * token, to this node, of a known kind and exactly its stated length;
 * anything else is dropped and counted (udp_rejected) before any field is
 * used. Then the reliability layer checks its numbers against the window,
 * and the stream it rebuilds goes through am_check and am_dispatch as for
 * the other backends.
 *
 * The mesh then carries nothing more: its end of file says at once that a
 * peer is gone, as with shm.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot.h"
#include "stats/stats.h"
#include "transport/backend.h"
#include "transport/core.h"
#include "transport/stream.h"
#include "transport/udp_fault.h"
#include "transport/udp.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/io.h"
#include "util/log.h"

STATS_COUNTER(udp_rejected, "udp: datagrams dropped for a bad header, sender or token");

/* While the comm thread sleeps: when it wakes (now_ns clock; UINT64_MAX:
 * only for something that arrives; 0: it does not sleep). It sleeps until
 * the next retransmission falls due, and a send's own falls due REL_RTO_NS
 * after it: a send that would be due sooner wakes it (posted). Once it
 * woke every 5 ms to look, 200 times a second in an idle job. */
static _Atomic uint64_t asleep_until;
/* Datagrams read per turn before the other work of the loop. */
#define RECV_BATCH 256
/* Socket buffers asked for: a window to every peer fits. */
#define SOCK_BUF (8 << 20)

/* What each node tells each peer over the mesh. */
typedef struct udp_hello {
    uint32_t magic;
    uint16_t port;       /* network order, as the group's */
    uint16_t group_port; /* node 0's choice of the job's multicast group */
    uint64_t token;      /* what the peer must show in its datagrams to the sender */
    uint32_t group;
    uint32_t zero;
} udp_hello;

udp_peer *udp_peers;
int udp_sock = -1;
static int group_sock = -1, wake_fd = -1;
static struct pollfd *pfd;
enum { SLOT_WAKE, SLOT_SOCK, SLOT_GROUP, SLOT_CORE, SLOT_MESH = SLOT_CORE + CORE_POLLFDS };
static log_rate reject_rate = {.what = "rejected datagrams"};
/* Any datagram fits (a multicast's member list included). */
static _Alignas(16) char rbuf[65536];

static uint64_t now_ns(void) { return (uint64_t)(now_s() * 1e9); }

static void udp_wake(void)
{
    uint64_t one = 1;
    ssize_t unused = write(wake_fd, &one, sizeof one);
    (void)unused;
}

/* A datagram the socket cannot take now is as good as lost: the
 * reliability layer sends it again. */
static void send_datagram(int dest, const struct iovec *iov, int n)
{
    const struct sockaddr_in *to = dest < 0 ? group_address() : &udp_peers[dest].addr;
    struct msghdr mh = {.msg_name = (void *)to, .msg_namelen = sizeof *to,
                        .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n};
    while (sendmsg(udp_sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
}

static void emit(int dest, const rel_hdr *h, const struct iovec *data, int n)
{
    rel_hdr out = *h;
    out.token = udp_peers[dest].token_out;
    struct iovec iov[4] = {{&out, sizeof out}};
    for (int i = 0; i < n; i++)
        iov[1 + i] = data[i];
    fault_pass(dest, iov, n + 1);
}

static void deliver(int src, const void *data, size_t len)
{
    rx_stream *rx = &udp_peers[src].rx;
    while (len) {
        size_t room;
        char *dst = rx_space(rx, &room);
        size_t take = len < room ? len : room;
        memcpy(dst, data, take);
        rx_commit(rx, take);
        data = (const char *)data + take;
        len -= take;
    }
}

/* An unordered message arrives whole in one datagram: its stream bytes,
 * which must be exactly those of the header's length. */
static void deliver_unordered(int src, const void *data, size_t len)
{
    tsr_msg_hdr h = {0};
    memcpy(&h, data, len < STREAM_HDR ? len : STREAM_HDR);
    if (len < STREAM_HDR || STREAM_BYTES(h.len) != len) {
        am_reject(src, &h, "an unordered datagram of %zu bytes for a %u-byte message", len,
                  h.len);
        return;
    }
    am_dispatch(src, &h, (char *)data + STREAM_HDR);
}

/* Why a datagram of n bytes from `from` is not to be taken, or NULL. */
static const char *forged(const rel_hdr *h, size_t n, const struct sockaddr_in *from)
{
    if (n < sizeof *h || h->magic != REL_MAGIC || h->members)
        return "is not a Tessera datagram";
    if (h->dst != cfg.node || h->src >= cfg.nodes || h->src == cfg.node)
        return "names another receiver, or an unknown sender";
    if (!udp_from_peer(h->src, from))
        return "comes from another address than its sender's";
    if (h->token != udp_peers[h->src].token_in)
        return "carries a wrong token";
    if (h->kind < REL_DATA || h->kind > REL_ACK || h->len > REL_FRAG ||
        n != sizeof *h + h->len || (h->kind == REL_ACK && h->len))
        return "has a bad kind or length";
    return NULL;
}

int udp_from_peer(int src, const struct sockaddr_in *from)
{
    const struct sockaddr_in *a = &udp_peers[src].addr;
    return from->sin_addr.s_addr == a->sin_addr.s_addr && from->sin_port == a->sin_port;
}

void udp_reject(ssize_t n, const char *why)
{
    COUNTER_ADD(udp_rejected, 1);
    log_rated(&reject_rate, "dropped a datagram of %zd bytes: it %s", n, why);
}

void udp_take(int src, const rel_hdr *h, const void *data)
{
    core_heard(src);
    if (rel_receive(&udp_peers[src].rel, h, data))
        log_rated(&reject_rate, "dropped a datagram from node %d: it acknowledges datagrams "
                  "never sent", src);
}

static void take_unicast(const void *buf, ssize_t n, const struct sockaddr_in *from)
{
    const rel_hdr *h = buf;
    const char *why = forged(h, (size_t)n, from);
    if (why)
        udp_reject(n, why);
    else
        udp_take(h->src, h, h + 1);
}

/* Reads what waits on fd, at most RECV_BATCH datagrams; returns how many. */
static int receive_from(int fd, void (*take)(const void *, ssize_t, const struct sockaddr_in *))
{
    int got = 0;
    while (fd >= 0 && got < RECV_BATCH) {
        struct sockaddr_in from;
        socklen_t flen = sizeof from;
        ssize_t n = recvfrom(fd, rbuf, sizeof rbuf, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        take(rbuf, n, &from);
        got++;
    }
    return got;
}

static int receive_all(void)
{
    int got = receive_from(udp_sock, take_unicast) + receive_from(group_sock, group_receive);
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node)
            rel_flush_ack(&udp_peers[j].rel);
    return got;
}

/* The mesh says only that a peer is gone (after its MSG_BYE, or not). */
static void watch_mesh(int j)
{
    if (!core_mesh_ended(j))
        return;
    core_link_closed(j);
    rel_close(&udp_peers[j].rel);
    close(pfd[SLOT_MESH + j].fd);
    boot.peer_fd[j] = pfd[SLOT_MESH + j].fd = -1;
}

/* Sends what is overdue; the nanoseconds until the next deadline. */
static uint64_t timers(void)
{
    uint64_t now = now_ns(), next = fault_release(now);
    for (int j = 0; j < cfg.nodes; j++) {
        if (j == cfg.node)
            continue;
        uint64_t due = rel_retransmit(&udp_peers[j].rel, now);
        if (due < next)
            next = due;
    }
    return next;
}

/* A message went into a peer's window or queue: wakes the comm thread if
 * it sleeps past the message's first retransmission. Any thread; the
 * fence orders the post before the look (the comm thread does the
 * converse: it says it sleeps, then looks at the timers). */
static void posted(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t until = atomic_load_explicit(&asleep_until, memory_order_relaxed);
    if (until && now_ns() + REL_RTO_NS < until &&
        atomic_compare_exchange_strong(&asleep_until, &until, 0))
        udp_wake();
}

static int udp_progress(int timeout_ms)
{
    atomic_store(&asleep_until, UINT64_MAX);
    uint64_t wait = timers();
    if (timeout_ms >= 0 && (uint64_t)timeout_ms * 1000000 < wait)
        wait = (uint64_t)timeout_ms * 1000000;
    if (core_pending())
        wait = 0;
    /* A post that saw UINT64_MAX woke us already: the store cannot lose it. */
    atomic_store(&asleep_until, !wait ? 0 : wait == UINT64_MAX ? UINT64_MAX : now_ns() + wait);
    int ready = core_poll(pfd, (nfds_t)(SLOT_MESH + cfg.nodes), pfd + SLOT_CORE, pfd + SLOT_WAKE,
                          wait == UINT64_MAX ? -1 : (int64_t)wait);
    atomic_store(&asleep_until, 0);
    int busy = core_drain_self();
    busy |= receive_all() > 0;
    for (int j = 0; j < cfg.nodes; j++)
        if (pfd[SLOT_MESH + j].fd >= 0 && pfd[SLOT_MESH + j].revents)
            watch_mesh(j);
    return busy || ready > 0;
}

/* For am_poll (backend.h), under the serve lock. */
static int udp_arrived(void)
{
    struct pollfd p[2] = {{udp_sock, POLLIN, 0}, {group_sock, POLLIN, 0}};
    return poll(p, 2, 0) > 0;
}

static void udp_receive(void) { receive_all(); }

static void udp_post(int dest, am_msg *m)
{
    rel_post(&udp_peers[dest].rel, m->heap == -1 ? am_detach(m) : m, 0);
    posted();
}

static void udp_post_unordered(int dest, am_msg *m)
{
    rel_post(&udp_peers[dest].rel, m->heap == -1 ? am_detach(m) : m, 1);
    posted();
}

/* Members of a multicast whose list still fits one datagram beside a
 * whole fragment. */
#define GROUP_MEMBERS_MAX 1024
/* How long am_multicast waits for room before it sends one unicast per
 * member instead. */
#define MULTICAST_WAIT_S 0.05

static int udp_multicast(const int *dests, int n, const am_msg *m)
{
    if (!group_native() || n > GROUP_MEMBERS_MAX)
        return 0;
    char member[GROUP_MEMBERS_MAX] = {0};
    for (int i = 0; i < n; i++)
        if (dests[i] < 0 || dests[i] >= cfg.nodes || dests[i] >= GROUP_MEMBERS_MAX ||
            member[dests[i]]++)
            return 0; /* a node twice: one unicast each, as asked */
    rel_peer *ps[GROUP_MEMBERS_MAX];
    int k = 0;
    for (int j = 0; j < cfg.nodes && j < GROUP_MEMBERS_MAX; j++)
        if (member[j] && j != cfg.node)
            ps[k++] = &udp_peers[j].rel;
    am_msg *shared = k ? rel_share(m, k) : NULL;
    if (!shared)
        return 0;
    /* Room in every member's window at once comes as acknowledgements do:
     * a sender waits for it a little (flow control), the comm thread not
     * at all (it is what brings them). */
    double give_up = now_s() + MULTICAST_WAIT_S;
    while (!rel_multicast(ps, k, shared)) {
        if (core_serving() || now_s() > give_up) {
            rel_unshare(shared);
            return 0;
        }
        sched_yield();
    }
    posted();
    return 1;
}

static int udp_idle(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node && !rel_idle(&udp_peers[j].rel))
            return 0;
    return fault_idle();
}

static void queued(int dest, long bytes)
{
    if (bytes > 0)
        sendq_grew(dest, (size_t)bytes);
    else
        sendq_shrank(dest, (size_t)-bytes);
}

static const rel_ops ops = {emit, group_emit, deliver, deliver_unordered, now_ns, queued};

/* A datagram socket on the address the node listens on for its udp_peers. */
static void open_socket(void)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    if (getsockname(boot.listen_fd, (struct sockaddr *)&sa, &len))
        log_die("cannot set up the udp transport: no peer address: %m");
    sa.sin_port = 0;
    udp_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (udp_sock < 0 || bind(udp_sock, (struct sockaddr *)&sa, sizeof sa))
        log_die("cannot set up the udp transport: %m");
    int size = SOCK_BUF;
    /* Beyond net.core.rmem_max only with CAP_NET_ADMIN; a smaller buffer
     * drops more under bursts, which retransmission repairs. */
    if (setsockopt(udp_sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size))
        setsockopt(udp_sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    if (setsockopt(udp_sock, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size))
        setsockopt(udp_sock, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

/* Tells each peer, over its authenticated TCP connection, our port and
 * the token it must show (node 0: and the job's multicast group); learns
 * the same from it. */
static void exchange_hellos(struct sockaddr_in *group)
{
    struct sockaddr_in own;
    socklen_t len = sizeof own;
    getsockname(udp_sock, (struct sockaddr *)&own, &len);
    if (cfg.node == 0)
        group_choose(&group->sin_addr.s_addr, &group->sin_port);
    for (int j = 0; j < cfg.nodes; j++) {
        if (j == cfg.node)
            continue;
        if (getrandom(&udp_peers[j].token_in, sizeof udp_peers[j].token_in, 0) != sizeof(uint64_t))
            log_die("cannot set up the udp transport: getrandom: %m");
        udp_hello h = {REL_MAGIC, own.sin_port, group->sin_port, udp_peers[j].token_in,
                       group->sin_addr.s_addr, 0};
        if (io_write_all(boot.peer_fd[j], &h, sizeof h))
            boot_stop(j, "failed (connection lost while the udp transport started)", -1);
    }
    double deadline = now_s() + cfg.connect_timeout_s;
    for (int j = 0; j < cfg.nodes; j++) {
        if (j == cfg.node)
            continue;
        udp_hello h;
        len = sizeof udp_peers[j].addr;
        if (io_read_full(boot.peer_fd[j], &h, sizeof h, deadline) || h.magic != REL_MAGIC ||
            getpeername(boot.peer_fd[j], (struct sockaddr *)&udp_peers[j].addr, &len))
            boot_stop(j, "failed (no udp endpoint received while the transport started: another TSR_TRANSPORT?)", -1);
        udp_peers[j].addr.sin_port = h.port;
        udp_peers[j].token_out = h.token;
        if (j == 0)
            *group = (struct sockaddr_in){AF_INET, h.group_port, {h.group}, {0}};
    }
}

static void udp_start(void)
{
    udp_peers = calloc((size_t)cfg.nodes, sizeof *udp_peers);
    pfd = calloc((size_t)(SLOT_MESH + cfg.nodes), sizeof *pfd);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!udp_peers || !pfd || wake_fd < 0)
        log_die("cannot set up the udp transport: %m");
    stats_register(&udp_rejected);
    rel_setup(&ops);
    fault_setup(send_datagram);
    pfd[SLOT_WAKE] = (struct pollfd){wake_fd, POLLIN, 0};
    pfd[SLOT_SOCK] = pfd[SLOT_GROUP] = (struct pollfd){-1, POLLIN, 0};
    for (int j = 0; j < cfg.nodes; j++) {
        pfd[SLOT_MESH + j] = (struct pollfd){boot.peer_fd[j], POLLIN, 0};
        rel_init(&udp_peers[j].rel, j);
        rx_init(&udp_peers[j].rx, j);
    }
    if (cfg.nodes == 1)
        return;
    open_socket();
    pfd[SLOT_SOCK].fd = udp_sock;
    struct sockaddr_in group = {0}, own;
    exchange_hellos(&group);
    socklen_t len = sizeof own;
    getsockname(udp_sock, (struct sockaddr *)&own, &len);
    group_sock = group_open(udp_sock, own.sin_addr.s_addr, group.sin_addr.s_addr, group.sin_port);
    log_debug("udp: datagrams on port %u", ntohs(own.sin_port));
    pfd[SLOT_GROUP].fd = group_sock;
    for (int j = 0; j < cfg.nodes; j++)
        if (boot.peer_fd[j] >= 0)
            fcntl(boot.peer_fd[j], F_SETFL, fcntl(boot.peer_fd[j], F_GETFL) | O_NONBLOCK);
}

static void udp_stop(void)
{
    for (int j = 0; j < cfg.nodes; j++) {
        if (boot.peer_fd[j] >= 0)
            close(boot.peer_fd[j]);
        rel_free(&udp_peers[j].rel);
        rx_free(&udp_peers[j].rx);
    }
    if (udp_sock >= 0)
        close(udp_sock);
    if (group_sock >= 0)
        close(group_sock);
    close(wake_fd);
    free(udp_peers);
    free(pfd);
}

/* The comm thread receives everything: no take_replies. */
const tsr_backend udp_backend = {.name = "udp",
                                 .start = udp_start,
                                 .post = udp_post,
                                 .post_unordered = udp_post_unordered,
                                 .multicast = udp_multicast,
                                 .multicast_native = group_native,
                                 .progress = udp_progress,
                                 .arrived = udp_arrived,
                                 .receive = udp_receive,
                                 .wake = udp_wake,
                                 .idle = udp_idle,
                                 .stop = udp_stop};
