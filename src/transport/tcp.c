/*
 * tcp.c - the TCP backend: one connection per pair of nodes (TCP_NODELAY),
 * built by the bootstrap (boot/boot.c), and read by the comm thread in one
 * poll set with the core's descriptors.
 *
 * Senders write directly when a connection's queue is empty (the common case,
 * no thread hop); otherwise the message joins the queue and the comm thread
 * flushes it when the socket drains. The comm thread itself never blocks on a
 * write, so two nodes sending each other large messages cannot deadlock.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/backend.h"
#include "transport/core.h"
#include "util/spin.h"
#include "transport/stream.h"
#include "util/config.h"
#include "util/log.h"

typedef struct peer {
    int fd;
    spin_t lock;        /* guards head/tail and writing to fd */
    am_msg *head, *tail;
    rx_stream rx;
} peer;

static peer *peers;
static int wake_fd = -1;
/* The poll set: the wake-up eventfd, the core's descriptors, one per peer. */
static struct pollfd *pfd;
static struct pollfd *poll_pfd; /* am_poll's, under the serve lock */
enum { SLOT_WAKE, SLOT_CORE, SLOT_PEERS = SLOT_CORE + CORE_POLLFDS };

static void tcp_wake(void)
{
    uint64_t one = 1;
    ssize_t unused = write(wake_fd, &one, sizeof one);
    (void)unused;
}

/* Writes as much of m as the socket takes: 1 when all of it is out, 0 when
 * the socket is full (or broken: the reader will see the end of file). A
 * payload the kernel cannot read (EFAULT) is a bug, not back-pressure: it
 * would be retried forever. */
static int write_some(peer *p, am_msg *m)
{
    size_t total = STREAM_BYTES(m->hdr.len);
    while (m->sent < total) {
        const void *base[3];
        size_t len[3];
        struct iovec iov[3];
        int n = tx_pieces(m, base, len);
        for (int i = 0; i < n; i++)
            iov[i] = (struct iovec){(void *)base[i], len[i]};
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = sendmsg(p->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EFAULT)
                log_die_status(1, "sending %s to node %d: its payload at %p is not readable",
                               msg_name(m->hdr.type), (int)(p - peers), m->payload);
            return 0;
        }
        m->sent += (size_t)w;
    }
    return 1;
}

/* The comm thread reads a queue's head without the lock, to choose whether
 * to poll for POLLOUT and whether it may stop (a stale answer costs one more
 * loop: every post wakes it), so head is stored and read there atomically. */
static int has_queued(const peer *p) { return __atomic_load_n(&p->head, __ATOMIC_RELAXED) != NULL; }
static void set_head(peer *p, am_msg *m) { __atomic_store_n(&p->head, m, __ATOMIC_RELAXED); }

static void release_msg(am_msg *m)
{
    if (m->heap == 1)
        free(m);
}

static void tcp_post(int dest, am_msg *m)
{
    peer *p = &peers[dest];
    spin_lock(&p->lock);
    if (!p->head && write_some(p, m)) {
        spin_unlock(&p->lock);
        release_msg(m);
        return;
    }
    if (m->heap == -1)
        m = am_detach(m);
    m->next = NULL;
    sendq_grew(dest, STREAM_BYTES(m->hdr.len));
    if (p->tail)
        p->tail->next = m;
    else
        set_head(p, m);
    p->tail = m;
    spin_unlock(&p->lock);
    tcp_wake();
}

static void flush_peer(peer *p)
{
    spin_lock(&p->lock);
    while (p->head && write_some(p, p->head)) {
        am_msg *m = p->head;
        set_head(p, m->next);
        if (!p->head)
            p->tail = NULL;
        sendq_shrank((int)(p - peers), STREAM_BYTES(m->hdr.len));
        release_msg(m);
    }
    spin_unlock(&p->lock);
}

/* Reads until the socket is empty. Returns 0 at the peer's end of file. */
static int read_peer(peer *p)
{
    for (;;) {
        size_t room;
        char *dst = rx_space(&p->rx, &room);
        ssize_t n = read(p->fd, dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (n <= 0)
            return 0;
        rx_commit(&p->rx, (size_t)n);
    }
}

static int tcp_idle(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        if (has_queued(&peers[i]))
            return 0;
    return 1;
}

static int tcp_progress(int timeout_ms)
{
    for (int i = 0; i < cfg.nodes; i++)
        pfd[SLOT_PEERS + i] = (struct pollfd){
            peers[i].fd, (short)(POLLIN | (has_queued(&peers[i]) ? POLLOUT : 0)), 0};
    core_pollfds(pfd + SLOT_CORE);
    /* No EINTR here: the comm thread blocks every signal. */
    if (timeout_ms)
        core_sleep_begin();
    int ready = poll(pfd, (nfds_t)(SLOT_PEERS + cfg.nodes), timeout_ms);
    if (timeout_ms)
        core_sleep_end();
    if (ready < 0)
        log_die_status(1, "the communication thread's poll failed: %m");
    core_serve(pfd + SLOT_CORE);
    if (ready == 0)
        return core_drain_self();
    if (pfd[SLOT_WAKE].revents) {
        uint64_t v;
        ssize_t unused = read(wake_fd, &v, sizeof v);
        (void)unused;
    }
    core_drain_self();
    for (int i = 0; i < cfg.nodes; i++) {
        peer *p = &peers[i];
        short ev = pfd[SLOT_PEERS + i].revents;
        if (ev & POLLOUT)
            flush_peer(p);
        if ((ev & (POLLIN | POLLHUP | POLLERR)) && !read_peer(p)) {
            core_link_closed(i);
            close(p->fd);
            p->fd = -1;
        }
    }
    return 1;
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
            read_peer(&peers[i]); /* an end of file stays for the comm thread */
}

static void tcp_start(void)
{
    peers = calloc((size_t)cfg.nodes, sizeof *peers);
    pfd = calloc((size_t)(SLOT_PEERS + cfg.nodes), sizeof *pfd);
    poll_pfd = calloc((size_t)cfg.nodes, sizeof *poll_pfd);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!peers || !pfd || !poll_pfd || wake_fd < 0)
        log_die("cannot set up the TCP transport: %m");
    pfd[SLOT_WAKE] = (struct pollfd){wake_fd, POLLIN, 0};
    for (int i = 0; i < cfg.nodes; i++) {
        peers[i].fd = boot.peer_fd[i];
        if (peers[i].fd < 0)
            continue;
        fcntl(peers[i].fd, F_SETFL, fcntl(peers[i].fd, F_GETFL) | O_NONBLOCK);
        rx_init(&peers[i].rx, i);
    }
}

static void tcp_stop(void)
{
    for (int i = 0; i < cfg.nodes; i++) {
        if (peers[i].fd >= 0)
            close(peers[i].fd);
        rx_free(&peers[i].rx);
    }
    free(peers);
    free(pfd);
    free(poll_pfd);
    close(wake_fd);
}

/* The comm thread receives everything: no take_replies. */
const tsr_backend tcp_backend = {.name = "tcp",
                                 .start = tcp_start,
                                 .post = tcp_post,
                                 .progress = tcp_progress,
                                 .arrived = tcp_arrived,
                                 .receive = tcp_receive,
                                 .wake = tcp_wake,
                                 .idle = tcp_idle,
                                 .stop = tcp_stop};
