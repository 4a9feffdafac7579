#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "stats/stats.h"
#include "sync/collective.h"
#include "sync/stall.h"
#include "sync/sync.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/guard.h"
#include "util/log.h"

#define BARRIER_MANAGER 0

/* Manager side (node 0's comm thread only). expect[j]: messages sent to
 * node j without acks during the epoch (coh_barrier_release), which j must
 * receive before it leaves. */
static uint32_t *expect;
static int arrived;
static uint64_t mgr_epoch;
/* The epoch's first arrival: every other one must make the same call. */
static coll_sig first_sig;
static int first_node;

/* Node side. */
static uint64_t epoch;
static struct {
    waiter w;
    void *departure; /* the protocols' frames */
    size_t len;
    uint32_t expected; /* counted messages to receive before leaving */
} done;

static void check_signature(int src, const char *wire)
{
    coll_sig sig;
    memcpy(&sig, wire, sizeof sig);
    if (!arrived) {
        first_sig = sig;
        first_node = src;
    } else if (memcmp(&sig, &first_sig, sizeof sig)) {
        coll_mismatch(mgr_epoch, first_node, &first_sig, src, &sig);
    }
}

/* An arrival: the counters of messages sent, the call, then the
 * protocols' frames. */
static void on_arrive(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[0] != mgr_epoch)
        log_die_status(1, "protocol error: node %d arrived at barrier %llu during barrier %llu",
                       src, (unsigned long long)h->arg[0], (unsigned long long)mgr_epoch);
    size_t fixed = (size_t)cfg.nodes * sizeof(uint32_t) + sizeof(coll_sig);
    if (h->len < fixed || coh_barrier_merge(src, (const char *)payload + fixed, h->len - fixed))
        log_die_status(1, "protocol error: malformed barrier arrival from node %d", src);
    const char *sent = payload;
    check_signature(src, sent + fixed - sizeof(coll_sig));
    for (int j = 0; j < cfg.nodes; j++) {
        uint32_t c;
        memcpy(&c, sent + (size_t)j * sizeof c, sizeof c);
        expect[j] += c;
    }
    if (++arrived < cfg.nodes)
        return;
    pbuf out = {0};
    coh_barrier_departure(&out);
    /* This node last: its application thread, once released, must find
     * every other node's release counted in messages_sent (tsr_finalize
     * takes the statistics right after its barrier). */
    for (int k = 1; k <= cfg.nodes; k++) {
        int i = (cfg.node + k) % cfg.nodes;
        am_send(i, MSG_BARRIER_DONE, mgr_epoch, expect[i], 0, out.p, out.len);
    }
    pbuf_free(&out);
    memset(expect, 0, (size_t)cfg.nodes * sizeof *expect);
    arrived = 0;
    mgr_epoch++;
}

static void on_done(int src, const tsr_msg_hdr *h, void *payload)
{
    if (!(done.departure = malloc(h->len + 1)))
        log_die_status(1, "out of memory (barrier)");
    memcpy(done.departure, payload, h->len);
    done.len = h->len;
    done.expected = (uint32_t)h->arg[1];
    waiter_done(&done.w);
}

void barrier_init(void)
{
    expect = calloc((size_t)cfg.nodes, sizeof *expect);
    if (!expect)
        log_die("out of memory (barrier)");
    am_register(MSG_BARRIER_ARRIVE, on_arrive);
    am_register(MSG_BARRIER_DONE, on_done);
}

void tsr_barrier(void)
{
    guard_check("tsr_barrier");
    coll_sig sig = coll_sig_of(COLL_BARRIER, 0, NULL);
    barrier_collective(&sig);
}

void barrier_collective(const coll_sig *sig)
{
    if (!lock_held_count())
        coh_sync_point();
    double t0 = now_s();
    stall_enter(epoch, sig);
    size_t counts = (size_t)cfg.nodes * sizeof(uint32_t);
    uint32_t *sent = calloc(1, counts);
    if (!sent)
        log_die("out of memory (barrier)");
    coh_barrier_release(sent);
    lock_count_releases(sent);
    /* One message: the counters of messages sent, the call, the frames. */
    pbuf msg = {0};
    pbuf_put(&msg, sent, counts);
    pbuf_put(&msg, sig, sizeof *sig);
    coh_barrier_arrival(&msg);
    waiter_init(&done.w, 1);
    am_send(BARRIER_MANAGER, MSG_BARRIER_ARRIVE, epoch, 0, 0, msg.p, msg.len);
    pbuf_free(&msg);
    free(sent);
    stall_wait(&done.w, -1);
    stall_leave();
    epoch++;
    if (coh_barrier_done(done.departure, done.len, done.expected))
        log_die_status(1, "protocol error: malformed barrier departure");
    free(done.departure);
    STAT_ADD(barriers, 1);
    STAT_TIME(barrier_wait_s, now_s() - t0);
}
