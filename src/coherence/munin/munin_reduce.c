/*
 * munin_reduce.c - reduction objects (fixed owner): Fetch_and_Phi
 * (tsr_reduce_i64/f64) is performed at the object's owner, which updates
 * (or, with I set, invalidates) every other copy before it answers, so the
 * result is visible to all once the caller has it.
 */
#include "coherence/munin/munin_int.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "util/log.h"

#define OFFSET_MASK (((uint64_t)1 << 48) - 1)

STATS_COUNTER(reductions, "Munin Fetch_and_Phi operations performed here");

static uint64_t apply_op(tsr_op op, int is_double, uint64_t cur, uint64_t operand)
{
    if (op == TSR_OP_SWAP)
        return operand;
    if (is_double) {
        double a, b, r;
        memcpy(&a, &cur, 8);
        memcpy(&b, &operand, 8);
        r = op == TSR_OP_ADD ? a + b : op == TSR_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
        memcpy(&cur, &r, 8);
        return cur;
    }
    int64_t a = (int64_t)cur, b = (int64_t)operand;
    int64_t r = op == TSR_OP_ADD ? (int64_t)((uint64_t)a + (uint64_t)b)
                : op == TSR_OP_MIN ? (b < a ? b : a) : (b > a ? b : a);
    return (uint64_t)r;
}

static void on_reduce_rep(int src, const tsr_msg_hdr *h, void *payload)
{
    mu_reply *r = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    r->value = h->arg[2];
    waiter_done(&r->w);
}

static void reduce_done(mu_ctx *c)
{
    mu_deliver(c->src, MSG_MU_REDUCE_REP, 0, c->reply, c->value, NULL, 0, on_reduce_rep);
    free(c);
}

/* The owner performs the operation, then updates (or invalidates) every
 * other copy before it answers. */
static void on_reduce(int src, const tsr_msg_hdr *h, void *payload)
{
    uint64_t off = h->arg[0] & OFFSET_MASK;
    tsr_op op = (tsr_op)((h->arg[0] >> 48) & 0xff);
    int is_double = (int)(h->arg[0] >> 56);
    uint32_t p = (uint32_t)(off >> PAGE_SHIFT);
    uint64_t old, now;
    if (off % 8 || op < TSR_OP_ADD || op > TSR_OP_SWAP || is_double > 1 ||
        !mu_managed_by(p, 1, cfg.node) || mu[p].mech != MECH_REDUCTION) {
        am_reject(src, h, "not an operation on a reduction object managed here");
        return;
    }
    memcpy(&old, region.rt + off, 8);
    now = apply_op(op, is_double, old, h->arg[2]);
    memcpy(region.rt + off, &now, 8);
    COUNTER_ADD(reductions, 1);

    mu_ctx *c = mu_ctx_new(reduce_done, src, h->arg[1]);
    c->value = old;
    c->page = p;
    uint64_t others = atomic_load(&mu[p].cs) & ~bit(cfg.node);
    uint32_t pending = 0;
    outbox diff = {0};
    uint16_t run[2] = {(uint16_t)(off & (PAGE_SIZE - 1)), 8};
    uint8_t enc[12];
    memcpy(enc, run, 4);
    memcpy(enc + 4, &now, 8);
    outbox_add(&diff, p, 0, enc, sizeof enc);
    for (int j = 0; j < cfg.nodes; j++) {
        if (!(others & bit(j)))
            continue;
        if (mu[p].params & TSR_MUNIN_INVALIDATE) {
            atomic_fetch_and(&mu[p].cs, ~bit(j));
            am_send(j, MSG_MU_INVAL, p | (uint64_t)INV_DROP << 32,
                    req_open(j, MSG_MU_INVAL_ACK, c), 0, NULL, 0);
        } else {
            mu_send_update(j, &diff, c);
        }
        pending++;
    }
    outbox_free(&diff);
    mu_ctx_start(c, pending);
}

uint64_t munin_reduce(void *addr, tsr_op op, int is_double, uint64_t operand)
{
    mu_learn(addr);
    uint32_t p = page_of(addr);
    if (!region_contains(addr) || !mu[p].npages || mu[p].mech != MECH_REDUCTION)
        log_die("tsr_reduce: %p is not in a Munin reduction object", addr);
    if ((uintptr_t)addr % 8 || op < TSR_OP_ADD || op > TSR_OP_SWAP)
        log_die("tsr_reduce: %p is not 8-byte aligned, or the operation %d is unknown", addr,
                (int)op);
    mu_reply r = {0};
    uint64_t off = (uint64_t)((char *)addr - region.app);
    waiter_init(&r.w, 1);
    am_send(home(p), MSG_MU_REDUCE, off | (uint64_t)op << 48 | (uint64_t)is_double << 56,
            req_open(home(p), MSG_MU_REDUCE_REP, &r), operand, NULL, 0);
    waiter_wait(&r.w);
    return r.value;
}

void mu_reduce_init(void)
{
    stats_register(&reductions);
    am_register(MSG_MU_REDUCE, on_reduce);
    am_register(MSG_MU_REDUCE_REP, on_reduce_rep);
}
