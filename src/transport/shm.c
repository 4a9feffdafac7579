/*
 * shm.c - the shared-memory backend, for nodes on one host.
 *
 * Every ordered pair of nodes has a single-producer single-consumer byte
 * ring in the memfd tsrun made (shm.h); node i writes to node j through
 * ring (i, j) and reads ring (j, i). A message is copied into the ring as
 * the same byte stream TCP would carry (stream.h), so one larger than the
 * ring's free space goes in pieces while the reader drains it. Sending is
 * memcpy and a release store: no system call unless the receiver sleeps.
 *
 * Each node has a doorbell: a sequence number its comm thread sleeps on
 * with a futex, under the same wait policy as TCP's poll, and a flag saying
 * it sleeps. A sender rings it only when the flag is up. A writer that finds
 * a ring full queues the rest and raises the ring's want_space flag; the
 * reader rings the writer's bell when it frees space.
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
#include "transport/spin.h"
#include "transport/stream.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* A message this node receives may answer one it sent: the request went
 * out through one ring and the reply came back through another, by way of
 * another process, which ThreadSanitizer cannot follow (it follows TCP,
 * through the socket). Each send releases, and each receive acquires, one
 * address, so that it sees what is true: the sender's writes happened
 * before whatever the reply's handler does. Nothing outside that build. */
#ifdef __SANITIZE_THREAD__
#include <sanitizer/tsan_interface.h>
static char causality;
static void sent_causally(void) { __tsan_release(&causality); }
static void received_causally(void) { __tsan_acquire(&causality); }
#else
static void sent_causally(void) {}
static void received_causally(void) {}
#endif

/* Bytes of one ring. The job's rings grow as nodes², so large jobs get
 * smaller ones (the memory is touched only where nodes talk). */
static size_t ring_bytes(int nodes) { return nodes <= 16 ? 256 * 1024 : 64 * 1024; }

typedef struct bell {
    _Atomic uint32_t seq;      /* bumped by each ring; the futex word */
    _Atomic uint32_t sleeping; /* the owner's comm thread is about to sleep, or sleeps */
    char pad[56];
} bell;

typedef struct ring_hdr {
    _Atomic uint64_t head;       /* bytes ever written; the writer's */
    char pad0[56];
    _Atomic uint64_t tail;       /* bytes ever read; the reader's */
    _Atomic uint32_t want_space; /* the writer waits for room */
    char pad1[52];
} ring_hdr;

typedef struct out_queue {
    spin_t lock;       /* guards the queue and writing to the ring */
    am_msg *head, *tail;
} out_queue;

static char *area;
static size_t area_len, rbytes;
static bell *bells;
static out_queue *outq;
static rx_stream *rx;
static struct pollfd *watch; /* the core's descriptors, then the mesh sockets */
static double next_watch;

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

static ring_hdr *ring_of(int src, int dst)
{
    size_t stride = sizeof(ring_hdr) + rbytes;
    return (ring_hdr *)(area + (size_t)cfg.nodes * sizeof(bell) +
                        ((size_t)src * (size_t)cfg.nodes + (size_t)dst) * stride);
}

static char *data_of(ring_hdr *r) { return (char *)(r + 1); }

static void futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
    syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/* Wakes node n's comm thread if it sleeps. The fence orders what the caller
 * wrote before the look at `sleeping` (the sleeper does the converse). */
static void bell_ring(int n)
{
    bell *b = &bells[n];
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&b->sleeping, memory_order_relaxed)) {
        atomic_fetch_add(&b->seq, 1);
        futex(&b->seq, FUTEX_WAKE, 1, NULL);
    }
}

static void shm_wake(void) { bell_ring(cfg.node); }

/* Copies as much of m as the ring has room for: 1 when all of it is in.
 * The tail is the reader's word, not trusted: one that claims more than the
 * ring was read leaves no room, and the message waits (this may run on the
 * fault path, which cannot stop the node with a message). */
