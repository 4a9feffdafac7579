/*
 * tcp_link.c - one TCP connection as a message link (tcp_link.h).
 *
 * A sender writes directly when the queue is empty (the common case, no
 * thread hop); otherwise the message joins the queue and the comm thread
 * flushes it when the socket drains. The comm thread itself never blocks on
 * a write, so two nodes sending each other large messages cannot deadlock.
 *
 * Two kinds of thread read the socket, one at a time (`reading`): the
 * serving thread, which reads all there is into the stream and dispatches
 * every message, and a thread waiting for a reply, which takes the message
 * at the socket's front only if am_direct says it is that reply (as over
 * shm, shm_read.c).
 */
#include "transport/tcp_link.h"

#include <errno.h>
#include <linux/sockios.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/core.h"
#include "util/log.h"

void tcp_link_init(tcp_link *l, int node, int fd)
{
    *l = (tcp_link){.fd = -1, .node = node};
    if (fd >= 0)
        tcp_link_open(l, fd);
}

/* Senders read fd under the lock, so none writes past what was queued
 * before the socket came. */
void tcp_link_open(tcp_link *l, int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    rx_init(&l->rx, l->node);
    spin_lock(&l->lock);
    l->fd = fd;
    spin_unlock(&l->lock);
    atomic_store(&l->used, 1);
}

void tcp_link_free(tcp_link *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    rx_free(&l->rx);
}

/* Writes as much of m as the socket takes: 1 when all of it is out, 0 when
 * the socket is full (or broken: the reader will see the end of file). A
 * payload the kernel cannot read (EFAULT) is a bug, not back-pressure: it
 * would be retried forever. */
static int write_some(tcp_link *l, am_msg *m)
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
        ssize_t w = sendmsg(l->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EFAULT)
                log_die_status(1, "sending %s to node %d: its payload at %p is not readable",
                               msg_name(m->hdr.type), l->node, m->payload);
            return 0;
        }
        m->sent += (size_t)w;
    }
    return 1;
}

/* The comm thread reads a queue's head without the lock (tcp_link_queued), so
 * head is stored and read atomically. */
int tcp_link_queued(const tcp_link *l) { return __atomic_load_n(&l->head, __ATOMIC_RELAXED) != NULL; }
static void set_head(tcp_link *l, am_msg *m) { __atomic_store_n(&l->head, m, __ATOMIC_RELAXED); }

static void release_msg(am_msg *m)
{
    if (m->heap == 1)
        free(m);
}

int tcp_link_post(tcp_link *l, am_msg *m)
{
    spin_lock(&l->lock);
    if (!l->head && l->fd >= 0 && write_some(l, m)) {
        spin_unlock(&l->lock);
        release_msg(m);
        return 0;
    }
    if (m->heap == -1)
        m = am_detach(m);
    m->next = NULL;
    sendq_grew(l->node, STREAM_BYTES(m->hdr.len));
    if (l->tail)
        l->tail->next = m;
    else
        set_head(l, m);
    l->tail = m;
    spin_unlock(&l->lock);
    return 1;
}

void tcp_link_flush(tcp_link *l)
{
    spin_lock(&l->lock);
    while (l->head && write_some(l, l->head)) {
        am_msg *m = l->head;
        set_head(l, m->next);
        if (!l->head)
            l->tail = NULL;
        sendq_shrank(l->node, STREAM_BYTES(m->hdr.len));
        release_msg(m);
    }
    spin_unlock(&l->lock);
}

void tcp_link_serve(tcp_link *l, short revents)
{
    if (revents & POLLOUT)
        tcp_link_flush(l);
    if ((revents & (POLLIN | POLLHUP | POLLERR)) && !tcp_link_read(l)) {
        core_link_closed(l->node);
        tcp_link_free(l);
    }
}

static int read_all(tcp_link *l)
{
    for (;;) {
        size_t room;
        char *dst = rx_space(&l->rx, &room);
        ssize_t n = read(l->fd, dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (n <= 0)
            return 0;
        rx_commit(&l->rx, (size_t)n);
    }
}

/* A waiting thread that holds `reading` will leave what it does not take
 * to this thread (tcp.c watches the socket again for it). */
int tcp_link_read(tcp_link *l)
{
    if (!spin_trylock(&l->reading))
        return 1;
    int open = read_all(l);
    spin_unlock(&l->reading);
    return open;
}

static ssize_t recv_some(int fd, void *buf, size_t len, int flags)
{
    ssize_t n;
    do
        n = recv(fd, buf, len, flags | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    return n;
}

/* Reads the `total` bytes the kernel holds (SIOCINQ said so) and no other
 * thread reads: anything short of them is a broken stream. */
static void read_exactly(tcp_link *l, char *buf, size_t total)
{
    while (total) {
        ssize_t n = recv_some(l->fd, buf, total, 0);
        if (n <= 0)
            log_die_status(1, "the reply from node %d vanished from its socket: %s", l->node,
                           n ? "read error" : "end of file");
        buf += n;
        total -= (size_t)n;
    }
}

/* tcp_link_take, under `reading`: the header is looked at (MSG_PEEK) and
 * checked, and the message read only once it is all in, so that what is
 * not this thread's stays on the socket for the serving thread. A peer
 * that only answers this way is still heard: its heartbeats go to the
 * serving thread. */
static int take_front(tcp_link *l)
{
    size_t room;
    char *buf = rx_space(&l->rx, &room);
    if (l->fd < 0 || !rx_idle(&l->rx))
        return -1;
    tsr_msg_hdr h;
    ssize_t n = recv_some(l->fd, &h, STREAM_HDR, MSG_PEEK);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if (n == 0)
        return -1; /* the end of file is the serving thread's */
    if ((size_t)n < STREAM_HDR)
        return 0;
    size_t total = STREAM_BYTES(h.len);
    int have;
    if (total > room || !am_direct(l->node, &h) || ioctl(l->fd, SIOCINQ, &have) < 0)
        return -1;
    if ((size_t)have < total)
        return 0;
    read_exactly(l, buf, total);
    am_dispatch_direct(l->node, &h, buf + STREAM_HDR);
    return 1;
}

int tcp_link_take(tcp_link *l)
{
    if (!spin_trylock(&l->reading))
        return 0; /* the serving thread reads it now */
    int took = take_front(l);
    spin_unlock(&l->reading);
    return took;
}
