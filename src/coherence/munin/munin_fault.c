/*
 * munin_fault.c - the requester's side of Munin: a fault asks the page's
 * manager for the access its annotation allows, and the comm thread
 * installs what the manager grants or gives up what it invalidates.
 *
 * mu_fault runs in the SIGSEGV handler: requests are posted with am_post
 * from messages on the stack, and the waits spin and sleep on a futex.
 */
#include "coherence/munin/munin_int.h"

#include <string.h>

#include "coherence/protocol.h"

#include "stats/stats.h"
#include "stats/trace.h"

/* Posts one request per run of pages that share a manager and waits for
 * all the grants: the misses of a whole object in one exchange per manager. */
#define MAX_RUNS 16
static void request_runs(uint32_t first, uint32_t n, int want)
{
    mu_reply r = {0};
    am_msg m[MAX_RUNS];
    int runs = 0;
    uint32_t i = 0;
    double t0 = now_s();
    waiter_init(&r.w, 0);
    while (i < n) {
        if (access_of(first + i) != A_NONE && want == A_READ) {
            i++;
            continue;
        }
        uint32_t j = i + 1;
        while (j < n && j - i < 0xffff && home(first + j) == home(first + i) &&
               access_of(first + j) == A_NONE)
            j++;
        if (runs == MAX_RUNS) { /* wait for this batch before posting more */
            waiter_wait(&r.w);
            runs = 0;
        }
        atomic_fetch_add(&r.w.pending, 1);
        uint64_t a0 = (first + i) | (uint64_t)(j - i) << 32 | (uint64_t)want << 48;
        int manager = home(first + i);
        am_post(manager, &m[runs++], MSG_MU_REQ, a0, req_open(manager, MSG_MU_GRANT, &r),
                coh_epoch(), NULL, 0);
        i = j;
    }
    waiter_wait(&r.w);
    STAT_TIME(fault_wait_s, now_s() - t0);
    uint32_t refused = atomic_load(&r.refused);
    if (refused)
        mu_die_on(refused - 1, "access outside the stable sharing pattern (call "
                               "tsr_hint_phase_change first) to");
}

static void fetch(uint32_t p)
{
    if (has_flag(p, F_SINGLE))
        request_runs(mu[p].first, mu[p].npages, A_READ);
    else
        request_runs(p, 1, A_READ);
}

void munin_fetch(uint32_t first, uint32_t n)
{
    for (uint32_t p = first; p < first + n; p++) {
        int mech = mu[p].mech;
        if (access_of(p) != A_NONE || has_flag(p, F_BOUND))
            continue;
        if (mech == MECH_CONVENTIONAL || mech == MECH_MIGRATORY)
            request_runs(p, 1, mech == MECH_MIGRATORY ? A_OWNED : A_READ);
        else
            request_runs(p, first + n - p, A_READ);
    }
}

void mu_fault(uint32_t p, int is_write)
{
    mu_page *m = &mu[p];
    int acc = access_of(p);
    if (is_write < 0)
        is_write = acc != A_NONE;
    if (acc == A_OWNED || acc == A_WRITE || (acc == A_READ && !is_write))
        return; /* granted by the comm thread since the fault */
    if (is_write)
        STAT_ADD(write_faults, 1);
    else
        STAT_ADD(read_faults, 1);
    if (has_flag(p, F_BOUND)) {
        mu_bound_fault(p, is_write);
        return;
    }
    switch (m->mech) {
    case MECH_READ_ONLY:
        if (is_write)
            mu_die_on(p, "write to read-only");
        fetch(p);
        return;
    case MECH_REDUCTION:
        if (is_write)
            mu_die_on(p, "plain write (use tsr_reduce_i64/f64) to reduction");
        fetch(p);
        return;
    case MECH_CONVENTIONAL:
        request_runs(p, 1, is_write ? A_OWNED : A_READ);
        return;
    case MECH_MIGRATORY:
        request_runs(p, 1, A_OWNED);
        return;
    default: /* MECH_UPDATE, MECH_RESULT: the delayed update queue */
        if (acc == A_NONE)
            fetch(p);
        if (is_write)
            mu_twin_and_queue(p);
        else if (m->mech == MECH_RESULT)
            mu_enqueue(p); /* a result copy is dropped at the next release */
    }
}

/* ---- Grants and invalidations (requester's comm thread) -------------------- */

void mu_on_grant(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0], n = (uint32_t)(h->arg[0] >> 32) & 0xffff;
    int access = (int)(h->arg[0] >> 48) & 0xff, flags = (int)(h->arg[0] >> 56);
    mu_reply *r = req_ctx(h->arg[1]);
    if (!mu_managed_by(p, n, src) || access > A_OWNED ||
        (h->len && h->len != (size_t)n * PAGE_SIZE)) {
        am_reject(src, h, "a grant of pages the sender does not manage, or of the wrong size");
        return;
    }
    req_close(h->arg[1]);
    if (flags & G_REFUSED) {
        atomic_store(&r->refused, p + 1);
    } else {
        if (h->len) {
            memcpy(page_rt(p), payload, (size_t)n * PAGE_SIZE);
            STAT_ADD(page_fetches, n);
            TRACE_MARK(EV_FETCH, src, p, n);
        }
        mu_set_access(p, n, access);
    }
    waiter_done(&r->w);
}

static void on_inval(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t p = (uint32_t)h->arg[0];
    int mode = (int)(h->arg[0] >> 32);
    if (!mu_managed_by(p, 1, src) || (mode != INV_DROP && mode != INV_DOWNGRADE)) {
        am_reject(src, h, "an invalidation of a page the sender does not manage");
        return;
    }
    int was_owner = access_of(p) == A_OWNED;
    /* Protect before reading: no write may slip in after the copy is taken. */
    if (access_of(p) != A_NONE)
        mu_set_access(p, 1, mode == INV_DROP ? A_NONE : A_READ);
    am_send(src, MSG_MU_INVAL_ACK, p, h->arg[1], 0, was_owner ? page_rt(p) : NULL,
            was_owner ? PAGE_SIZE : 0);
    STAT_ADD(invalidations, 1);
    TRACE_MARK(EV_INVALIDATE, 0, p, 0);
}

void mu_fault_init(void)
{
    am_register(MSG_MU_GRANT, mu_on_grant);
    am_register(MSG_MU_INVAL, on_inval);
}