static int ring_write(ring_hdr *r, am_msg *m)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t used = head - atomic_load(&r->tail);
    size_t room = used > rbytes ? 0 : rbytes - (size_t)used;
    const void *base[3];
    size_t len[3];
    int n = tx_pieces(m, base, len);
    sent_causally();
    for (int i = 0; i < n && room; i++) {
        size_t k = len[i] < room ? len[i] : room, off = (size_t)(head % rbytes);
        size_t first = k < rbytes - off ? k : rbytes - off;
        memcpy(data_of(r) + off, base[i], first);
        memcpy(data_of(r), (const char *)base[i] + first, k - first);
        head += k;
        room -= k;
        m->sent += k;
    }
    atomic_store_explicit(&r->head, head, memory_order_release);
    return m->sent == STREAM_BYTES(m->hdr.len);
}

static void release_msg(am_msg *m)
{
    if (m->heap == 1)
        free(m);
}

static int has_queued(const out_queue *q) { return __atomic_load_n(&q->head, __ATOMIC_RELAXED) != NULL; }

static void shm_post(int dest, am_msg *m)
{
    out_queue *q = &outq[dest];
    spin_lock(&q->lock);
    if (!q->head && ring_write(ring_of(cfg.node, dest), m)) {
        spin_unlock(&q->lock);
        release_msg(m);
        bell_ring(dest);
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
    bell_ring(dest);
    shm_wake(); /* the comm thread writes the rest as room appears */
}

/* Writes what waits for dest while the ring has room. Returns 1 if it
 * wrote anything. A ring still full gets want_space, then one more try, so
 * that the reader's ring cannot fall between the two. */
static int flush(int dest)
{
    out_queue *q = &outq[dest];
    ring_hdr *r = ring_of(cfg.node, dest);
    int wrote = 0;
    spin_lock(&q->lock);
    for (int tries = 0; q->head && tries < 2; tries++) {
        if (tries)
            atomic_store(&r->want_space, 1);
        for (;;) {
            am_msg *m = q->head;
            size_t before = m->sent;
            int done = ring_write(r, m);
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
        bell_ring(dest);
    return wrote;
}

/* Moves what ring (src, this node) holds into src's stream and delivers
 * every whole message. Returns 1 if there was anything. The head is the
 * writer's word: it may not claim more than the ring holds. */
static int receive(int src)
{
    ring_hdr *r = ring_of(src, cfg.node);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t avail = atomic_load_explicit(&r->head, memory_order_acquire) - tail;
    if (!avail)
        return 0;
    if (avail > rbytes)
        log_die_status(1, "protocol error: node %d's ring claims %llu unread bytes, more than "
                       "its %zu", src, (unsigned long long)avail, rbytes);
    received_causally();
    while (avail) {
        size_t room, off = (size_t)(tail % rbytes);
        char *dst = rx_space(&rx[src], &room);
        size_t k = avail < room ? (size_t)avail : room;
        size_t first = k < rbytes - off ? k : rbytes - off;
        memcpy(dst, data_of(r) + off, first);
        memcpy(dst + first, data_of(r), k - first);
        tail += k;
        avail -= k;
        atomic_store(&r->tail, tail);
        if (atomic_load(&r->want_space) && atomic_exchange(&r->want_space, 0))
            bell_ring(src);
        rx_commit(&rx[src], k);
    }
    return 1;
}

static int ring_has_data(int src)
{
    ring_hdr *r = ring_of(src, cfg.node);
    return atomic_load(&r->head) != atomic_load_explicit(&r->tail, memory_order_relaxed);
}

static int ring_has_room(int dest)
{
    ring_hdr *r = ring_of(cfg.node, dest);
    return atomic_load_explicit(&r->head, memory_order_relaxed) - atomic_load(&r->tail) < rbytes;
}

static int work_waiting(void)
{
    if (core_pending())
        return 1;
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node && (ring_has_data(j) || (has_queued(&outq[j]) && ring_has_room(j))))
            return 1;
    return 0;
}

/* Sleeps on this node's bell for at most ms, unless work already waits. */
static void sleep_ms(int ms)
{
    bell *b = &bells[cfg.node];
    atomic_store(&b->sleeping, 1);
    uint32_t seq = atomic_load(&b->seq);
    if (!work_waiting()) {
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
        futex(&b->seq, FUTEX_WAIT, seq, &ts);
    }
    atomic_store(&b->sleeping, 0);
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
                       "transport does not use", j);
    /* A finished peer wrote its MSG_BYE into the ring before it closed the
     * socket, but the two are separate channels: read the ring to its end
     * first, so a clean exit is not taken for a crash. */
    while (receive(j))
        ;
    core_link_closed(j);
    close(p->fd);
    boot.peer_fd[j] = p->fd = -1;
}

static void watch_all(void)
{
    int nfds = CORE_POLLFDS + cfg.nodes;
    core_pollfds(watch);
    if (poll(watch, (nfds_t)nfds, 0) < 0)
        log_die_status(1, "the communication thread's poll failed: %m");
    core_serve(watch);
    for (int j = 0; j < cfg.nodes; j++)
        if (watch[CORE_POLLFDS + j].revents)
            watch_mesh(j, &watch[CORE_POLLFDS + j]);
    next_watch = now_s() + CORE_WATCH_MS * 1e-3;
}

static int shm_progress(int timeout_ms)
{
    double now = now_s();
    if (timeout_ms && !work_waiting()) {
        int until_watch = (int)((next_watch - now) * 1000) + 1;
        sleep_ms(timeout_ms < 0 || timeout_ms > until_watch ? until_watch : timeout_ms);
        now = now_s();
    }
    if (now >= next_watch)
        watch_all();
    int busy = core_drain_self();
    for (int j = 0; j < cfg.nodes; j++) {
        if (j == cfg.node)
            continue;
        if (has_queued(&outq[j]))
            busy |= flush(j);
        busy |= receive(j);
    }
    return busy;
}

static int shm_idle(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (has_queued(&outq[j]))
            return 0;
    return 1;
}

static void map_rings(void)
{
    struct stat st;
    area_len = shm_bytes(cfg.nodes);
    if (fstat(cfg.shm_fd, &st) || (size_t)st.st_size != area_len)
        log_die("TSR_SHM_FD=%d is not the rings tsrun made for %d nodes", cfg.shm_fd, cfg.nodes);
    area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_SHARED, cfg.shm_fd, 0);
    if (area == MAP_FAILED)
        log_die("cannot map the shm transport's rings (%zu bytes): %m", area_len);
    /* Mapped: a child the program starts must not inherit the descriptor. */
    close(cfg.shm_fd);
    bells = (bell *)area;
}

