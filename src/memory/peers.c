/*
 * peers.c - the memory of this host's other nodes (peers.h).
 *
 * This node's metadata file holds its page table, then one copy log per
 * node of the job (only those of its host are ever written):
 *
 *   tail      entries the source wrote (release), in a line of its own
 *   queued[]  a byte per page: the page is in the ring, not yet drained
 *   ring[]    page numbers, npages + 1 of them
 *
 * The source writes its log; the home drains it, keeping how far it read
 * to itself. A page is in a log at most once until drained (queued), plus
 * the entry being drained, so the ring never overflows. A peer's words are
 * not trusted: a log claiming more entries than it holds, or naming a page
 * off the region, stops this node as a protocol error would.
 *
 * Files are found through the peer's pid and descriptors, which the
 * transport publishes (transport_peer_memory), and opened by /proc, which
 * the kernel allows between processes of one user. What opens must be a
 * memfd of Tessera's name and of this job's size.
 */
#include "memory/peers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/core.h"
#include "util/config.h"
#include "util/log.h"

typedef struct copy_log {
    _Atomic uint64_t tail;
    char pad[56];
} copy_log;

typedef struct peer {
    const char *data;      /* its shared memory, read-only */
    const page_meta *meta; /* its page table, read-only */
    copy_log *log;         /* the log of this node's copies, in its file */
} peer;

static peer *peers;
static int own_fd = -1;    /* this node's metadata file */
static char *own_file;     /* mapped */
static uint64_t *drained;  /* per source: entries of its log drained */

static size_t round_page(size_t n) { return (n + PAGE_SIZE - 1) & ~(size_t)(PAGE_SIZE - 1); }
static uint64_t ring_slots(void) { return (uint64_t)region.npages + 1; }
static size_t table_bytes(void) { return round_page((size_t)region.npages * sizeof(page_meta)); }
static size_t log_bytes(void)
{
    return round_page(sizeof(copy_log) + region.npages + 4 * ring_slots() + 4);
}
static size_t file_bytes(void) { return table_bytes() + (size_t)cfg.nodes * log_bytes(); }

static _Atomic uint8_t *queued_of(copy_log *l) { return (_Atomic uint8_t *)(l + 1); }
static uint32_t *ring_of(copy_log *l)
{
    return (uint32_t *)(((uintptr_t)(queued_of(l) + region.npages) + 3) & ~(uintptr_t)3);
}

page_meta *peers_meta_init(void)
{
    size_t len = file_bytes();
    own_fd = memfd_create("tessera-meta", MFD_CLOEXEC);
    if (own_fd < 0 || ftruncate(own_fd, (off_t)len))
        log_die("cannot create the shared page table of %zu MiB (TSR_FETCH=direct): %m",
                len >> 20);
    own_file = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, own_fd, 0);
    if (own_file == MAP_FAILED)
        log_die("cannot map the shared page table of %zu MiB (TSR_FETCH=direct): %m", len >> 20);
    drained = calloc((size_t)cfg.nodes, sizeof *drained);
    if (!drained)
        log_die("cannot set up TSR_FETCH=direct: out of memory");
    return (page_meta *)own_file;
}

void peers_share(void)
{
    if (own_file)
        transport_share_memory(region.memfd, own_fd);
}

/* Opens a peer's descriptor through /proc: a memfd named `name`, `size`
 * bytes long. -1 with errno set otherwise. */
static int open_peer_file(int pid, int fd, const char *name, size_t size, int flags)
{
    char path[64], target[128];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
        return -1;
    target[n] = 0;
    if (strncmp(target, "/memfd:", 7) || strncmp(target + 7, name, strlen(name))) {
        errno = EINVAL;
        return -1;
    }
    int f = open(path, flags | O_CLOEXEC);
    if (f >= 0 && (fstat(f, &st) || (size_t)st.st_size != size)) {
        close(f);
        errno = EINVAL;
        return -1;
    }
    return f;
}

static void *map_file(int f, size_t len, int prot, size_t off)
{
    void *p = mmap(NULL, len, prot, MAP_SHARED | MAP_NORESERVE, f, (off_t)off);
    return p == MAP_FAILED ? NULL : p;
}

static int map_peer(int j, int pid, const int fds[2])
{
    int data_fd = open_peer_file(pid, fds[0], "tessera-shared", region.size, O_RDONLY);
    int meta_fd =
        data_fd < 0 ? -1 : open_peer_file(pid, fds[1], "tessera-meta", file_bytes(), O_RDWR);
    if (meta_fd < 0) {
        if (data_fd >= 0)
            close(data_fd);
        return -1;
    }
    peer *p = &peers[j];
    p->data = map_file(data_fd, region.size, PROT_READ, 0);
    p->meta = map_file(meta_fd, table_bytes(), PROT_READ, 0);
    p->log = map_file(meta_fd, log_bytes(), PROT_READ | PROT_WRITE,
                      table_bytes() + (size_t)cfg.node * log_bytes());
    int err = errno;
    close(data_fd);
    close(meta_fd);
    if (p->data && p->meta && p->log)
        return 0;
    errno = err;
    return -1;
}

