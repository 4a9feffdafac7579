/*
 * munin.c - Munin's multiple consistency protocols (Carter, Bennett and
 * Zwaenepoel, SOSP 1991), over Tessera's transport, locks and barriers:
 * the page directory, the protocol table and the helpers every part of the
 * protocol shares. munin_int.h lists the files and what each one holds.
 *
 * Every page has a manager, its home (tsr_attr placement): the owner of the
 * fixed-owner protocols, the keeper of the page's copyset, and the master
 * copy's holder except while an ownership protocol has lent it out. All
 * manager decisions run on the manager's comm thread, including those for
 * its own application thread (which posts its requests to itself), so they
 * are serialized without locks.
 *
 *   read-only     a miss fetches a copy from the manager; a write stops the job.
 *   conventional  Ivy: a read miss gets a copy; a write miss makes the
 *                 manager invalidate every other copy (getting the master
 *                 back from a writer) before granting write access. Not delayed.
 *   migratory     the same with every miss treated as a write: the one copy moves.
 *   write-shared  the delayed update queue (DUQ): the first write after a
 *                 release twins the page and queues it; a release diffs it
 *                 and sends the diff to every copy holder, merged per
 *                 destination. The manager knows the copyset: its own
 *                 releases read it directly, other writers send their diffs
 *                 through the manager, which forwards them ("with the
 *                 owner's help", Section 3.3).
 *   producer-consumer  write-shared whose copyset freezes at the end of the
 *                 first barrier epoch in which an update of the page reached
 *                 a consumer, not only its writers (or after three epochs
 *                 whose updates reached none), see munin_freeze.c: the
 *                 manager then tells the writers the copyset, they update the
 *                 consumers directly, a page nobody else holds stops
 *                 faulting, and a miss by any other node is a runtime error.
 *   result        the DUQ, with diffs sent to the manager only, after which
 *                 the local copy is dropped.
 *   reduction     Fetch_and_Phi performed by the manager, which updates (or,
 *                 with I set, invalidates) the copies before it answers.
 *
 * Release consistency: a release (unlock, or acquire, which ends the
 * interval too) waits until its updates are applied everywhere; at a
 * barrier the updates go without acks and the barrier makes each receiver
 * wait for the number it was sent (coh_counted_arrival).
 */
#include "coherence/munin/munin_int.h"

#include <stdlib.h>

#include "coherence/protocol.h"
#include "detect/detect.h"
#include "util/log.h"

mu_page *mu;

/* Munin's four access states, as the detection layer's three: a twinned
 * page and an owned one are both writable. */
static int detect_access_for(int access)
{
    return access == A_NONE ? ACCESS_NONE : access == A_READ ? ACCESS_READ : ACCESS_WRITE;
}

void mu_set_access(uint32_t p, uint32_t n, int access)
{
    for (uint32_t i = 0; i < n; i++)
        atomic_store(&mu[p + i].access, (uint8_t)access);
    detect_set_access(p, n, detect_access_for(access));
}

/* ---- Parameters ----------------------------------------------------------- */

int munin_mech_of(unsigned params, const char **why)
{
    unsigned I = params & TSR_MUNIN_INVALIDATE, R = params & TSR_MUNIN_REPLICAS,
             D = params & TSR_MUNIN_DELAYED, FO = params & TSR_MUNIN_FIXED_OWNER,
             M = params & TSR_MUNIN_MULTI_WRITER, Fl = params & TSR_MUNIN_FLUSH_OWNER;
    *why = NULL;
    if (!(params & TSR_MUNIN_WRITABLE))
        return MECH_READ_ONLY;
    if (!R) {
        if (FO || M)
            *why = "a single copy can neither stay at a fixed owner nor have several writers";
        return *why ? -1 : MECH_MIGRATORY;
    }
    if (D && M) {
        if (Fl)
            return MECH_RESULT;
        if (I)
            *why = "delayed invalidations with multiple writers were never built in Munin";
        else if (FO)
            *why = "delayed updates relayed by a fixed owner are not implemented (use FLUSH_OWNER)";
        return *why ? -1 : MECH_UPDATE;
    }
    if (D || M || Fl)
        *why = "delayed operations, multiple writers and flush-to-owner only exist together";
    else if (FO)
        return MECH_REDUCTION;
    else if (!I)
        *why = "immediate updates without a fixed owner are not implemented";
    return *why ? -1 : MECH_CONVENTIONAL;
}

