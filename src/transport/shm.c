/*
 * shm.c - the shared-memory backend, for nodes on one host.
 *
 * Every ordered pair of nodes has a single-producer single-consumer byte
 * ring (ring.h) in the memfd tsrun made (shm.h); node i writes to node j
 * through ring (i, j) and reads ring (j, i). A message is copied into the
 * ring as the same byte stream TCP would carry (stream.h), so one larger
 * than the ring's free space goes in pieces while the reader drains it.
 * Sending is memcpy and a release store: no system call unless the
 * receiver sleeps. A small message with nothing queued before it goes to
 * the ring's one-message box instead (ring.h), which the reader takes when
 * its tail reaches the place the box names.
 *
 * Each node has a doorbell: a sequence number its comm thread sleeps on
 * with a futex, under the same wait policy as TCP's poll, and a flag saying
 * it sleeps. A sender rings it only when the flag is up. A writer that finds
 * a ring full queues the rest and raises the ring's want_space flag; the
 * reader rings the writer's bell when it frees space.
 *
 * A thread that spins for a reply takes it off its peer's ring itself
 * (shm_read.c) while the comm thread sleeps, and raises that ring's
 * `polled` count (ring.h) so that the peer does not wake the comm thread
 * meanwhile; what it finds that is not such a reply, it wakes the comm
 * thread for. One consumer at a time: each ring's `reading` lock is held
 * by whichever thread copies out of it.
 *
 * The TCP mesh of the bootstrap stays open, carrying nothing: its end of
 * file says at once that a peer died. The comm thread looks at it, tsrun's
 * connection and the stranger gate every CORE_WATCH_MS, which also bounds
 * its futex sleeps.
 */
#include "transport/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/backend.h"
#include "transport/core.h"
#include "transport/ring.h"
#include "transport/shm_hosts.h"
#include "transport/shm_read.h"
#include "transport/stream.h"
#include "transport/wait.h"
#include "util/spin.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* Bytes of one ring. The job's rings grow as nodes², so large jobs get
 * smaller ones (the memory is touched only where nodes talk). */
static size_t ring_bytes(int nodes) { return nodes <= 16 ? 256 * 1024 : 64 * 1024; }

typedef struct bell {
    _Atomic uint32_t seq;      /* bumped by each ring; the futex word */
    _Atomic uint32_t sleeping; /* the owner's comm thread is about to sleep, or sleeps */
    _Atomic int32_t pid;       /* published last: the owner's shared memory (below) */
    int32_t memory_fd[2];      /* core_shared_memory's, for transport_peer_memory */
    char pad[44];
} bell;
_Static_assert(sizeof(bell) == 64, "a bell fills one cache line");

typedef struct out_queue {
    spin_t lock;        /* guards the queue, writing to the ring and tail_seen */
    am_msg *head, *tail;
    uint64_t tail_seen; /* the ring's tail at the writer's last look */
} out_queue;

static char *area;
static size_t area_len, stride; /* stride: a ring with its header */
static bell *bells;
static out_queue *outq;
static struct pollfd *watch; /* the core's descriptors, then the mesh sockets */
static double next_watch;
static unsigned turns; /* of progress() without sleeping */

size_t shm_bytes(int nodes)
{
    return (size_t)nodes * sizeof(bell) +
           (size_t)nodes * (size_t)nodes * (sizeof(ring_hdr) + ring_bytes(nodes));
}

int shm_create(int nodes)
{
    int fd = memfd_create("tessera-rings", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, (off_t)shm_bytes(nodes))) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

ring_hdr *shm_ring(int src, int dst)
{
    return (ring_hdr *)(area + (size_t)cfg.nodes * sizeof(bell) +
                        ((size_t)src * (size_t)cfg.nodes + (size_t)dst) * stride);
}

