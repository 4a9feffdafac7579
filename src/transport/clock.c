/*
 * clock.c - Cristian's method down the barrier tree: a node asks its
 * parent, which answers with its own estimate of node 0's clock once it has
 * one (node 0 at once, with its clock), so that no node asks node 0 but its
 * children, and node 0 holds no link for it to every node. The offset is
 * the parent's estimate less the middle of the round trip that carried
 * it, taken from the quickest of a few rounds; its error is at most half
 * of that round trip plus the parent's, so a node keeps the sum of the
 * round trips on its path from node 0, whose half bounds it. The trace
 * says both (docs/TRACE.md).
 */
#include "transport/clock.h"

#include <pthread.h>
#include <stdlib.h>

#include "stats/trace.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

#define CLOCK_ROUNDS 8

typedef struct clock_ctx {
    waiter w;
    uint64_t theirs, their_rtt;
} clock_ctx;

/* This node's estimate, once known: before, questions wait in `asked`
 * (each node's request id, 0: none), at most one per node. Under `mu`,
 * since the comm thread queues while the application thread measures. */
static struct {
    pthread_mutex_t mu;
    int known;
    int64_t offset;
    uint64_t rtt;
    uint64_t *asked;
} est = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void answer(int node, uint64_t reply)
{
    am_send(node, MSG_CLOCK, trace_now() + (uint64_t)est.offset, reply, est.rtt, NULL, 0);
}

static void on_ask(int src, const tsr_msg_hdr *h, void *payload)
{
    (void)payload;
    if (!h->arg[1]) { /* request ids are never 0, which marks no question */
        am_reject(src, h, "a clock question without a request id");
        return;
    }
    pthread_mutex_lock(&est.mu);
    int late = !est.known, twice = late && est.asked[src];
    if (late && !twice)
        est.asked[src] = h->arg[1];
    else if (!late)
        answer(src, h->arg[1]);
    pthread_mutex_unlock(&est.mu);
    if (twice)
        am_reject(src, h, "a second clock question before the first was answered");
}

static void on_clock(int src, const tsr_msg_hdr *h, void *payload)
{
    (void)src;
    (void)payload;
    clock_ctx *ctx = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    ctx->theirs = h->arg[0];
    ctx->their_rtt = h->arg[2];
    waiter_done(&ctx->w);
}

void clock_init(void)
{
    if (!(est.asked = calloc((size_t)cfg.nodes, sizeof *est.asked)))
        log_die("out of memory (clock questions)");
    est.known = cfg.node == 0;
    am_register(MSG_CLOCK_ASK, on_ask);
    am_register(MSG_CLOCK, on_clock);
}

/* The estimate is known: answers the questions that waited for it, after
 * mu, which the comm thread takes (once `known` is set it answers itself,
 * and no question joins `asked`). */
static void known(int64_t offset, uint64_t rtt)
{
    pthread_mutex_lock(&est.mu);
    est.offset = offset;
    est.rtt = rtt;
    est.known = 1;
    pthread_mutex_unlock(&est.mu);
    for (int j = 0; j < cfg.nodes; j++)
        if (est.asked[j])
            answer(j, est.asked[j]);
    trace_set_offset(offset, rtt);
}

void clock_measure(int parent)
{
    if (cfg.node == 0)
        return;
    if (!trace_on) { /* answers a tracing child all the same; the layout check stops it */
        known(0, 0);
        return;
    }
    uint64_t best_rtt = UINT64_MAX, parent_rtt = 0;
    int64_t best = 0;
    for (int i = 0; i < CLOCK_ROUNDS; i++) {
        clock_ctx ctx;
        waiter_init(&ctx.w, 1);
        uint64_t t1 = trace_now();
        am_send(parent, MSG_CLOCK_ASK, 0, req_open(parent, MSG_CLOCK, &ctx), 0, NULL, 0);
        waiter_wait(&ctx.w);
        uint64_t t2 = trace_now();
        if (t2 - t1 < best_rtt) {
            best_rtt = t2 - t1;
            parent_rtt = ctx.their_rtt;
            best = (int64_t)(ctx.theirs - (t1 + (t2 - t1) / 2));
        }
    }
    known(best, best_rtt + parent_rtt);
}
