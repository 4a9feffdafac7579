/*
 * tmk.c - TreadMarks 1.0's interface (include/tmk.h) over Tessera's;
 * condition variables are in tmk_cond.c.
 *
 * Tmk_distribute sends the bytes to every other node, where the comm thread
 * writes them into the program's own copy of the variable and acknowledges;
 * the caller waits for every acknowledgement. Writing into the program's
 * private memory from another thread at an arbitrary moment is what
 * TreadMarks' contract allows: the value is promised only after the next
 * barrier, and a program that uses the variable before then on another
 * process races with the distribution under TreadMarks as well. Because the
 * caller returns only once every copy is written, that barrier (which the
 * caller reaches after returning) orders the write before any use.
 *
 * Loop scheduling (Tmk_sched_*) is Tessera's fork/join (fork.c): a fork
 * there is a fork message and a barrier, a join a barrier, where TreadMarks
 * carried the write notices in the fork and join messages themselves.
 */
#include "tmk.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compat.h"
#include "api/fork.h"
#include "api/image.h"
#include "api/malloc.h"
#include "memory/region.h"
#include "tessera.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

unsigned Tmk_proc_id;
unsigned Tmk_nprocs;
unsigned Tmk_page_size;
unsigned Tmk_npages;
struct Tmk_stat Tmk_stat;

/* Tmk_sched_fork's argument as every process sees it, and whether process
 * 0 has forked a function that nobody has joined yet. */
static struct Tmk_sched_arg sched_arg;
static int sched_forked;

static void on_distribute(int src, const tsr_msg_hdr *h, void *payload)
{
    /* Every node has node 0's address layout (layout.c), so an honest
     * sender names a global this node has too. */
    void *dst = image_address((uint32_t)h->arg[0], h->arg[2], h->len);
    if (!dst) {
        am_reject(src, h, "no writable global at offset 0x%llx of loaded image %u",
                  (unsigned long long)h->arg[2], (unsigned)h->arg[0]);
        return;
    }
    memcpy(dst, payload, h->len);
    am_send(src, MSG_DISTRIBUTE_ACK, 0, h->arg[1], 0, NULL, 0);
}

void compat_reply_done(int src, const tsr_msg_hdr *h, void *payload)
{
    waiter *w = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    waiter_done(w);
}

/* Tmk_stat from Tessera's counters (the condition counts are tmk_cond.c's). */
static void stat_read(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    Tmk_stat.acquires = (unsigned)s.lock_acquires;
    Tmk_stat.acquire_time = (unsigned)(s.lock_wait_s * 1e6);
    Tmk_stat.arrivals = (unsigned)s.barriers;
    Tmk_stat.bytes = (unsigned)s.bytes_sent;
    Tmk_stat.bytes_of_data = (unsigned)(s.page_fetches * PAGE_SIZE);
    Tmk_stat.cold_misses = (unsigned)s.page_fetches;
    Tmk_stat.messages = (unsigned)s.messages_sent;
    Tmk_stat.diffs = (unsigned)s.diffs_created;
    Tmk_stat.twins = (unsigned)s.twins;
    Tmk_stat.total_diff_size = (unsigned)s.diff_bytes;
}

static void check_started(const char *call)
{
    if (!Tmk_nprocs)
        log_die("%s called before Tmk_startup", call);
}

void Tmk_startup(int argc, char *const *argv)
{
    char **args = (char **)argv;
    tsr_init(&argc, &args);
    am_register(MSG_DISTRIBUTE, on_distribute);
    am_register(MSG_DISTRIBUTE_ACK, compat_reply_done);
    tmk_cond_init();
    Tmk_proc_id = (unsigned)tsr_node();
    Tmk_nprocs = (unsigned)tsr_nodes();
    Tmk_page_size = PAGE_SIZE;
    Tmk_npages = region.npages;
    /* Tmk_malloc's memory is TreadMarks' own protocol's, as in TreadMarks. */
    malloc_use_protocol(TSR_PROTO_LRC);
    /* No node may distribute before every node can receive it. */
    tsr_barrier();
}

void Tmk_exit(int status)
{
    if (sched_forked)
        tsr_join();
    tsr_finalize();
    exit(status);
}

