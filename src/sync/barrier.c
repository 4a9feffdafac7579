/*
 * barrier.c - the barrier: every node sends its arrival to the root (node
 * 0), which sends every node the departure once all have arrived.
 *
 * The root knows who has arrived in the current epoch (a bitmap), and a
 * node knows which epoch it waits to leave: a second arrival, one for
 * another epoch, a departure not from the root or not awaited is rejected
 * (am_reject) and changes nothing.
 */
#include <stdatomic.h>
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
static unsigned char *arrived_from; /* in this epoch, by node */
static int arrived;
static uint64_t mgr_epoch;
/* The epoch's first arrival: every other one must make the same call. */
static coll_sig first_sig;
static int first_node;

/* Node side. `awaited` is the epoch whose departure this node waits for
 * (NO_EPOCH: none), taken back by the departure. */
#define NO_EPOCH UINT64_MAX
static uint64_t epoch;
static struct {
    waiter w;
    void *departure; /* the protocols' frames */
    size_t len;
    uint32_t expected; /* counted messages to receive before leaving */
    _Atomic uint64_t awaited;
} done = {.awaited = NO_EPOCH};

/* Every arrival of an epoch must make its first arrival's call; a node that
 * does not has misused the API, and the job stops naming both calls. */
static void check_signature(int src, const char *wire)
{
    coll_sig sig;
    memcpy(&sig, wire, sizeof sig);
    if (arrived && memcmp(&sig, &first_sig, sizeof sig))
        coll_mismatch(mgr_epoch, first_node, &first_sig, src, &sig);
}

static const char *arrival_refused(int src, const tsr_msg_hdr *h, const void *payload,
                                   size_t fixed)
{
    if (cfg.node != BARRIER_MANAGER)
        return "an arrival at a node that is not the barrier's root";
    if (h->arg[0] != mgr_epoch)
        return "an arrival at another barrier than the current one";
    if (arrived_from[src])
        return "a second arrival at one barrier";
    if (h->len < fixed)
        return "an arrival shorter than its counters and call";
    if (coh_payload_check(PL_ARRIVAL, -1, (const char *)payload + fixed, h->len - fixed))
        return "a malformed arrival";
    return NULL;
}

/* An arrival: the counters of messages sent, the call, then the
 * protocols' frames. */
static void on_arrive(int src, const tsr_msg_hdr *h, void *payload)
{
    size_t fixed = (size_t)cfg.nodes * sizeof(uint32_t) + sizeof(coll_sig);
    const char *why = arrival_refused(src, h, payload, fixed);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
    const char *sent = payload;
    check_signature(src, sent + fixed - sizeof(coll_sig));
    if (coh_barrier_merge(src, sent + fixed, h->len - fixed))
        log_die_status(1, "barrier: the protocols refused an arrival checked on arrival");
    if (!arrived) {
        memcpy(&first_sig, sent + fixed - sizeof(coll_sig), sizeof first_sig);
        first_node = src;
    }
    arrived_from[src] = 1;
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
    memset(arrived_from, 0, (size_t)cfg.nodes);
    arrived = 0;
    mgr_epoch++;
}

static const char *departure_refused(int src, const tsr_msg_hdr *h, const void *payload)
{
    if (src != BARRIER_MANAGER)
        return "a departure not from the barrier's root";
    if (coh_payload_check(PL_DEPARTURE, -1, payload, h->len))
        return "a malformed departure";
    uint64_t want = h->arg[0];
    if (!atomic_compare_exchange_strong(&done.awaited, &want, NO_EPOCH))
        return "a departure from a barrier this node does not wait at";
    return NULL;
}

static void on_done(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = departure_refused(src, h, payload);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
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
    arrived_from = calloc((size_t)cfg.nodes, 1);
    if (!expect || !arrived_from)
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
        coh_sync_point(1);
    sync_releasing();
    double t0 = now_s();
    am_wait_room();
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
    atomic_store(&done.awaited, epoch); /* before the departure can come */
    am_send(BARRIER_MANAGER, MSG_BARRIER_ARRIVE, epoch, 0, 0, msg.p, msg.len);
    pbuf_free(&msg);
    free(sent);
    stall_wait(&done.w, -1);
    stall_leave();
    epoch++;
    if (coh_barrier_done(done.departure, done.len, done.expected))
        log_die_status(1, "barrier: the protocols refused a departure checked on arrival");
    free(done.departure);
    sync_acquired();
    STAT_ADD(barriers, 1);
    STAT_TIME(barrier_wait_s, now_s() - t0);
}