static void futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
    syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/* Wakes node n's comm thread if it sleeps, the caller having fenced: the
 * fence orders what the caller wrote before the look at `sleeping` (the
 * sleeper does the converse). The first ringer takes the flag down, so a
 * sleeper is woken once. */
static void bell_ring_fenced(int n)
{
    bell *b = &bells[n];
    if (atomic_load_explicit(&b->sleeping, memory_order_relaxed) &&
        atomic_exchange(&b->sleeping, 0)) {
        if (shm_spans_hosts) {
            shm_hosts_ring(n);
        } else {
            atomic_fetch_add(&b->seq, 1);
            futex(&b->seq, FUTEX_WAKE, 1, NULL);
        }
        core_count_wakeup();
    }
}

void shm_bell(int n)
{
    atomic_thread_fence(memory_order_seq_cst);
    bell_ring_fenced(n);
}

/* After a message was written to node n: its comm thread need not wake
 * while a thread of n's polls the ring (that thread wakes it, see
 * shm_poll_end, for whatever it does not take). One fence serves both
 * looks, at the ring's `polled` and at the bell's `sleeping`. */
static void bell_deliver(int n)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!ring_reader_polls(shm_ring(cfg.node, n)))
        bell_ring_fenced(n);
}

static void shm_wake(void) { shm_bell(cfg.node); }

static void release_msg(am_msg *m)
{
    if (m->heap == 1)
        free(m);
}

static int has_queued(const out_queue *q) { return __atomic_load_n(&q->head, __ATOMIC_RELAXED) != NULL; }

static void shm_post(int dest, am_msg *m)
{
    if (shm_spans_hosts && !shm_here(dest)) {
        shm_hosts_post(dest, m);
        return;
    }
    out_queue *q = &outq[dest];
    spin_lock(&q->lock);
    ring_hdr *r = shm_ring(cfg.node, dest);
    if (!q->head && (ring_box_post(r, m) || ring_write(r, &q->tail_seen, m))) {
        spin_unlock(&q->lock);
        release_msg(m);
        bell_deliver(dest);
        return;
    }
    if (m->heap == -1)
        m = am_detach(m);
    m->next = NULL;
    sendq_grew(dest, STREAM_BYTES(m->hdr.len));
    if (q->tail)
        q->tail->next = m;
    else
        __atomic_store_n(&q->head, m, __ATOMIC_RELAXED);
    q->tail = m;
    spin_unlock(&q->lock);
    bell_deliver(dest);
    shm_wake(); /* the comm thread writes the rest as room appears */
}

/* Writes what waits for dest while the ring has room. Returns 1 if it
 * wrote anything. A ring still full gets want_space, then one more try, so
 * that the reader's ring cannot fall between the two. */
static int flush(int dest)
{
    out_queue *q = &outq[dest];
    ring_hdr *r = shm_ring(cfg.node, dest);
    int wrote = 0;
    spin_lock(&q->lock);
    for (int tries = 0; q->head && tries < 2; tries++) {
        if (tries)
            ring_want_space(r);
        for (;;) {
            am_msg *m = q->head;
            size_t before = m->sent;
            int done = ring_write(r, &q->tail_seen, m);
            wrote |= m->sent != before;
            if (!done)
                break;
            __atomic_store_n(&q->head, m->next, __ATOMIC_RELAXED);
            if (!q->head)
                q->tail = NULL;
            sendq_shrank(dest, STREAM_BYTES(m->hdr.len));
            release_msg(m);
            if (!q->head)
                break;
        }
    }
    spin_unlock(&q->lock);
    if (wrote)
        bell_deliver(dest);
    return wrote;
}

/* Only a peer's ring on this host can be polled: the replies of any
 * other come to the comm thread. */
static int shm_poll_begin(int peer)
{
    if (peer == cfg.node || !shm_here(peer))
        return 0;
    ring_polled(shm_ring(peer, cfg.node), 1);
    return 1;
}

