/*
 * tcp.c - the TCP backend: one connection per pair of nodes (TCP_NODELAY),
 * built by the bootstrap (boot/boot.c), each a message link (tcp_link.h),
 * read by the comm thread.
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
#include "transport/tcp_link.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

static tcp_link *peers;
static int wake_fd = -1, watch_fd = -1; /* watch_fd: the epoll set of sockets to read */
/* The poll set: the wake-up eventfd, the core's descriptors, the epoll
 * set, then one per peer for writing what waits. */
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
    if (tcp_link_post(&peers[dest], m))
        tcp_wake();
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
    for (int i = 0; i < cfg.nodes; i++) {
        int in = look && !atomic_load_explicit(&peers[i].polled, memory_order_relaxed);
        int out = tcp_link_queued(&peers[i]);
        pfd[SLOT_PEERS + i] = (struct pollfd){in || out ? peers[i].fd : -1,
                                              (short)((in ? POLLIN : 0) | (out ? POLLOUT : 0)), 0};
    }
    pfd[SLOT_WATCH].fd = look ? -1 : watch_fd;
    int ready = core_poll(pfd, (nfds_t)(SLOT_PEERS + cfg.nodes), pfd + SLOT_CORE,
                          pfd + SLOT_WAKE, (int64_t)timeout_ms * 1000000);
    if (ready == 0)
        return core_drain_self();
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

static void tcp_start(void)
{
    peers = calloc((size_t)cfg.nodes, sizeof *peers);
    pfd = calloc((size_t)(SLOT_PEERS + cfg.nodes), sizeof *pfd);
    poll_pfd = calloc((size_t)cfg.nodes, sizeof *poll_pfd);
    ready = calloc((size_t)cfg.nodes, sizeof *ready);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    watch_fd = epoll_create1(EPOLL_CLOEXEC);
    if (!peers || !pfd || !poll_pfd || !ready || wake_fd < 0 || watch_fd < 0)
        log_die("cannot set up the TCP transport: %m");
    pfd[SLOT_WAKE] = (struct pollfd){wake_fd, POLLIN, 0};
    pfd[SLOT_WATCH] = (struct pollfd){watch_fd, POLLIN, 0};
    for (int i = 0; i < cfg.nodes; i++) {
        tcp_link_init(&peers[i], i, boot.peer_fd[i]);
        if (peers[i].fd >= 0)
            watch(i, 1);
    }
}

static void tcp_stop(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        tcp_link_free(&peers[i]);
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
                                 .stop = tcp_stop};
