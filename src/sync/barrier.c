#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "stats/stats.h"
#include "sync/sync.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

#define BARRIER_MANAGER 0

/* Manager side (node 0's comm thread only). */
static notice_set gathered;
static int arrived;
static uint64_t mgr_epoch;

/* Node side. */
static uint64_t epoch;
static struct {
    waiter w;
    notice_set global;
} done;

static void on_arrive(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[0] != mgr_epoch)
        log_die_status(1, "protocol error: node %d arrived at barrier %llu during barrier %llu",
                       src, (unsigned long long)h->arg[0], (unsigned long long)mgr_epoch);
    if (notice_merge_wire(&gathered, payload, h->len))
        log_die_status(1, "protocol error: malformed barrier notices from node %d", src);
    if (++arrived < cfg.nodes)
        return;
    size_t len = (size_t)gathered.n * NOTICE_WIRE;
    void *buf = malloc(len + 1);
    notice_encode(&gathered, 0, buf);
    for (int i = 0; i < cfg.nodes; i++)
        am_send(i, MSG_BARRIER_DONE, mgr_epoch, 0, 0, buf, len);
    free(buf);
    notice_clear(&gathered);
    arrived = 0;
    mgr_epoch++;
}

static void on_done(int src, const tsr_msg_hdr *h, void *payload)
{
    notice_clear(&done.global);
    notice_merge_wire(&done.global, payload, h->len);
    waiter_done(&done.w);
}

void barrier_init(void)
{
    am_register(MSG_BARRIER_ARRIVE, on_arrive);
    am_register(MSG_BARRIER_DONE, on_done);
}

void tsr_barrier(void)
{
    double t0 = now_s();
    coh_release();
    size_t len;
    void *notices = coh_all_notices(&len);
    waiter_init(&done.w, 1);
    am_send(BARRIER_MANAGER, MSG_BARRIER_ARRIVE, epoch, 0, 0, notices, len);
    free(notices);
    waiter_wait(&done.w);
    epoch++;
    coh_barrier_done(&done.global);
    lock_prune(&done.global);
    STAT_ADD(barriers, 1);
    STAT_TIME(barrier_wait_s, now_s() - t0);
}
