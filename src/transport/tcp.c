/*
 * tcp.c - the TCP backend: one connection per pair of nodes that talk
 * (TCP_NODELAY), each a message link (tcp_link.h), read by the comm thread.
 *
 * Under TSR_CONNECT=demand, the default, the bootstrap builds no mesh (with
 * TSR_CONNECT=start it connects every pair, boot/boot.c): a link is opened
 * by the comm thread when a first message waits for it (tcp_dial.h), or
 * taken from the peer's connection (tcp_peer_hello). When both sides
 * connect at once, the lower-numbered node's connection is kept; no
 * message has been written on either before its acknowledgement, so none
 * is lost or doubled, and those queued meanwhile go out in order.
 *
 * A comm thread that may sleep watches the sockets for reading through an
 * epoll set, itself one entry of its poll set beside the core's
 * descriptors, so that a thread waiting for a reply can take a socket out
 * of it for the time it reads that socket itself (poll_begin to
 * poll_end): the reply then wakes
 * no comm thread on this node, and takes no hop through one. Taking the
 * socket out is one system call, as is putting it back; the kernel orders
 * them, so no arrival falls between the waiter's last look and the comm
 * thread's watch, and a socket put back with data waiting wakes the comm
 * thread at once.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/backend.h"
#include "transport/core.h"
#include "stats/stats.h"
#include "transport/tcp_dial.h"
#include "transport/tcp_link.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(peer_connections, "TCP connections to peers this node opened or accepted "
                                "(TSR_CONNECT=demand: those it talked to)");

STATS_COUNTER(crossed_connections, "this node's connections given up for a lower-numbered "
                                    "peer's own that crossed them (TSR_CONNECT=demand)");

static tcp_link *peers;
/* On demand (NULL otherwise): each peer's dial, and whether a message
 * was ever posted to it (tcp_linked). */
static tcp_dial *dials;
static _Atomic int *wanted;
static int wake_fd = -1, watch_fd = -1; /* watch_fd: the epoll set of sockets to read */
/* The poll set: the wake-up eventfd, the core's descriptors, the epoll
 * set, then one per peer for writing what waits, then (on demand) one per
 * peer for its dial, which may outlive the link's opening (an orphan). */
static struct pollfd *pfd;
static struct pollfd *poll_pfd; /* am_poll's, under the serve lock */
static struct epoll_event *ready;
enum { SLOT_WAKE, SLOT_CORE, SLOT_WATCH = SLOT_CORE + CORE_POLLFDS, SLOT_PEERS };

/* Puts peer's socket in the comm thread's watch, or takes it out. Errors
 * are of a socket already closed (or already in or out): nothing to do. */
static void watch(int peer, int on)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)peer};
    int unused = epoll_ctl(watch_fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, peers[peer].fd, &ev);
    (void)unused;
}

static void tcp_wake(void)
{
    uint64_t one = 1;
    ssize_t unused = write(wake_fd, &one, sizeof one);
    (void)unused;
}

static void tcp_post(int dest, am_msg *m)
{
    if (wanted && !atomic_load_explicit(&wanted[dest], memory_order_relaxed))
        atomic_store(&wanted[dest], 1);
    if (tcp_link_post(&peers[dest], m))
        tcp_wake();
}

static int tcp_linked(int peer)
{
    return !wanted || atomic_load(&peers[peer].used) || atomic_load(&wanted[peer]);
}

static int tcp_connecting(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        if (atomic_load(&wanted[i]) && !atomic_load(&peers[i].used))
            return 1;
    return 0;
}

/* The link to peer has its socket: it is watched (unless a waiter polls
 * it since it opened) and what waited for it is written. */
static void open_link(int peer, int fd)
{
    tcp_link *l = &peers[peer];
    tcp_link_open(l, fd);
    COUNTER_ADD(peer_connections, 1);
    if (!atomic_load(&l->polled))
        watch(peer, 1);
    tcp_link_flush(l);
    core_link_opened(peer);
}

/* boot.peer_hello: a peer connects, its hello checked by boot. If this
 * node dials it too, the lower-numbered node's connection is the one
 * kept: the lower closes the higher's unanswered (the higher's dial then
 * fails and waits, and takes the lower's when it comes), the higher ends
 * its own after its hello (tcp_dial_orphan). */
