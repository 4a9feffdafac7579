/*
 * tcp.c - the TCP backend: one connection per pair of nodes (TCP_NODELAY),
 * and one communication thread per node that reads every connection, runs
 * the handlers, and writes out whatever could not be written at once.
 *
 * Senders write directly when a connection's queue is empty (the common case,
 * no thread hop); otherwise the message joins the queue and the comm thread
 * flushes it when the socket drains. The comm thread itself never blocks on a
 * write, so two nodes sending each other large messages cannot deadlock.
 *
 * A connection that ends without the peer's MSG_BYE means the peer died:
 * this node stops at once with a message naming it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/backend.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

#define RBUF_SIZE (256 * 1024)
#define HDR_SIZE sizeof(tsr_msg_hdr)
#define PAD8(n) (((n) + 7) & ~(size_t)7)

/* A spin lock rather than a mutex: it is taken on the fault path, where only
 * async-signal-safe operations are allowed, and held only around writes. */
typedef struct { atomic_flag f; } spin_t;
static inline void spin_lock(spin_t *s)
{
    for (unsigned i = 0; atomic_flag_test_and_set_explicit(&s->f, memory_order_acquire); i++)
        if (i > 100)
            sched_yield();
        else
            cpu_relax();
}
static inline void spin_unlock(spin_t *s) { atomic_flag_clear_explicit(&s->f, memory_order_release); }

typedef struct peer {
    int fd;
    spin_t lock;        /* guards head/tail and writing to fd */
    am_msg *head, *tail;
    int bye;            /* the peer finished; its end of file is expected */
    char *rbuf;         /* bytes received, not yet dispatched */
    size_t rlen;
    char *big;          /* a message larger than rbuf, being received */
    size_t big_have, big_need;
    tsr_msg_hdr big_hdr;
    size_t skip;        /* payload bytes of a rejected message still to drop */
} peer;

static peer *peers;
static int wake_fd = -1;
static pthread_t comm_thread;
static _Atomic int comm_stop;
static _Atomic int comm_blocked;
static _Atomic uint64_t reply_expected_ns;
static spin_t self_lock;
static am_msg *self_head, *self_tail;
static waiter bye_wait;

static uint64_t now_ns(void) { return (uint64_t)(now_s() * 1e9); }

static void kick(void)
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
    static const char zeros[8];
    size_t plen = m->hdr.len, total = HDR_SIZE + PAD8(plen);
    while (m->sent < total) {
        struct iovec iov[3];
        int n = 0;
        size_t off = m->sent;
        if (off < HDR_SIZE)
            iov[n++] = (struct iovec){(char *)&m->hdr + off, HDR_SIZE - off};
        size_t poff = off > HDR_SIZE ? off - HDR_SIZE : 0;
        if (poff < plen)
            iov[n++] = (struct iovec){(char *)m->payload + poff, plen - poff};
        size_t pad = PAD8(plen) - plen, padoff = poff > plen ? poff - plen : 0;
        if (pad > padoff)
            iov[n++] = (struct iovec){(char *)zeros, pad - padoff};
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
 * loop: every post kicks it), so head is stored and read there atomically. */
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
    if (p->tail)
        p->tail->next = m;
    else
        set_head(p, m);
    p->tail = m;
    spin_unlock(&p->lock);
    kick();
}

static void tcp_post_self(am_msg *m)
{
    spin_lock(&self_lock);
    m->next = NULL;
    if (self_tail)
        self_tail->next = m;
    else
        self_head = m;
    self_tail = m;
    spin_unlock(&self_lock);
    kick();
}

static void tcp_expect_reply(void)
{
    atomic_store_explicit(&reply_expected_ns, now_ns(), memory_order_relaxed);
    if (atomic_load_explicit(&comm_blocked, memory_order_relaxed))
        kick();
}

static void flush_peer(peer *p)
{
    spin_lock(&p->lock);
    while (p->head && write_some(p, p->head)) {
        am_msg *m = p->head;
        set_head(p, m->next);
        if (!p->head)
            p->tail = NULL;
        release_msg(m);
    }
    spin_unlock(&p->lock);
}

