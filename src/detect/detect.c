/*
 * detect.c - the detection layer's front: the backend chosen by TSR_DETECT,
 * the per-page access bytes, and the fault callback (detect.h).
 */
#include "detect/detect.h"

#include <sys/mman.h>

#include "detect/backend.h"
#include "memory/region.h"
#include "util/config.h"
#include "util/log.h"

_Atomic uint8_t *detect_access;

static const detect_backend *backend;
static detect_fault_fn on_fault;

/* uffd where TSR_DETECT asks for it or allows it; segv otherwise. Returns
 * the backend, started. */
static const detect_backend *start_backend(void)
{
    char why[256];
    if (cfg.detect != DETECT_SEGV) {
        if (uffd_backend.start(why, sizeof why) == 0)
            return &uffd_backend;
        if (cfg.detect == DETECT_UFFD)
            log_die("TSR_DETECT=uffd: %s", why);
        log_debug("TSR_DETECT=auto: using segv: %s", why);
    }
    if (segv_backend.start(why, sizeof why))
        log_die("TSR_DETECT=segv: %s", why);
    return &segv_backend;
}

void detect_init(void)
{
    detect_access = region_page_table(sizeof *detect_access, "the page access table");
    backend = start_backend();
    log_debug("access detection: %s", backend->name);
}

void detect_on_fault(detect_fault_fn fn) { on_fault = fn; }

int detect_fault(void *addr, int is_write)
{
    return on_fault ? on_fault(addr, is_write) : -1;
}

/* Bytes first, hardware second: a fault that races with a downgrade then
 * sees the new, lower access and asks the protocol again. The backend is
 * given runs of pages that had the same access, since what it must undo
 * depends on what was there, and that lie one after another in the
 * application view (region_run: not across a window's edge). */
void detect_set_access(uint32_t first, uint32_t n, int access)
{
    for (uint32_t i = 0; i < n;) {
        int old = detect_access_of(first + i);
        uint32_t j = i, end = i + region_run(first + i, n - i);
        while (j < end && detect_access_of(first + j) == old)
            atomic_store_explicit(&detect_access[first + j++], (uint8_t)access,
                                  memory_order_release);
        backend->apply(first + i, j - i, old, access);
        i = j;
    }
}

int detect_track_writes(uint32_t first, uint32_t n)
{
    if (!backend->track)
        return -1;
    for (uint32_t i = 0, run; i < n; i += run) {
        run = region_run(first + i, n - i);
        if (backend->track(first + i, run)) {
            if (i)
                detect_untrack_writes(first, i);
            return -1;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        atomic_store_explicit(&detect_access[first + i], ACCESS_WRITE, memory_order_release);
    return 0;
}

void detect_written(uint32_t first, uint32_t n, void (*fn)(uint32_t page))
{
    for (uint32_t i = 0, run; i < n; i += run) {
        run = region_run(first + i, n - i);
        backend->written(first + i, run, fn);
    }
}

void detect_untrack_writes(uint32_t first, uint32_t n)
{
    for (uint32_t i = 0, run; i < n; i += run) {
        run = region_run(first + i, n - i);
        backend->untrack(first + i, run);
    }
}

void detect_add_window(uint32_t first, uint32_t n)
{
    if (backend->window)
        backend->window(first, n);
}

const char *detect_backend_name(void) { return backend->name; }
int detect_serves_kernel_faults(void) { return backend->kernel_faults; }
