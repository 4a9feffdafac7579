#include "boot/gate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/cpu.h"

/* Newcomers accepted per gate_serve call, so that a flood of connections
 * cannot keep the owner's loop from its other work. */
#define ACCEPT_BATCH 64

void gate_open(gate *g, int listen_fd, int cap, gate_judge *judge, void *ctx)
{
    *g = (gate){listen_fd, cap, 0, calloc((size_t)cap, sizeof *g->slot), judge, ctx,
                {"refused connections", 0, 0, 0}};
    if (!g->slot)
        log_die("out of memory (connection gate)");
    for (int i = 0; i < cap; i++)
        g->slot[i].fd = -1;
    if (listen_fd >= 0)
        fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
}

void gate_close(gate *g)
{
    for (int i = 0; i < g->cap; i++)
        if (g->slot[i].fd >= 0)
            close(g->slot[i].fd);
    if (g->listen_fd >= 0)
        close(g->listen_fd);
    log_rate_end(&g->refusals);
    free(g->slot);
    *g = (gate){.listen_fd = -1};
}

void gate_pollfds(const gate *g, struct pollfd *pfd)
{
    pfd[0] = (struct pollfd){g->listen_fd, POLLIN, 0};
    for (int i = 0; i < g->cap; i++)
        pfd[1 + i] = (struct pollfd){g->slot[i].fd, POLLIN, 0};
}

int gate_timeout_ms(gate *g)
{
    if (!g->waiting && !g->refusals.held)
        return -1;
    double wait = log_rate_flush(&g->refusals), t = now_s();
    for (int i = 0; g->waiting && i < g->cap; i++) {
        double left = g->slot[i].deadline - t;
        if (g->slot[i].fd >= 0 && (wait < 0 || left < wait))
            wait = left > 0 ? left : 0;
    }
    return wait < 0 ? -1 : (int)(wait * 1000) + 1;
}

static const char *peer_name(int fd, char *buf, size_t len)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    char ip[INET_ADDRSTRLEN];
    if (getpeername(fd, (struct sockaddr *)&sa, &sl) || sa.sin_family != AF_INET ||
        !inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip))
        return "an unknown address";
    snprintf(buf, len, "%s:%u", ip, ntohs(sa.sin_port));
    return buf;
}

static void refuse(gate *g, int fd, const char *why)
{
    char who[64];
    log_rated(&g->refusals, "refused connection from %s: %s", peer_name(fd, who, sizeof who), why);
    close(fd);
}

static void forget(gate *g, gate_conn *c)
{
    c->fd = -1;
    g->waiting--;
}

/* Reads what c sent so far. Returns 1 while it should keep waiting. */
static int read_hello(gate *g, gate_conn *c)
{
    char why[96];
    ssize_t r = recv(c->fd, (char *)&c->hello + c->have, sizeof c->hello - c->have, MSG_DONTWAIT);
    if (r > 0)
        c->have += (size_t)r;
    else if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return 1;
    if (c->have == sizeof c->hello) {
        const char *fault = g->judge(&c->hello, c->fd, g->ctx);
        if (fault)
            refuse(g, c->fd, fault);
        return 0;
    }
    if (r > 0)
        return 1;
    if (r == 0)
        snprintf(why, sizeof why, "closed after %zu of %zu hello bytes", c->have, sizeof c->hello);
    else
        snprintf(why, sizeof why, "%s", strerror(errno));
    refuse(g, c->fd, why);
    return 0;
}

static void expire(gate *g, gate_conn *c)
{
    char why[96];
    if (c->have)
        snprintf(why, sizeof why, "sent %zu of %zu hello bytes within %.0f s", c->have,
                 sizeof c->hello, GATE_WAIT_S);
    else
        snprintf(why, sizeof why, "sent nothing within %.0f s", GATE_WAIT_S);
    refuse(g, c->fd, why);
    forget(g, c);
}

/* A free slot; when every slot waits, the oldest newcomer is refused: it
 * had the longest to speak. */
static gate_conn *free_slot(gate *g)
{
    gate_conn *oldest = NULL;
    for (int i = 0; i < g->cap; i++) {
        gate_conn *c = &g->slot[i];
        if (c->fd < 0)
            return c;
        if (!oldest || c->deadline < oldest->deadline)
            oldest = c;
    }
    refuse(g, oldest->fd, "too many connections waiting to show the job secret");
    forget(g, oldest);
    return oldest;
}

/* A real node sends its hello as soon as it connects, so it is usually
 * judged at once and never takes a slot. */
static void accept_newcomers(gate *g)
{
    for (int k = 0; k < ACCEPT_BATCH; k++) {
        int fd = accept4(g->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0 && errno == EINTR)
            continue;
        if (fd < 0)
            return;
        gate_conn *c = free_slot(g);
        *c = (gate_conn){fd, now_s() + GATE_WAIT_S, 0, {0}};
        g->waiting++;
        if (!read_hello(g, c))
            forget(g, c);
    }
}

void gate_serve(gate *g, const struct pollfd *pfd)
{
    double t = now_s();
    for (int i = 0; g->waiting && i < g->cap; i++) {
        gate_conn *c = &g->slot[i];
        if (c->fd < 0)
            continue;
        if (pfd[1 + i].revents && pfd[1 + i].fd == c->fd && !read_hello(g, c))
            forget(g, c);
        else if (t >= c->deadline)
            expire(g, c);
    }
    if (pfd[0].revents && g->listen_fd >= 0)
        accept_newcomers(g);
    if (g->refusals.held)
        log_rate_flush(&g->refusals);
}