/* Mappings that failed, said at tsr_finalize (peers_report): a peer that
 * stopped on its own error right after the start is not a mapping problem,
 * and a job that goes on to the end has a peer that did not. */
static struct {
    int failed, first, err; /* err: an errno, or 0 when the peer did not publish */
} unmapped;

/* Whether peers_map mapped another node's memory, -1 before it: asked at
 * every home page's release (hlrc.c), so not counted again each time. */
static int mapped_any = -1;

void peers_map(void)
{
    if (!own_file)
        return;
    peers = calloc((size_t)cfg.nodes, sizeof *peers);
    if (!peers)
        log_die("cannot set up TSR_FETCH=direct: out of memory");
    int none = 1;
    for (int j = 0; j < cfg.nodes; j++) {
        int pid, fds[2], r = j == cfg.node ? -1 : transport_peer_memory(j, &pid, fds);
        if (r < 0)
            continue;
        if (r > 0 || map_peer(j, pid, fds)) {
            int err = r > 0 ? 0 : errno;
            peers[j] = (peer){0};
            if (!unmapped.failed++) {
                unmapped.first = j;
                unmapped.err = err;
            }
            continue;
        }
        none = 0;
    }
    mapped_any = !none;
    if (none && cfg.nodes > 1)
        log_debug("TSR_FETCH=direct: no other node's memory is mapped here (transport %s)",
                  transport_name());
}

/* One line per node, not per peer: the cause (a hardened /proc, say) is
 * usually the same for all of them. */
void peers_report(void)
{
    if (unmapped.failed)
        log_warn("TSR_FETCH=direct: cannot map the memory of %d node%s on this host (node %d's: "
                 "%s): their pages came by messages", unmapped.failed,
                 unmapped.failed > 1 ? "s" : "", unmapped.first,
                 unmapped.err ? strerror(unmapped.err) : "it did not publish it");
}

const char *peer_page(int home, uint32_t p)
{
    return peers && peers[home].data ? peers[home].data + ((size_t)p << PAGE_SHIFT) : NULL;
}

uint32_t peer_version(int home, uint32_t p)
{
    return atomic_load_explicit(&peers[home].meta[p].version, memory_order_acquire);
}

uint8_t peer_state(int home, uint32_t p)
{
    return __atomic_load_n(&peers[home].meta[p].state, __ATOMIC_ACQUIRE);
}

uint8_t peer_proto(int node, uint32_t p)
{
    return __atomic_load_n(&peers[node].meta[p].proto, __ATOMIC_ACQUIRE);
}

void peer_log_copy(int home, uint32_t p)
{
    copy_log *l = peers[home].log;
    if (atomic_exchange(&queued_of(l)[p], 1))
        return;
    uint64_t t = atomic_load_explicit(&l->tail, memory_order_relaxed);
    ring_of(l)[t % ring_slots()] = p;
    atomic_store_explicit(&l->tail, t + 1, memory_order_release);
}

/* The log of source s's copies in this node's file. */
static copy_log *log_of(int s)
{
    return (copy_log *)(own_file + table_bytes() + (size_t)s * log_bytes());
}

static int on_this_host(int s) { return s != cfg.node && boot.host[s] == boot.host[cfg.node]; }

/* Mapping is mutual: a node whose memory this one mapped has mapped this
 * one's, but for a failure that peers_report tells. */
/* Before peers_map, which follows tsr_init's barrier, whose release
 * flushes the globals, a node cannot know: it answers yes whenever it
 * offers its own memory. A page kept protected for nothing costs one
 * fault; a sticky one that a copier finds costs a message (sh/omp_apps'
 * omp/cost counted one in about thirty runs). */
int peers_direct(void) { return mapped_any < 0 ? own_file != NULL : mapped_any; }

int peers_copying(uint32_t p)
{
    if (!own_file)
        return 0;
    atomic_thread_fence(memory_order_seq_cst);
    for (int s = 0; s < cfg.nodes; s++)
        if (on_this_host(s) && atomic_load(&queued_of(log_of(s))[p]))
            return 1;
    return 0;
}

void peers_drain_copies(void (*fn)(int source, uint32_t p))
{
    if (!own_file)
        return;
    /* Orders this node's writes before the looks at the logs; a source
     * orders its log entry before its look at the page (hlrc_fetch.c). */
    atomic_thread_fence(memory_order_seq_cst);
    for (int s = 0; s < cfg.nodes; s++) {
        if (!on_this_host(s))
            continue;
        copy_log *l = log_of(s);
        uint64_t end = atomic_load_explicit(&l->tail, memory_order_acquire);
        if (end - drained[s] > ring_slots())
            log_die_status(1, "protocol error: node %d's copy log claims %llu new entries, more "
                           "than it holds", s, (unsigned long long)(end - drained[s]));
        for (; drained[s] < end; drained[s]++) {
            uint32_t p = ring_of(l)[drained[s] % ring_slots()];
            if (p >= region.npages)
                log_die_status(1, "protocol error: node %d's copy log names page %u, off the "
                               "region", s, p);
            atomic_store(&queued_of(l)[p], 0);
            fn(s, p);
        }
    }
}
