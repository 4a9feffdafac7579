/*
 * munin_api.c - the public side of Munin: the annotations' parameter rows
 * (Table 1), Fetch_and_Phi, and the hints of Section 2.4.
 */
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "coherence/munin/munin.h"
#include "memory/region.h"
#include "util/config.h"
#include "util/guard.h"
#include "util/log.h"

#define I TSR_MUNIN_INVALIDATE
#define R TSR_MUNIN_REPLICAS
#define D TSR_MUNIN_DELAYED
#define FO TSR_MUNIN_FIXED_OWNER
#define M TSR_MUNIN_MULTI_WRITER
#define S TSR_MUNIN_STABLE
#define FL TSR_MUNIN_FLUSH_OWNER
#define W TSR_MUNIN_WRITABLE

/* Table 1 of the paper, row by row; its "-" entries are 0. */
unsigned tsr_munin_params(tsr_annotation annot)
{
    switch (annot) {
    case TSR_READ_ONLY:         return R;
    case TSR_MIGRATORY:         return I | W;
    case TSR_WRITE_SHARED:      return R | D | M | W;
    case TSR_PRODUCER_CONSUMER: return R | D | M | S | W;
    case TSR_REDUCTION:         return R | FO | W;
    case TSR_RESULT:            return R | D | FO | M | FL | W;
    case TSR_CONVENTIONAL:      return I | R | W;
    default:                    log_die("tsr_munin_params: unknown annotation %d", (int)annot);
    }
}

int64_t tsr_reduce_i64(int64_t *addr, tsr_op op, int64_t value)
{
    guard_check("tsr_reduce_i64");
    return (int64_t)munin_reduce(addr, op, 0, (uint64_t)value);
}

double tsr_reduce_f64(double *addr, tsr_op op, double value)
{
    guard_check("tsr_reduce_f64");
    uint64_t bits, old;
    memcpy(&bits, &value, sizeof bits);
    old = munin_reduce(addr, op, 1, bits);
    double r;
    memcpy(&r, &old, sizeof r);
    return r;
}

/* A hint's first steps: the caller may call into the runtime now, and ptr
 * lies in a Munin object (else the node stops, naming fn). */
static void hinted(const char *fn, void *ptr, uint32_t *first, uint32_t *n)
{
    guard_check(fn);
    munin_object(fn, ptr, first, n);
}

/* The hints that act on the object's pages and nothing else. */
static void hint(const char *fn, void *ptr, void (*act)(uint32_t first, uint32_t n))
{
    uint32_t first, n;
    hinted(fn, ptr, &first, &n);
    act(first, n);
}

/* Collective changes of an object's protocol: every node stops using it
 * (barrier), gives its copies back so that each manager holds the current
 * value (barrier), then restarts the object in its new protocol (barrier:
 * no request reaches a manager that has not restarted it yet). */
static void restart(uint32_t first, uint32_t n, int annot, unsigned params)
{
    coh_sync.barrier();
    munin_drop(first, n);
    coh_sync.barrier();
    munin_reset(first, n, annot, params);
    coh_sync.barrier();
}

void tsr_hint_phase_change(void *ptr)
{
    uint32_t first, n;
    int annot;
    unsigned params;
    hinted(__func__, ptr, &first, &n);
    munin_attrs(first, &annot, &params);
    restart(first, n, annot, params);
}

void tsr_hint_change_annotation(void *ptr, tsr_annotation annot)
{
    uint32_t first, n;
    hinted(__func__, ptr, &first, &n);
    if (annot < TSR_CONVENTIONAL || annot >= TSR_ANNOT_PARAMS)
        log_die("tsr_hint_change_annotation: unknown annotation %d", (int)annot);
    restart(first, n, annot, tsr_munin_params(annot));
}

void tsr_hint_invalidate(void *ptr) { hint(__func__, ptr, munin_drop); }
void tsr_hint_flush(void *ptr) { hint(__func__, ptr, munin_flush_object); }
void tsr_hint_single_object(void *ptr) { hint(__func__, ptr, munin_set_single); }
void tsr_hint_preacquire(void *ptr) { hint(__func__, ptr, munin_fetch); }

/* Collective. The lock's manager reads the object's current value and
 * keeps it as the lock's data; from then on the object lives with the lock. */
void tsr_hint_lock_data(int lock, void *ptr)
{
    uint32_t first, n;
    hinted(__func__, ptr, &first, &n);
    if (lock < 0 || lock >= TSR_MAX_LOCKS)
        log_die("tsr_hint_lock_data(%d): lock id out of range [0, %d)", lock, TSR_MAX_LOCKS);
    coh_sync.barrier();
    munin_drop(first, n);
    coh_sync.barrier();
    int manager = lock % cfg.nodes == cfg.node;
    if (manager)
        munin_fetch(first, n);
    munin_bind(first, n, lock);
    if (manager)
        munin_lock_keep(lock);
    coh_sync.barrier();
}