static void shm_start(void)
{
    rbytes = ring_bytes(cfg.nodes);
    outq = calloc((size_t)cfg.nodes, sizeof *outq);
    rx = calloc((size_t)cfg.nodes, sizeof *rx);
    watch = calloc((size_t)(CORE_POLLFDS + cfg.nodes), sizeof *watch);
    if (!outq || !rx || !watch)
        log_die("cannot set up the shm transport: out of memory");
    for (int j = 0; j < cfg.nodes; j++)
        watch[CORE_POLLFDS + j] = (struct pollfd){boot.peer_fd[j], POLLIN, 0};
    if (cfg.nodes == 1) {
        /* No rings, but the comm thread still sleeps on a bell. */
        static bell own;
        bells = &own;
        return;
    }
    if (cfg.shm_fd < 0)
        log_die("TSR_TRANSPORT=shm needs the rings tsrun makes for a job on one host "
                "(TSR_SHM_FD is not set)");
    map_rings();
    for (int j = 0; j < cfg.nodes; j++) {
        int fd = boot.peer_fd[j];
        if (fd < 0)
            continue;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        rx_init(&rx[j], j);
    }
}

static void shm_stop(void)
{
    for (int j = 0; j < cfg.nodes; j++) {
        if (boot.peer_fd[j] >= 0)
            close(boot.peer_fd[j]);
        rx_free(&rx[j]);
    }
    if (area)
        munmap(area, area_len);
    free(outq);
    free(rx);
    free(watch);
}

const tsr_backend shm_backend = {"shm", shm_start, shm_post, NULL, NULL, NULL, shm_progress, shm_wake,
                                 shm_idle, shm_stop};
