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
static notice_set gathered;
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
    notice_set global;
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

static void on_arrive(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[0] != mgr_epoch)
        log_die_status(1, "protocol error: node %d arrived at barrier %llu during barrier %llu",
                       src, (unsigned long long)h->arg[0], (unsigned long long)mgr_epoch);
    size_t nlen = h->arg[1], counts = (size_t)cfg.nodes * sizeof(uint32_t);
    if (nlen + counts + sizeof(coll_sig) != h->len || notice_merge_wire(&gathered, payload, nlen))
        log_die_status(1, "protocol error: malformed barrier arrival from node %d", src);
    const char *sent = (const char *)payload + nlen;
    check_signature(src, sent + counts);
    for (int j = 0; j < cfg.nodes; j++) {
        uint32_t c;
        memcpy(&c, sent + (size_t)j * sizeof c, sizeof c);
        expect[j] += c;
    }
    if (++arrived < cfg.nodes)
        return;
    size_t len = (size_t)gathered.n * NOTICE_WIRE;
    void *buf = malloc(len + 1);
    notice_encode(&gathered, 0, buf);
    /* This node last: its application thread, once released, must find
     * every other node's release counted in messages_sent (tsr_finalize
     * takes the statistics right after its barrier). */
    for (int k = 1; k <= cfg.nodes; k++) {
        int i = (cfg.node + k) % cfg.nodes;
        am_send(i, MSG_BARRIER_DONE, mgr_epoch, expect[i], 0, buf, len);
    }
    free(buf);
    memset(expect, 0, (size_t)cfg.nodes * sizeof *expect);
    notice_clear(&gathered);
    arrived = 0;
    mgr_epoch++;
}

static void on_done(int src, const tsr_msg_hdr *h, void *payload)
{
    notice_clear(&done.global);
    notice_merge_wire(&done.global, payload, h->len);
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
    double t0 = now_s();
    stall_enter(epoch, sig);
    size_t counts = (size_t)cfg.nodes * sizeof(uint32_t);
    uint32_t *sent = calloc(1, counts);
    if (!sent)
        log_die("out of memory (barrier)");
    coh_barrier_release(sent);
    lock_count_releases(sent);
    size_t len;
    void *notices = coh_all_notices(&len);
    /* One message: the notices, the counters of messages sent, the call. */
    char *msg = malloc(len + counts + sizeof *sig);
    if (!msg)
        log_die("out of memory (barrier)");
    memcpy(msg, notices, len);
    memcpy(msg + len, sent, counts);
    memcpy(msg + len + counts, sig, sizeof *sig);
    waiter_init(&done.w, 1);
    am_send(BARRIER_MANAGER, MSG_BARRIER_ARRIVE, epoch, len, 0, msg, len + counts + sizeof *sig);
    free(notices);
    free(msg);
    free(sent);
    stall_wait(&done.w, -1);
    stall_leave();
    epoch++;
    coh_barrier_done(&done.global, done.expected);
    lock_prune(&done.global);
    STAT_ADD(barriers, 1);
    STAT_TIME(barrier_wait_s, now_s() - t0);
}