/* On leaving, whatever arrived after the last look is the comm thread's:
 * the fence orders the count's fall before that look (the sender does the
 * converse, bell_deliver). */
static void shm_poll_end(int peer)
{
    ring_hdr *r = shm_ring(peer, cfg.node);
    ring_polled(r, -1);
    atomic_thread_fence(memory_order_seq_cst);
    if (ring_has_data(r))
        shm_bell(cfg.node);
}

/* For am_poll (backend.h), under the serve lock: the rings are read as the
 * comm thread reads them. */
static void shm_receive(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node && shm_here(j))
            shm_receive_from(j);
    shm_hosts_receive();
}

static int shm_arrived(void) { return shm_rings_arrived() || shm_hosts_arrived(); }

static int work_waiting(void)
{
    if (core_pending() || shm_rings_arrived())
        return 1;
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node && has_queued(&outq[j]) && ring_has_room(shm_ring(cfg.node, j)))
            return 1;
    return 0;
}

/* Sleeps on this node's bell for at most ms, unless work already waits.
 * Returns 1 if another host's link moved anything meanwhile. */
static int sleep_ms(int ms)
{
    bell *b = &bells[cfg.node];
    int moved = 0;
    atomic_store(&b->sleeping, 1);
    uint32_t seq = atomic_load(&b->seq);
    if (shm_spans_hosts) {
        moved = shm_hosts_poll(work_waiting() ? 0 : ms);
    } else if (!work_waiting()) {
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
        core_sleep_begin();
        futex(&b->seq, FUTEX_WAIT, seq, &ts);
        core_sleep_end();
    }
    atomic_store(&b->sleeping, 0);
    return moved;
}

/* The mesh socket of a peer: nothing may arrive on it but its end of file. */
static void watch_mesh(int j, struct pollfd *p)
{
    char c;
    ssize_t n = read(p->fd, &c, 1);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        log_die_status(1, "protocol error: node %d wrote on its TCP connection, which the shm "
                       "transport does not use (does node %d run with another TSR_TRANSPORT?)",
                       j, j);
    shm_drain_ring(j);
    core_link_closed(j);
    close(p->fd);
    boot.peer_fd[j] = p->fd = -1;
}

static void watch_all(void)
{
    core_poll(watch, (nfds_t)(CORE_POLLFDS + cfg.nodes), watch, NULL, 0);
    for (int j = 0; j < cfg.nodes; j++)
        if (watch[CORE_POLLFDS + j].revents)
            watch_mesh(j, &watch[CORE_POLLFDS + j]);
    next_watch = now_s() + CORE_WATCH_MS * 1e-3;
}

/* The clock is read only every WATCH_TURNS turns that do not sleep: a read
 * costs as much as the rest of such a turn. */
#define WATCH_TURNS 64

/* Turns without sleeping between two looks at the sockets of a job that
 * spans hosts: a look is a system call, a turn over the rings is not. */
#define SOCKET_TURNS 8

static int shm_progress(int timeout_ms)
{
    int busy = 0;
    if (shm_spans_hosts) {
        if (timeout_ms)
            busy = sleep_ms(timeout_ms < 0 || timeout_ms > CORE_WATCH_MS ? CORE_WATCH_MS
                                                                         : timeout_ms);
        else if (++turns % SOCKET_TURNS == 0)
            busy = shm_hosts_poll(0);
    } else if (timeout_ms || ++turns % WATCH_TURNS == 0) {
        double now = now_s();
        if (timeout_ms && !work_waiting()) {
            int until_watch = (int)((next_watch - now) * 1000) + 1;
            sleep_ms(timeout_ms < 0 || timeout_ms > until_watch ? until_watch : timeout_ms);
            now = now_s();
        }
        if (now >= next_watch)
            watch_all();
    }
    busy |= core_drain_self();
    for (int j = 0; j < cfg.nodes; j++) {
        if (j == cfg.node || !shm_here(j))
            continue;
        if (has_queued(&outq[j]))
            busy |= flush(j);
        busy |= shm_receive_from(j);
    }
    return busy;
}

