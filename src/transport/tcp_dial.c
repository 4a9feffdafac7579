/*
 * tcp_dial.c - a connection opened on demand (tcp_dial.h), one step per
 * event of the comm thread's poll.
 */
#include "transport/tcp_dial.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/core.h"
#include "util/config.h"
#include "util/cpu.h"

/* Between two attempts: a refusal is a crowded gate or a crossing
 * connection, both over within milliseconds. */
#define RETRY_S 0.01

/* This attempt failed with errno `err`: the next one after a pause. */
static void fail(tcp_dial *d, int err)
{
    if (d->fd >= 0)
        close(d->fd);
    *d = (tcp_dial){.active = 1, .fd = -1, .err = err, .deadline = d->deadline,
                    .retry_at = now_s() + RETRY_S};
}

/* Writes the hello whole, or nothing yet (-1: the socket would block or
 * is not connected yet); anything else fails the attempt. */
static int write_hello(tcp_dial *d)
{
    boot_hello h;
    boot_mesh_hello(&h);
    ssize_t n = send(d->fd, &h, sizeof h, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == (ssize_t)sizeof h)
        d->hello_sent = 1;
    else if (n >= 0 || (errno != EAGAIN && errno != ENOTCONN))
        fail(d, n >= 0 ? EPROTO : errno);
    return d->hello_sent ? 0 : -1;
}

/* The hello goes with the connect where the kernel takes it before the
 * handshake ends (over loopback it does): the peer's gate gives a
 * newcomer a second to speak, and this node's comm thread, on a loaded
 * machine, may come back to the socket later than that. */
static void attempt(tcp_dial *d, int peer)
{
    const boot_endpoint *ep = &boot.ep[peer];
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = ep->port,
                             .sin_addr.s_addr = ep->addr};
    d->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (d->fd < 0)
        fail(d, errno);
    else if (connect(d->fd, (struct sockaddr *)&sa, sizeof sa) && errno != EINPROGRESS)
        fail(d, errno);
    else
        write_hello(d);
}

/* Connected (or not: SO_ERROR says): the hello, if it has not gone yet. */
static void send_hello(tcp_dial *d)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
        fail(d, err ? err : errno);
    else if (write_hello(d) && d->fd >= 0)
        fail(d, EAGAIN);
}

void tcp_dial_start(tcp_dial *d, int peer)
{
    *d = (tcp_dial){.active = 1, .fd = -1, .deadline = now_s() + cfg.connect_timeout_s};
    attempt(d, peer);
}

struct pollfd tcp_dial_pollfd(const tcp_dial *d)
{
    return (struct pollfd){d->fd, d->hello_sent ? POLLIN : POLLOUT, 0};
}

int tcp_dial_timeout_ms(const tcp_dial *d)
{
    double at = d->fd < 0 && d->retry_at < d->deadline ? d->retry_at : d->deadline;
    double ms = (at - now_s()) * 1000;
    return ms <= 0 ? 0 : (int)ms + 1;
}

/* Reads the acknowledgement, and not a byte past it: what follows is the
 * peer's first messages. Returns 1 once it is whole. */
static int read_ack(tcp_dial *d, int peer)
{
    ssize_t n = recv(d->fd, (char *)&d->ack + d->have, sizeof d->ack - d->have, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0) {
        fail(d, n ? errno : ECONNRESET);
        return 0;
    }
    d->have += (size_t)n;
    if (d->have < sizeof d->ack)
        return 0;
    if (!boot_mesh_ack_ok(&d->ack, peer))
        core_peer_hung(peer, "answered this node's connection with something other than "
                                    "its acknowledgement (is it a Tessera node of this job?)");
    return 1;
}

/* TSR_CONNECT_TIMEOUT has passed: a peer connected to that never
 * answered is stopped or hung; one never connected to, the error says. */
static void give_up(const tcp_dial *d, int peer)
{
    char cause[200], err[80] = "";
    if (!d->hello_sent)
        snprintf(err, sizeof err, ": %s", strerror(d->err ? d->err : ETIMEDOUT));
    snprintf(cause, sizeof cause, "%s within %.0f s (TSR_CONNECT_TIMEOUT%s)%s",
             d->hello_sent ? "did not answer a connection" : "could not be reached",
             cfg.connect_timeout_s, d->hello_sent ? "; stopped, hung, starved of CPU or cut off" : "",
             err);
    core_peer_hung(peer, cause);
}

int tcp_dial_step(tcp_dial *d, int peer, short revents)
{
    if (d->orphan) {
        if (revents && !d->hello_sent)
            send_hello(d);
        if (d->fd < 0 || d->hello_sent || now_s() > d->deadline)
            tcp_dial_drop(d);
        return -1;
    }
    if (d->fd < 0 && now_s() >= d->retry_at)
        attempt(d, peer);
    else if (d->fd >= 0 && revents && !d->hello_sent)
        send_hello(d);
    else if (d->fd >= 0 && revents && read_ack(d, peer)) {
        int fd = d->fd, one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        *d = (tcp_dial){.fd = -1};
        return fd;
    }
    if (now_s() > d->deadline)
        give_up(d, peer);
    return -1;
}

void tcp_dial_orphan(tcp_dial *d)
{
    if (d->fd < 0 || d->hello_sent)
        tcp_dial_drop(d);
    else
        d->orphan = 1;
}

void tcp_dial_drop(tcp_dial *d)
{
    if (d->fd >= 0)
        close(d->fd);
    *d = (tcp_dial){.fd = -1};
}