static void drain_self(void)
{
    spin_lock(&self_lock);
    am_msg *m = self_head;
    self_head = self_tail = NULL;
    spin_unlock(&self_lock);
    while (m) {
        /* A caller-owned message (am_post) may be gone once its handler has
         * replied: read what we need from it first. */
        am_msg *next = m->next;
        int heap = m->heap;
        am_dispatch(cfg.node, &m->hdr, (void *)m->payload);
        if (heap == 1)
            free(m);
        m = next;
    }
}

/* Stops this node because `failed` failed (-1: no one node, the job is
 * stopped as a whole), `cause` saying how, e.g. "was killed by signal 9".
 * Every other node is told the cause first, so that it names that node
 * rather than this one, whose connection it will see close next: every
 * stopping node relays the cause, whichever way it learned it. Best effort:
 * the process is ending. */
static void stop_because(int failed, const char *cause, int reporter)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (j != failed && j != cfg.node && peers[j].fd >= 0)
            am_send(j, MSG_ABORT, (uint64_t)failed, 0, 0, cause, strlen(cause));
    boot_stop(failed, cause, reporter);
}

static void peer_lost(int i)
{
    stop_because(i, "failed (connection lost: it crashed, was killed, or exited without "
                    "tsr_finalize)", -1);
}

static void on_abort(int src, const tsr_msg_hdr *h, void *payload)
{
    char cause[512];
    snprintf(cause, sizeof cause, "%.*s", (int)(h->len < 511 ? h->len : 511), (char *)payload);
    stop_because((int)(int64_t)h->arg[0], cause, src);
}

static void launcher_news(void)
{
    char why[128];
    int failed = boot_launcher_news(why, sizeof why);
    stop_because(failed, why, -1);
}

/* Dispatches every complete message in rbuf; starts a big receive for a
 * message that cannot fit; keeps a partial one at the front of rbuf. */
static void parse_peer(int i, peer *p)
{
    size_t off = 0;
    while (p->rlen - off >= HDR_SIZE) {
        tsr_msg_hdr h;
        memcpy(&h, p->rbuf + off, HDR_SIZE);
        size_t total = HDR_SIZE + PAD8(h.len);
        if (am_check(i, &h)) {
            /* Rejected before any room is made for it: its payload is
             * read and dropped, never allocated. */
            size_t have = p->rlen - off;
            p->skip = have >= total ? 0 : total - have;
            off += have >= total ? total : have;
            continue;
        }
        if (p->rlen - off >= total) {
            am_dispatch(i, &h, p->rbuf + off + HDR_SIZE);
            off += total;
            continue;
        }
        if (total > RBUF_SIZE) {
            p->big_hdr = h;
            p->big_need = PAD8(h.len);
            p->big = malloc(p->big_need);
            if (!p->big)
                log_die_status(1, "out of memory receiving a %u-byte message", h.len);
            p->big_have = p->rlen - off - HDR_SIZE;
            memcpy(p->big, p->rbuf + off + HDR_SIZE, p->big_have);
            off = p->rlen;
        }
        break;
    }
    memmove(p->rbuf, p->rbuf + off, p->rlen - off);
    p->rlen -= off;
}

