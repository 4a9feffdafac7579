/*
 * detect.h - access detection: how the runtime learns that the application
 * touched a shared page in a way it may not yet.
 *
 * Every page of the application view has one access level, kept in a
 * per-page byte that protocols, fault handlers and compiler-inserted checks
 * all read: NONE (every access faults), READ (a write faults) or WRITE
 * (nothing faults). Protocols change it only through detect_set_access, and
 * the backend makes the hardware follow it; no protocol calls mprotect.
 *
 * A fault calls the registered callback (coherence's coh_fault) with the
 * address and the kind of access. The callback may run on any thread: the
 * faulting one under `segv`, the backend's handler thread under `uffd`. It
 * sets the page's access as the protocol decides, and the backend then lets
 * the access go on as far as the byte allows (a write to a page left READ
 * faults again).
 *
 * Backends (TSR_DETECT, docs/CONFIG.md):
 *   segv - mprotect and a SIGSEGV handler on the faulting thread (segv.c);
 *   uffd - userfaultfd minor/missing and write-protect faults, served by a
 *          handler thread (uffd.c). The kernel also hands it the faults it
 *          takes inside system calls, and those of any user thread. It can
 *          also track writes exactly, with no fault at all (written.c).
 */
#ifndef TSR_DETECT_H
#define TSR_DETECT_H

#include <stdatomic.h>
#include <stdint.h>

enum { ACCESS_NONE = 0, ACCESS_READ = 1, ACCESS_WRITE = 2 };

/* Returns -1 when addr is not memory the callback manages (the fault is
 * then the program's own). is_write is -1 where the hardware does not say. */
typedef int (*detect_fault_fn)(void *addr, int is_write);

/* The access byte of every page of the region, indexed by page number. */
extern _Atomic uint8_t *detect_access;

static inline int detect_access_of(uint32_t page)
{
    return atomic_load_explicit(&detect_access[page], memory_order_acquire);
}

/* Chooses the backend (TSR_DETECT) and starts it; after region_init. Exits
 * naming TSR_DETECT when `uffd` is asked for and cannot be had. */
void detect_init(void);
/* Registers the fault callback (one; coherence registers coh_fault). */
void detect_on_fault(detect_fault_fn fn);
/* Sets the access of pages [first, first+n). Async-signal-safe, callable
 * from any thread. Setting a page's current access again puts the hardware
 * right if it ever disagrees with the byte. */
void detect_set_access(uint32_t first, uint32_t n, int access);
/* Exact write tracking without faults (uffd, where the kernel has
 * asynchronous write protection): pages [first, first+n) get ACCESS_WRITE
 * and take no fault, and the kernel records which of them are written.
 * Returns -1 (nothing changed) where the backend cannot. Their access must
 * not be set again until detect_untrack_writes. */
int detect_track_writes(uint32_t first, uint32_t n);
/* Calls fn(page) for each tracked page of [first, first+n) written since the
 * previous call (or since tracking began), and starts a new interval. */
void detect_written(uint32_t first, uint32_t n, void (*fn)(uint32_t page));
/* Ends tracking of pages [first, first+n); they keep ACCESS_WRITE. */
void detect_untrack_writes(uint32_t first, uint32_t n);
/* Pages [first, first+n) were just given a window of their own
 * (region_add_window, read-write): the backend sets itself up over it as
 * over the region. Their access is set next, as for a new allocation. */
void detect_add_window(uint32_t first, uint32_t n);
/* "segv" or "uffd": the backend in use. */
const char *detect_backend_name(void);
/* 1 when faults taken inside system calls and by any thread are served
 * (uffd), 0 when only the faulting thread's own user-mode accesses are. */
int detect_serves_kernel_faults(void);

#endif