const char *munin_annot_name(int annot)
{
    static const char *const names[] = {"conventional", "read_only", "migratory",
                                        "write_shared", "producer_consumer", "reduction",
                                        "result", "parameters"};
    return annot >= 0 && annot <= TSR_ANNOT_PARAMS ? names[annot] : "?";
}

/* ---- Runtime errors ------------------------------------------------------- */

void mu_die_on(uint32_t p, const char *what)
{
    mu_page *m = &mu[p];
    log_die_status(1, "%s shared variable at %p (annotation %s, parameters 0x%02x; object at %p, "
                   "%zu bytes)", what, (void *)page_app(p), munin_annot_name(m->annot), m->params,
                   (void *)page_app(m->first), (size_t)m->npages * PAGE_SIZE);
}

int mu_managed_by(uint64_t p, uint64_t n, int manager)
{
    if (n == 0 || p >= region.npages || n > region.npages - p)
        return 0;
    for (uint64_t q = p; q < p + n; q++)
        if (coh_protocol_of((uint32_t)q) != &munin_protocol || !mu[q].npages ||
            (manager >= 0 && home((uint32_t)q) != manager))
            return 0;
    return 1;
}

/* ---- Manager actions waiting for acks ------------------------------------- */

mu_ctx *mu_ctx_new(void (*done)(mu_ctx *), int src, uint64_t reply)
{
    mu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        log_die_status(1, "out of memory (Munin manager)");
    c->done = done;
    c->src = src;
    c->reply = reply;
    return c;
}

void mu_ctx_ack(mu_ctx *c)
{
    if (!c->done)
        waiter_done(&c->w);
    else if (atomic_fetch_sub(&c->w.pending, 1) == 1)
        c->done(c);
}

void mu_ctx_start(mu_ctx *c, uint32_t pending)
{
    if (!pending)
        c->done(c);
    else
        atomic_store(&c->w.pending, pending);
}

/* Messages from the manager to itself skip the transport: the comm thread
 * runs the handler at once. */
void mu_deliver(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *payload,
                size_t len, am_handler_fn self_handler)
{
    if (dest != cfg.node) {
        am_send(dest, type, a0, a1, a2, payload, len);
        return;
    }
    tsr_msg_hdr h = {0, (uint16_t)type, (uint16_t)cfg.node, {a0, a1, a2}, 0};
    self_handler(cfg.node, &h, NULL); /* the data is already here */
}

/* ---- The protocol table --------------------------------------------------- */

static void init(void)
{
    mu = region_page_table(sizeof *mu, "Munin's page directory");
    mu_fault_init();
    mu_manager_init();
    mu_update_init();
    mu_freeze_init();
    mu_reduce_init();
    mu_malloc_init();
}

const tsr_protocol munin_protocol = {
    .name = "munin",
    .one_thread = 1,
    .init = init,
    .map = mu_map,
    .unmap = mu_unmap,
    .adopt_run = mu_adopt_run,
    .adopt = mu_adopt,
    .free_local = mu_free_local,
    .fault = mu_fault,
    .flush = mu_flush,
    .barrier_done = mu_barrier_done,
    .payload_check = mu_payload_check,
    .lock_grant = mu_lock_grant,
    .lock_handoff = mu_lock_handoff,
    .lock_release = mu_lock_release,
    .lock_merge = mu_lock_merge,
    .lock_acquire = mu_lock_acquire,
    .lock_peek = mu_lock_peek,
    .lock_peeked = mu_lock_peeked,
};