/* Reads until the socket is empty. Returns 0 at the peer's orderly end. */
static int read_peer(int i, peer *p)
{
    for (;;) {
        char *dst = p->big ? p->big + p->big_have : p->rbuf + p->rlen;
        size_t room = p->big ? p->big_need - p->big_have : RBUF_SIZE - p->rlen;
        if (p->skip && room > p->skip)
            room = p->skip;
        ssize_t n = read(p->fd, dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (n <= 0) {
            if (p->bye)
                return 0;
            peer_lost(i);
        }
        if (p->skip) {
            p->skip -= (size_t)n;
            continue;
        }
        if (!p->big) {
            p->rlen += (size_t)n;
            parse_peer(i, p);
            continue;
        }
        p->big_have += (size_t)n;
        if (p->big_have == p->big_need) {
            char *buf = p->big;
            p->big = NULL;
            am_dispatch(i, &p->big_hdr, buf);
            free(buf);
        }
    }
}

static int spinning(void)
{
    if (cfg.progress == PROGRESS_SPIN)
        return 1;
    if (cfg.progress == PROGRESS_BLOCK)
        return 0;
    return now_ns() - atomic_load_explicit(&reply_expected_ns, memory_order_relaxed) <
           (uint64_t)cfg.spin_us * 1000;
}

/* Slots of the poll set: wake-up eventfd, tsrun, the peer port's gate of
 * strangers (boot.h), then one per peer. */
enum { SLOT_WAKE, SLOT_LAUNCHER, SLOT_GATE };

static int all_queues_empty(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        if (has_queued(&peers[i]))
            return 0;
    return 1;
}

static void *comm_main(void *arg)
{
    int slot_peers = SLOT_GATE + GATE_POLLFDS(boot.gate.cap), n = slot_peers + cfg.nodes;
    struct pollfd *pfd = calloc((size_t)n, sizeof *pfd);
    pfd[SLOT_WAKE] = (struct pollfd){wake_fd, POLLIN, 0};
    pfd[SLOT_LAUNCHER] = (struct pollfd){boot.launcher_fd, POLLIN, 0};
    while (!atomic_load(&comm_stop) || !all_queues_empty()) {
        for (int i = 0; i < cfg.nodes; i++)
            pfd[slot_peers + i] = (struct pollfd){
                peers[i].fd, (short)(POLLIN | (has_queued(&peers[i]) ? POLLOUT : 0)), 0};
        gate_pollfds(&boot.gate, pfd + SLOT_GATE);
        int spin = spinning();
        if (!spin)
            atomic_store(&comm_blocked, 1);
        /* No EINTR here: this thread blocks every signal (tcp_start). */
        int ready = poll(pfd, (nfds_t)n, spin ? 0 : gate_timeout_ms(&boot.gate));
        atomic_store(&comm_blocked, 0);
        gate_serve(&boot.gate, pfd + SLOT_GATE);
        if (ready < 0)
            log_die_status(1, "the communication thread's poll failed: %m");
        if (ready == 0 && spin)
            sched_yield(); /* let the threads we are waiting for run */
        if (ready == 0)
            continue;
        if (pfd[SLOT_WAKE].revents) {
            uint64_t v;
            ssize_t unused = read(wake_fd, &v, sizeof v);
            (void)unused;
        }
        drain_self();
        if (pfd[SLOT_LAUNCHER].revents)
            launcher_news();
        for (int i = 0; i < cfg.nodes; i++) {
            peer *p = &peers[i];
            short ev = pfd[slot_peers + i].revents;
            if (ev & POLLOUT)
                flush_peer(p);
            if ((ev & (POLLIN | POLLHUP | POLLERR)) && !read_peer(i, p)) {
                close(p->fd);
                p->fd = -1;
            }
        }
    }
    free(pfd);
    return NULL;
}

static void on_bye(int src, const tsr_msg_hdr *h, void *payload)
{
    peers[src].bye = 1;
    waiter_done(&bye_wait);
}

static void tcp_start(void)
{
    peers = calloc((size_t)cfg.nodes, sizeof *peers);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!peers || wake_fd < 0)
        log_die("cannot set up the transport: %m");
    for (int i = 0; i < cfg.nodes; i++) {
        peers[i].fd = boot.peer_fd[i];
        if (peers[i].fd < 0)
            continue;
        fcntl(peers[i].fd, F_SETFL, fcntl(peers[i].fd, F_GETFL) | O_NONBLOCK);
        peers[i].rbuf = malloc(RBUF_SIZE);
        if (!peers[i].rbuf)
            log_die("out of memory");
    }
    am_register(MSG_BYE, on_bye);
    am_register(MSG_ABORT, on_abort);
    waiter_init(&bye_wait, (uint32_t)cfg.nodes - 1);
    /* The comm thread must never run the application's signal handlers. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&comm_thread, NULL, comm_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err)
        log_die("cannot start the communication thread: %s", strerror(err));
}

static void tcp_shutdown(void)
{
    for (int i = 0; i < cfg.nodes; i++)
        if (i != cfg.node)
            am_send(i, MSG_BYE, 0, 0, 0, NULL, 0);
    waiter_wait(&bye_wait);
    atomic_store(&comm_stop, 1);
    kick();
    pthread_join(comm_thread, NULL);
    for (int i = 0; i < cfg.nodes; i++) {
        if (peers[i].fd >= 0)
            close(peers[i].fd);
        free(peers[i].rbuf);
    }
    free(peers);
    close(wake_fd);
}

const tsr_backend tcp_backend = {"tcp", tcp_start, tcp_post, tcp_post_self, tcp_expect_reply,
                                 tcp_shutdown};