void compat_die(const char *call, const char *format, va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, format, ap);
    /* One line, so that the launcher's report of the stop holds it all. */
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        text[--n] = 0;
    for (char *c = text; (c = strchr(c, '\n')); )
        *c = ' ';
    /* The program's own call to end, on its own thread, as exit() is: its
     * output so far comes out first (log_die flushes nothing). */
    fflush(NULL);
    log_die("%s: %s", call, text);
}

void Tmk_errexit(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    compat_die("Tmk_errexit", format, ap);
}

void Tmk_err(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
}

void Tmk_perrexit(const char *s) { log_die("Tmk_perrexit: %s: %s", s, strerror(errno)); }

void *Tmk_malloc(unsigned size) { return tsr_malloc(size); }

void *Tmk_sbrk(unsigned incr) { return tsr_malloc(incr); }

void Tmk_free(void *ptr) { tsr_free_local(ptr); }

void Tmk_distribute(const void *ptr, int size)
{
    uint32_t image;
    uint64_t offset;
    check_started("Tmk_distribute");
    if (size < 0)
        log_die("Tmk_distribute(%p, %d): negative size", ptr, size);
    /* Globals shared (TSR_SHARE_GLOBALS=1) are seen by all at the next
     * barrier, which is all Tmk_distribute promises. */
    if (region_contains(ptr))
        return;
    if ((unsigned)size > MSG_BYTES_MAX)
        log_die("Tmk_distribute(%p, %d): more than %u MiB, the most one call copies", ptr, size,
                MSG_BYTES_MAX >> 20);
    if (image_locate(ptr, (size_t)size, &image, &offset))
        log_die("Tmk_distribute(%p, %d): not a writable global variable of the program (only "
                "globals have a known place in every process)", ptr, size);
    waiter w;
    waiter_init(&w, (uint32_t)cfg.nodes - 1);
    for (int node = 0; node < cfg.nodes; node++)
        if (node != cfg.node)
            am_send(node, MSG_DISTRIBUTE, image, req_open(node, MSG_DISTRIBUTE_ACK, &w), offset,
                    ptr, (size_t)size);
    waiter_wait(&w);
}

void Tmk_lock_acquire(unsigned id)
{
    tsr_lock(compat_lock_id("Tmk_lock_acquire", id, TMK_NLOCKS));
    stat_read();
}

void Tmk_lock_release(unsigned id)
{
    tsr_unlock(compat_lock_id("Tmk_lock_release", id, TMK_NLOCKS));
    stat_read();
}

void Tmk_barrier(unsigned id)
{
    if (id >= TMK_NBARRIERS)
        log_die("Tmk_barrier(%u): barrier id out of range [0, %d)", id, TMK_NBARRIERS);
    tsr_barrier();
    stat_read();
}

static void check_manager(const char *call)
{
    check_started(call);
    if (Tmk_proc_id != 0)
        log_die("%s called on process %u: only process 0, the manager, forks", call, Tmk_proc_id);
}

int Tmk_sched_start(unsigned proc_id)
{
    check_started("Tmk_sched_start");
    if (proc_id != 0)
        log_die("Tmk_sched_start(%u): only process 0 manages loops in Tessera (its fork/join "
                "master)", proc_id);
    if (Tmk_proc_id != 0) {
        tsr_serve();
        stat_read();
        return 0;
    }
    if (sched_forked)
        tsr_join();
    sched_forked = 0;
    stat_read();
    return 1;
}

void Tmk_sched_fork(void (*func)(Tmk_sched_arg_t arg), Tmk_sched_arg_t arg)
{
    check_manager("Tmk_sched_fork");
    if (sched_forked)
        tsr_join();
    if (arg) {
        sched_arg = *arg;
        Tmk_distribute(&sched_arg, sizeof sched_arg);
    }
    sched_forked = 1;
    stat_read();
    tsr_fork((void (*)(void *))func, arg ? &sched_arg : NULL);
}

void Tmk_sched_exit(void)
{
    check_manager("Tmk_sched_exit");
    if (sched_forked)
        tsr_join();
    sched_forked = 0;
    fork_end_serve();
    stat_read();
}

void Tmk_fork(void (*fn)(void *arg), void *arg) { tsr_fork(fn, arg); }

void Tmk_join(void) { tsr_join(); }

void Tmk_serve(void) { tsr_serve(); }
