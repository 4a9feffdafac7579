/*
 * clock.c - Cristian's method against node 0: the offset is node 0's clock
 * less the middle of the round trip that carried it, taken from the
 * quickest of a few rounds, whose error is at most half of that round
 * trip. The trace says both (docs/TRACE.md).
 */
#include "transport/clock.h"

#include "stats/trace.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"

#define CLOCK_ROUNDS 8

typedef struct clock_ctx {
    waiter w;
    uint64_t theirs;
} clock_ctx;

static void on_ask(int src, const tsr_msg_hdr *h, void *payload)
{
    (void)payload;
    if (cfg.node != 0) {
        am_reject(src, h, "a clock question to a node other than 0");
        return;
    }
    am_send(src, MSG_CLOCK, trace_now(), h->arg[1], 0, NULL, 0);
}

static void on_clock(int src, const tsr_msg_hdr *h, void *payload)
{
    (void)src;
    (void)payload;
    clock_ctx *ctx = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    ctx->theirs = h->arg[0];
    waiter_done(&ctx->w);
}

void clock_init(void)
{
    am_register(MSG_CLOCK_ASK, on_ask);
    am_register(MSG_CLOCK, on_clock);
}

void clock_measure(void)
{
    if (!trace_on || cfg.node == 0)
        return;
    uint64_t best_rtt = UINT64_MAX;
    int64_t best = 0;
    for (int i = 0; i < CLOCK_ROUNDS; i++) {
        clock_ctx ctx;
        waiter_init(&ctx.w, 1);
        uint64_t t1 = trace_now();
        am_send(0, MSG_CLOCK_ASK, 0, req_open(0, MSG_CLOCK, &ctx), 0, NULL, 0);
        waiter_wait(&ctx.w);
        uint64_t t2 = trace_now();
        if (t2 - t1 < best_rtt) {
            best_rtt = t2 - t1;
            best = (int64_t)(ctx.theirs - (t1 + (t2 - t1) / 2));
        }
    }
    trace_set_offset(best, best_rtt);
}
