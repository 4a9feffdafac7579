/*
 * trace.c - recording the job timeline into this node's part file
 * (trace.h, docs/TRACE.md).
 */
#include "stats/trace.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/config.h"
#include "util/log.h"

int trace_on;

_Static_assert(sizeof(trace_head) + TRACE_SLOTS * sizeof(trace_slot) <= TRACE_DATA,
               "the slot headers end before the events");

static trace_head *head;
static trace_slot *slots;
static char *data;
static uint64_t capacity; /* events per slot */
static _Atomic int nclaimed;
static _Atomic uint64_t last_stamp;
static pthread_mutex_t modules_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The thread's slot: -1 none claimed yet, -2 none left for it. */
static __thread int my_slot = -1;

uint64_t trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Async-signal-safe: a thread's first event may be its fault handler's. */
static int claim(const char *name)
{
    int i = atomic_fetch_add(&nclaimed, 1);
    if (i >= TRACE_SLOTS) {
        atomic_fetch_add((_Atomic uint32_t *)&head->untraced_threads, 1);
        return my_slot = -2;
    }
    pid_t tid = (pid_t)syscall(SYS_gettid);
    trace_slot *s = &slots[i];
    s->tid = (uint32_t)tid;
    strncpy(s->name, name ? name : tid == getpid() ? "main" : "thread", sizeof s->name - 1);
    atomic_store_explicit((_Atomic uint32_t *)&s->claimed, 1, memory_order_release);
    return my_slot = i;
}

static void put(int kind, uint64_t ts, uint64_t dur, int node, uint32_t a, uint64_t b)
{
    int i = my_slot == -1 ? claim(NULL) : my_slot;
    if (i < 0)
        return;
    trace_slot *s = &slots[i];
    uint64_t n = s->count; /* only this thread writes it */
    if (n >= capacity) {
        s->dropped++;
        return;
    }
    trace_event *e = (trace_event *)(data + (size_t)i * head->slot_bytes) + n;
    *e = (trace_event){ts, dur, (uint16_t)kind, (uint16_t)node, a, b};
    atomic_store_explicit((_Atomic uint64_t *)&s->count, n + 1, memory_order_release);
}

void trace_record(int kind, uint64_t t0, int node, uint32_t a, uint64_t b)
{
    uint64_t now = trace_now();
    put(kind, t0 ? t0 : now, t0 ? now - t0 : 0, node, a, b);
}

void trace_thread_name(const char *name)
{
    if (trace_on && my_slot == -1)
        claim(name);
}

uint64_t trace_stamp(void)
{
    uint64_t now = trace_now(), last = atomic_load_explicit(&last_stamp, memory_order_relaxed);
    for (;;) {
        uint64_t next = now > last ? now : last + 1;
        if (atomic_compare_exchange_weak(&last_stamp, &last, next))
            return next;
    }
}

void trace_set_offset(int64_t offset_ns, uint64_t rtt_ns)
{
    if (!trace_on)
        return;
    head->offset_ns = offset_ns;
    head->offset_rtt_ns = rtt_ns;
}

/* When each lock this node holds was taken: one thread of a node holds a
 * lock at a time. */
static uint64_t held_since[TRACE_LOCKS];

void trace_hold_at(int id, int on)
{
    if (id < 0 || id >= TRACE_LOCKS)
        return;
    if (on)
        held_since[id] = trace_now();
    else if (held_since[id])
        trace_record(EV_LOCK_HOLD, held_since[id], 0, (uint32_t)id, 0);
}

/* The index of module `path` in the part's table, added if new; -1 if full. */
static int module_of(const char *path)
{
    int found = -1;
    pthread_mutex_lock(&modules_mutex);
    for (uint32_t i = 0; i < head->nmodules && found < 0; i++)
        if (!strcmp(head->modules[i], path))
            found = (int)i;
    if (found < 0 && head->nmodules < TRACE_MODULES && strlen(path) < sizeof head->modules[0]) {
        strcpy(head->modules[head->nmodules], path);
        found = (int)head->nmodules++;
    }
    pthread_mutex_unlock(&modules_mutex);
    return found;
}

/* The call site is kept as an offset in its file, which tsrun hands to
 * addr2line: the node's load addresses mean nothing outside it. */
void trace_alloc(uint32_t page, size_t bytes, const void *ra)
{
    Dl_info info;
    if (!trace_on || !dladdr(ra, &info) || !info.dli_fname)
        return;
    int m = module_of(info.dli_fname[0] ? info.dli_fname : "/proc/self/exe");
    if (m >= 0)
        put(EV_ALLOC, trace_now(), (uint64_t)((const char *)ra - (const char *)info.dli_fbase), m,
            page, bytes);
}

void trace_init(void)
{
    if (!cfg.trace)
        return;
    char path[4096];
    if (snprintf(path, sizeof path, "%s.part%d", cfg.trace, cfg.node) >= (int)sizeof path)
        log_die("TSR_TRACE='%s': the name is too long", cfg.trace);
    uint64_t slot_bytes = (cfg.trace_bytes + 4095) & ~(uint64_t)4095;
    size_t size = TRACE_DATA + TRACE_SLOTS * slot_bytes;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        log_die("TSR_TRACE: cannot create %s: %s", path, strerror(errno));
    /* Sparse: only the pages events reach take room on disk. */
    if (ftruncate(fd, (off_t)size))
        log_die("TSR_TRACE: cannot size %s to %zu bytes: %s", path, size, strerror(errno));
    char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        log_die("TSR_TRACE: cannot map %s: %s", path, strerror(errno));
    head = (trace_head *)map;
    slots = (trace_slot *)(map + sizeof *head);
    data = map + TRACE_DATA;
    capacity = slot_bytes / sizeof(trace_event);
    memcpy(head->magic, TRACE_MAGIC, sizeof head->magic);
    head->node = (uint32_t)cfg.node;
    head->nodes = (uint32_t)cfg.nodes;
    head->slot_bytes = slot_bytes;
    head->pid = (uint32_t)getpid();
    head->kinds = EV_KINDS;
    head->event_bytes = sizeof(trace_event);
    head->head_bytes = sizeof(trace_head);
    trace_on = 1;
}
