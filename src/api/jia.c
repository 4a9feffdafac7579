/*
 * jia.c - JIAJIA 2.x's interface (include/jia.h) over Tessera's; the
 * message passing, jia_wait and load balancing are in jia_msg.c. The
 * allocation calls follow JIAJIA's mem.c: every one is jia_alloc3, which
 * hands out `block` bytes per host round robin from `starthost`, that is
 * Tessera's cyclic placement with a start node.
 */
#include "jia.h"

#include <stdarg.h>
#include <stdio.h>

#include "api/compat.h"
#include "memory/region.h"
#include "tessera.h"
#include "util/cpu.h"
#include "util/log.h"

int jia_pid;
int hostc;
int jia_lock_index;

void jia_init(int argc, char **argv)
{
    jia_clock();
    tsr_init(&argc, &argv);
    jia_pid = tsr_node();
    hostc = tsr_nodes();
    jia_msg_init();
    /* No host may send before every host can receive. */
    tsr_barrier();
}

void jia_exit(void) { tsr_finalize(); }

static void check_init(const char *call)
{
    if (!hostc)
        log_die("%s called before jia_init", call);
}

/* Every jia_alloc* comes here: the one place that says how JIAJIA's
 * memory is kept. JIAJIA is scope consistent (the Nautilus paper), so its
 * memory is kept by the home-based protocol under scope consistency,
 * whatever TSR_PROTO says, as Tmk_malloc's is kept by TreadMarks'. */
unsigned long jia_alloc3(int size, int block, int starthost)
{
    check_init("jia_alloc3");
    if (size <= 0 || block <= 0)
        log_die("jia_alloc3(%d, %d, %d): size and block must be positive", size, block,
                starthost);
    if (starthost < 0 || starthost >= hostc)
        log_die("jia_alloc3(%d, %d, %d): starthost is not a host of this %d-host job", size,
                block, starthost, hostc);
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_CYCLIC;
    attr.block_pages = ((size_t)block + PAGE_SIZE - 1) / PAGE_SIZE;
    attr.start_node = starthost;
    attr.proto = TSR_PROTO_SCOPE;
    return (unsigned long)tsr_alloc_attr((size_t)size, &attr);
}

unsigned long jia_alloc2(int size, int block) { return jia_alloc3(size, block, 0); }

unsigned long jia_alloc2p(int size, int proc) { return jia_alloc3(size, size, proc); }

unsigned long jia_alloc1(int size) { return jia_alloc3(size, size, 0); }

unsigned long jia_alloc(int size)
{
    static int calls;
    check_init("jia_alloc");
    return jia_alloc3(size, size, calls++ % hostc);
}

void jia_lock(int lockid) { tsr_lock(compat_lock_id("jia_lock", lockid, TSR_MAX_LOCKS)); }

void jia_unlock(int lockid) { tsr_unlock(compat_lock_id("jia_unlock", lockid, TSR_MAX_LOCKS)); }

void jia_barrier(void) { tsr_barrier(); }

static int cv_id(const char *call, int cvnum)
{
    if (cvnum < 0 || cvnum >= TSR_MAX_FLAGS)
        log_die("%s(%d): condition variable out of range [0, %d)", call, cvnum, TSR_MAX_FLAGS);
    return cvnum;
}

void jia_setcv(int cvnum) { tsr_flag_set(cv_id("jia_setcv", cvnum)); }

void jia_resetcv(int cvnum) { tsr_flag_clear(cv_id("jia_resetcv", cvnum)); }

void jia_waitcv(int cvnum) { tsr_flag_wait(cv_id("jia_waitcv", cvnum)); }

void jia_error(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    compat_die("jia_error", format, ap);
}

unsigned int jia_startstat(void)
{
    check_init("jia_startstat");
    tsr_stats_reset();
    return 0;
}

unsigned int jia_stopstat(void)
{
    tsr_stats s;
    check_init("jia_stopstat");
    tsr_stats_get(&s);
    printf("jia_stopstat: host %d: %llu messages, %llu bytes sent; %llu read and %llu write "
           "faults, %llu pages fetched, %llu diffs, %llu lock acquires, %llu barriers\n",
           jia_pid, (unsigned long long)s.messages_sent, (unsigned long long)s.bytes_sent,
           (unsigned long long)s.read_faults, (unsigned long long)s.write_faults,
           (unsigned long long)s.page_fetches, (unsigned long long)s.diffs_created,
           (unsigned long long)s.lock_acquires, (unsigned long long)s.barriers);
    fflush(stdout);
    return (unsigned int)s.messages_sent;
}

/* JIAJIA's programs read the clock before jia_init too (LU does): it
 * counts from its first reading, which jia_init makes if none did. */
float jia_clock(void)
{
    static double start;
    double now = now_s();
    if (!start)
        start = now;
    return (float)(now - start);
}
