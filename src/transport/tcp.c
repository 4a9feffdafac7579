/*
 * tcp.c - the TCP backend: one connection per pair of nodes (TCP_NODELAY),
 * built by the bootstrap (boot/boot.c), each a message link (tcp_link.h),
 * read by the comm thread in one poll set with the core's descriptors.
 */
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/backend.h"
#include "transport/core.h"
#include "transport/tcp_link.h"
#include "util/config.h"
#include "util/log.h"

static tcp_link *peers;
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

static int tcp_progress(int timeout_ms)
{
    for (int i = 0; i < cfg.nodes; i++)
        pfd[SLOT_PEERS + i] = (struct pollfd){
            peers[i].fd, (short)(POLLIN | (tcp_link_queued(&peers[i]) ? POLLOUT : 0)), 0};
    int ready = core_poll(pfd, (nfds_t)(SLOT_PEERS + cfg.nodes), pfd + SLOT_CORE,
                          pfd + SLOT_WAKE, (int64_t)timeout_ms * 1000000);
    if (ready == 0)
        return core_drain_self();
    core_drain_self();
    for (int i = 0; i < cfg.nodes; i++)
        tcp_link_serve(&peers[i], pfd[SLOT_PEERS + i].revents);
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
            tcp_link_read(&peers[i]); /* an end of file stays for the comm thread */
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
    for (int i = 0; i < cfg.nodes; i++)
        tcp_link_init(&peers[i], i, boot.peer_fd[i]);
}

static void tcp_stop(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        tcp_link_free(&peers[i]);
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
