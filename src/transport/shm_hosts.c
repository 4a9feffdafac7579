/*
 * shm_hosts.c - the shm backend across hosts (shm_hosts.h): TCP links to
 * the other hosts' nodes, and bells that are sockets.
 */
#include "transport/shm_hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/core.h"
#include "transport/shm_read.h"
#include "transport/tcp_link.h"
#include "util/config.h"
#include "util/log.h"

int shm_spans_hosts;

static tcp_link *links; /* per node on another host; fd -1 for the others */
static uint8_t *ended;  /* per node of this host: its bell's connection ended */
static int own_bell = -1;
/* The poll set: the core's descriptors, the own bell, then one per node:
 * its link (another host) or its bell (this host). */
static struct pollfd *pfd, *poll_pfd; /* poll_pfd: am_poll's, under the serve lock */
enum { SLOT_CORE, SLOT_BELL = CORE_POLLFDS, SLOT_NODES };

int shm_here(int node) { return boot.host[node] == boot.host[cfg.node]; }

void shm_hosts_start(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        shm_spans_hosts |= !shm_here(j);
    if (!shm_spans_hosts)
        return;
    if (cfg.transport == TRANSPORT_SHM) /* it promises no TCP between nodes */
        log_die("TSR_TRANSPORT=shm needs every node on one host, and this job spans hosts (use "
                "auto: shm within a host, TCP between hosts)");
    links = calloc((size_t)cfg.nodes, sizeof *links);
    pfd = calloc((size_t)(SLOT_NODES + cfg.nodes), sizeof *pfd);
    poll_pfd = calloc((size_t)cfg.nodes, sizeof *poll_pfd);
    ended = calloc((size_t)cfg.nodes, 1);
    own_bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!links || !pfd || !poll_pfd || !ended || own_bell < 0)
        log_die("cannot set up the links to other hosts: %m");
    int here = 0;
    for (int j = 0; j < cfg.nodes; j++)
        here += shm_here(j);
    log_debug("transport: shm rings to %d other nodes of this host, TCP to %d nodes on other "
              "hosts", here - 1, cfg.nodes - here);
    for (int j = 0; j < cfg.nodes; j++) {
        int fd = boot.peer_fd[j];
        tcp_link_init(&links[j], j, shm_here(j) ? -1 : fd);
        if (!shm_here(j))
            boot.peer_fd[j] = -1; /* the link's now */
        else if (fd >= 0) /* a bell: a ringer never blocks, nor does draining it */
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
}

void shm_hosts_stop(void)
{
    if (!shm_spans_hosts)
        return;
    for (int j = 0; j < cfg.nodes; j++)
        tcp_link_free(&links[j]);
    close(own_bell);
    free(links);
    free(pfd);
    free(poll_pfd);
    free(ended);
}

void shm_hosts_post(int dest, am_msg *m)
{
    if (tcp_link_post(&links[dest], m))
        shm_hosts_ring(cfg.node); /* the comm thread writes the rest */
}

void shm_hosts_ring(int n)
{
    static const uint64_t one = 1;
    ssize_t unused = n == cfg.node ? write(own_bell, &one, sizeof one)
                                   : write(boot.peer_fd[n], &one, 1);
    (void)unused;
}

/* The bell of node j of this host: drains it. Its end of file is the
 * node's end, once its ring's last messages are delivered. */
static void bell_rang(int j)
{
    char buf[64];
    ssize_t n;
    while ((n = read(boot.peer_fd[j], buf, sizeof buf)) > 0)
        ;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    shm_drain_ring(j);
    core_link_closed(j);
    ended[j] = 1; /* kept open, out of the poll set: a sender may still ring it */
}

int shm_hosts_poll(int ms)
{
    pfd[SLOT_BELL] = (struct pollfd){own_bell, POLLIN, 0};
    for (int j = 0; j < cfg.nodes; j++) {
        int fd = j == cfg.node || ended[j] ? -1 : shm_here(j) ? boot.peer_fd[j] : links[j].fd;
        short ev = (short)(POLLIN | (tcp_link_queued(&links[j]) ? POLLOUT : 0));
        pfd[SLOT_NODES + j] = (struct pollfd){fd, ev, 0};
    }
    if (core_poll(pfd, (nfds_t)(SLOT_NODES + cfg.nodes), pfd + SLOT_CORE, pfd + SLOT_BELL,
                  (int64_t)ms * 1000000) == 0)
        return 0;
    int moved = 0;
    for (int j = 0; j < cfg.nodes; j++) {
        short ev = pfd[SLOT_NODES + j].revents;
        moved |= ev && !shm_here(j);
        if (ev && shm_here(j))
            bell_rang(j);
        else if (ev)
            tcp_link_serve(&links[j], ev);
    }
    return moved;
}

int shm_hosts_idle(void)
{
    for (int j = 0; shm_spans_hosts && j < cfg.nodes; j++)
        if (tcp_link_queued(&links[j]))
            return 0;
    return 1;
}

int shm_hosts_arrived(void)
{
    if (!shm_spans_hosts)
        return 0;
    for (int j = 0; j < cfg.nodes; j++)
        poll_pfd[j] = (struct pollfd){links[j].fd, POLLIN, 0};
    return poll(poll_pfd, (nfds_t)cfg.nodes, 0) > 0;
}

void shm_hosts_receive(void)
{
    for (int j = 0; shm_spans_hosts && j < cfg.nodes; j++)
        if (poll_pfd[j].revents & POLLIN)
            tcp_link_read(&links[j]); /* an end of file stays for the comm thread */
}