static int shm_idle(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (has_queued(&outq[j]))
            return 0;
    return shm_hosts_idle();
}

/* This node's shared memory, for the host's other nodes to map. */
static void publish_memory(void)
{
    int fds[2];
    core_shared_memory(fds);
    if (fds[0] < 0)
        return;
    bells[cfg.node].memory_fd[0] = fds[0];
    bells[cfg.node].memory_fd[1] = fds[1];
    atomic_store_explicit(&bells[cfg.node].pid, (int32_t)getpid(), memory_order_release);
}

/* A peer's published memory. Its words are its own, not trusted: a pid or
 * descriptor that names something else fails to open, or maps a file of
 * another size, which memory/peers.c refuses. */
static int shm_peer_memory(int node, int *pid, int fds[2])
{
    if (cfg.nodes == 1 || node == cfg.node || !shm_here(node))
        return -1;
    *pid = atomic_load_explicit(&bells[node].pid, memory_order_acquire);
    if (*pid <= 0)
        return 1;
    fds[0] = bells[node].memory_fd[0];
    fds[1] = bells[node].memory_fd[1];
    return 0;
}

/* Maps the rings: tsrun's (TSR_SHM_FD), or those this host's nodes make
 * (shm_share.c). */
static void map_rings(void)
{
    struct stat st;
    area_len = shm_bytes(cfg.nodes);
    int fd = cfg.shm_fd >= 0 ? cfg.shm_fd : shm_host_rings(area_len);
    if (fstat(fd, &st) || (size_t)st.st_size != area_len)
        log_die("TSR_SHM_FD=%d is not the rings tsrun made for %d nodes", fd, cfg.nodes);
    area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (area == MAP_FAILED)
        log_die("cannot map the shm transport's rings (%zu bytes): %m", area_len);
    /* Mapped: a child the program starts must not inherit the descriptor. */
    close(fd);
    bells = (bell *)area;
}

static void shm_start(void)
{
    ring_setup(ring_bytes(cfg.nodes));
    stride = sizeof(ring_hdr) + ring_size();
    outq = calloc((size_t)cfg.nodes, sizeof *outq);
    watch = calloc((size_t)(CORE_POLLFDS + cfg.nodes), sizeof *watch);
    if (!outq || !watch)
        log_die("cannot set up the shm transport: out of memory");
    for (int j = 0; j < cfg.nodes; j++)
        watch[CORE_POLLFDS + j] = (struct pollfd){boot.peer_fd[j], POLLIN, 0};
    if (cfg.nodes == 1) {
        /* No rings, but the comm thread still sleeps on a bell. */
        static bell own;
        bells = &own;
        return;
    }
    shm_hosts_start();
    map_rings();
    publish_memory();
    for (int j = 0; j < cfg.nodes; j++) {
        int fd = boot.peer_fd[j];
        if (fd < 0 || !shm_here(j))
            continue;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    shm_read_start();
}

static void shm_stop(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (boot.peer_fd[j] >= 0)
            close(boot.peer_fd[j]);
    shm_read_stop();
    shm_hosts_stop();
    if (area)
        munmap(area, area_len);
    free(outq);
    free(watch);
}

const tsr_backend shm_backend = {.name = "shm",
                                 .start = shm_start,
                                 .post = shm_post,
                                 .progress = shm_progress,
                                 .wake = shm_wake,
                                 .idle = shm_idle,
                                 .stop = shm_stop,
                                 .poll_begin = shm_poll_begin,
                                 .poll_end = shm_poll_end,
                                 .take_replies = shm_take_replies,
                                 .take_yield = WAIT_YIELD_FOR_PEER,
                                 .arrived = shm_arrived,
                                 .receive = shm_receive,
                                 .peer_memory = shm_peer_memory};
