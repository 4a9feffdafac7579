/*
 * cas.c - the consistency checks and polling of the public API (CAS-DSM's
 * run-time calls; docs/CAS.md), which hand over to the coherence layer's
 * range checks (coherence/range.c) and the transport's am_poll.
 */
#include "tessera.h"

#include <stdint.h>

#include "coherence/coherence.h"
#include "sync/sync.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/guard.h"
#include "util/log.h"

static void check(const char *fn, const void *p, size_t n, size_t step, size_t count,
                  int is_write)
{
    guard_check_any(fn);
    sync_thread_check(fn);
    if (count && (step > (SIZE_MAX - n) / count ||
                  (uintptr_t)p > UINTPTR_MAX - ((count - 1) * step + n)))
        log_die("%s(%p, %zu, step %zu, count %zu): the range wraps the address space", fn, p, n,
                step, count);
    coh_range(p, n, step, count, is_write);
}

void tsr_range_read(const void *p, size_t n) { check("tsr_range_read", p, n, 0, 1, 0); }

void tsr_range_write(void *p, size_t n) { check("tsr_range_write", p, n, 0, 1, 1); }

void tsr_range_read_step(const void *p, size_t n, size_t step, size_t count)
{
    check("tsr_range_read_step", p, n, step, count, 0);
}

void tsr_range_write_step(void *p, size_t n, size_t step, size_t count)
{
    check("tsr_range_write_step", p, n, step, count, 1);
}

/* tsrcc -tsr-poll calls it before inner loops, wherever they are: before
 * tsr_init and after tsr_finalize too, where am_poll finds no links to
 * poll. Any thread may serve them (one at a time). */
void tsr_poll(void)
{
    static __thread double next;
    double now = now_s();
    if (now < next)
        return;
    next = now + cfg.poll_us * 1e-6;
    am_poll();
}