static const char *tcp_peer_hello(int peer, int fd)
{
    if (atomic_load(&peers[peer].used) || (dials[peer].active && cfg.node < peer)) {
        close(fd); /* the other of two crossing connections: no stranger's */
        return NULL;
    }
    if (dials[peer].active)
        COUNTER_ADD(crossed_connections, 1);
    tcp_dial_orphan(&dials[peer]);
    if (boot_mesh_ack(fd))
        return "closed before the acknowledgement";
    open_link(peer, fd);
    return NULL;
}

/* Starts the dials that messages wait for, and returns the progress
 * wait shortened to the dials' next step. */
static int dial_timeout(int timeout_ms)
{
    for (int i = 0; i < cfg.nodes; i++) {
        tcp_link *l = &peers[i];
        if (!dials[i].active && !atomic_load(&l->used) && tcp_link_queued(l))
            tcp_dial_start(&dials[i], i);
        int ms = dials[i].active ? tcp_dial_timeout_ms(&dials[i]) : -1;
        if (ms >= 0 && (timeout_ms < 0 || ms < timeout_ms))
            timeout_ms = ms;
    }
    return timeout_ms;
}

/* After the poll: each dial takes its step. Returns 1 if a link opened. */
static int step_dials(void)
{
    int opened = 0;
    for (int i = 0; i < cfg.nodes; i++) {
        if (!dials[i].active)
            continue;
        int fd = tcp_dial_step(&dials[i], i, pfd[SLOT_PEERS + cfg.nodes + i].revents);
        if (fd >= 0) {
            open_link(i, fd);
            opened = 1;
        }
    }
    return opened;
}

static int tcp_idle(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        if (tcp_link_queued(&peers[i]))
            return 0;
    return 1;
}

/* Serves the sockets the epoll set found readable (or closed). */
static void serve_watched(void)
{
    int n;
    while ((n = epoll_wait(watch_fd, ready, cfg.nodes, 0)) < 0 && errno == EINTR)
        ;
    for (int i = 0; i < n; i++) {
        uint32_t e = ready[i].events;
        tcp_link_serve(&peers[ready[i].data.u32],
                       (short)((e & EPOLLIN ? POLLIN : 0) | (e & (EPOLLHUP | EPOLLERR) ? POLLHUP : 0)));
    }
}

/* A turn that cannot sleep (timeout 0: the comm thread polls) looks at
 * the sockets no waiter polls in its own poll set, one system call, as
 * before the epoll set: taking the epoll set's news cost a second one,
 * and a 2-node barrier over TCP took 33 us rather than 24 (tsr_micro,
 * medians of 8 alternated runs, quiet). A socket a waiter begins to poll
 * meanwhile may be read here too: the `reading` lock keeps the two apart,
 * and the reply then only takes the comm thread's hop. A turn that may
 * sleep watches through the epoll set, which no waiter's socket is in. */
static int tcp_progress(int timeout_ms)
{
    int look = timeout_ms == 0;
    if (dials)
        timeout_ms = dial_timeout(timeout_ms);
    for (int i = 0; i < cfg.nodes; i++) {
        if (dials)
            pfd[SLOT_PEERS + cfg.nodes + i] =
                dials[i].active ? tcp_dial_pollfd(&dials[i]) : (struct pollfd){-1, 0, 0};
        int in = look && !atomic_load_explicit(&peers[i].polled, memory_order_relaxed);
        int out = tcp_link_queued(&peers[i]);
        pfd[SLOT_PEERS + i] = (struct pollfd){in || out ? peers[i].fd : -1,
                                              (short)((in ? POLLIN : 0) | (out ? POLLOUT : 0)), 0};
    }
    pfd[SLOT_WATCH].fd = look ? -1 : watch_fd;
    int ready = core_poll(pfd, (nfds_t)(SLOT_PEERS + (dials ? 2 : 1) * cfg.nodes), pfd + SLOT_CORE,
                          pfd + SLOT_WAKE, (int64_t)timeout_ms * 1000000);
    int opened = dials && step_dials();
    if (ready == 0)
        return core_drain_self() | opened;
    core_drain_self();
    for (int i = 0; i < cfg.nodes; i++)
        if (pfd[SLOT_PEERS + i].revents)
            tcp_link_serve(&peers[i], pfd[SLOT_PEERS + i].revents);
    if (!look && pfd[SLOT_WATCH].revents)
        serve_watched();
    return 1;
}

/* backend.h's direct replies. The first waiter on a peer takes its socket
 * out of the watch, the last puts it back; the kernel orders the two, and
 * each taking out happens before its thread's count falls, so whatever
 * way begins and ends interleave, the socket is watched when no thread
 * polls it. */
static int tcp_poll_begin(int peer)
{
    if (peer == cfg.node || peers[peer].fd < 0)
        return 0;
    if (atomic_fetch_add(&peers[peer].polled, 1) == 0)
        watch(peer, 0);
    return 1;
}

static void tcp_poll_end(int peer)
{
    if (atomic_fetch_sub(&peers[peer].polled, 1) == 1)
        watch(peer, 1);
}

/* A message that is not the waiter's goes to the comm thread: the socket
 * is watched again, which wakes it since data waits, and the waiter
 * leaves its reply to it (-1). */
static int tcp_take_replies(int peer)
{
    int took = tcp_link_take(&peers[peer]);
    if (took < 0)
        watch(peer, 1);
    return took;
}

/* For am_poll (backend.h): one look at every link, and what it found. */
static int tcp_arrived(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        poll_pfd[i] = (struct pollfd){peers[i].fd, POLLIN, 0};
    return poll(poll_pfd, (nfds_t)cfg.nodes, 0) > 0;
}

static void tcp_receive(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        if (poll_pfd[i].revents & POLLIN)
            tcp_link_read(&peers[i]); /* an end of file stays for the comm thread */
}

static void start_on_demand(void)
{
    dials = calloc((size_t)cfg.nodes, sizeof *dials);
    wanted = calloc((size_t)cfg.nodes, sizeof *wanted);
    if (!dials || !wanted)
        log_die("cannot set up the TCP transport: out of memory");
    for (int i = 0; i < cfg.nodes; i++)
        dials[i].fd = -1;
    boot.peer_hello = tcp_peer_hello;
}

static void tcp_start(void)
{
    peers = calloc((size_t)cfg.nodes, sizeof *peers);
    pfd = calloc((size_t)(SLOT_PEERS + 2 * cfg.nodes), sizeof *pfd);
    poll_pfd = calloc((size_t)cfg.nodes, sizeof *poll_pfd);
    ready = calloc((size_t)cfg.nodes, sizeof *ready);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    watch_fd = epoll_create1(EPOLL_CLOEXEC);
    if (!peers || !pfd || !poll_pfd || !ready || wake_fd < 0 || watch_fd < 0)
        log_die("cannot set up the TCP transport: %m");
    pfd[SLOT_WAKE] = (struct pollfd){wake_fd, POLLIN, 0};
    pfd[SLOT_WATCH] = (struct pollfd){watch_fd, POLLIN, 0};
    stats_register(&peer_connections);
    stats_register(&crossed_connections);
    for (int i = 0; i < cfg.nodes; i++) {
        tcp_link_init(&peers[i], i, boot.peer_fd[i]);
        if (peers[i].fd >= 0) {
            watch(i, 1);
            COUNTER_ADD(peer_connections, 1);
        }
    }
    if (boot.on_demand)
        start_on_demand();
}

static void tcp_stop(void)
{
    boot.peer_hello = NULL;
    for (int i = 0; i < cfg.nodes; i++) {
        tcp_link_free(&peers[i]);
        if (dials)
            tcp_dial_drop(&dials[i]);
    }
    free(dials);
    free((void *)wanted);
    dials = NULL;
    wanted = NULL;
    free(peers);
    free(pfd);
    free(poll_pfd);
    free(ready);
    close(wake_fd);
    close(watch_fd);
}

const tsr_backend tcp_backend = {.name = "tcp",
                                 .start = tcp_start,
                                 .post = tcp_post,
                                 .progress = tcp_progress,
                                 .poll_begin = tcp_poll_begin,
                                 .poll_end = tcp_poll_end,
                                 .take_replies = tcp_take_replies,
                                 .take_yield = WAIT_YIELD_FOR_COMM,
                                 .arrived = tcp_arrived,
                                 .receive = tcp_receive,
                                 .wake = tcp_wake,
                                 .idle = tcp_idle,
                                 .stop = tcp_stop,
                                 .linked = tcp_linked,
                                 .connecting = tcp_connecting};
