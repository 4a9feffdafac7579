/*
 * lrc_gc.c - garbage collection rounds of the lazy protocol (lrc.h), for
 * programs that reach no barrier in time.
 *
 * TreadMarks collects at barriers only: every node must have seen every
 * interval to be forgotten and brought its pages up to date, and a barrier
 * is where all nodes meet. A program that synchronizes with locks alone
 * would grow without bound. So a node that passes a third of
 * TSR_LRC_GC_BYTES at a lock operation asks node 0 for a round
 * (MSG_LRC_GC_ASK; a third, since the grant it takes next can bring the
 * last holder's third), and node 0 announces one
 * (MSG_LRC_GC_START). Each node joins at its next synchronization holding
 * no lock (tsr_lock, the end of tsr_unlock, a barrier's entry:
 * coh_sync_point): it sends what a barrier arrival carries
 * (MSG_LRC_GC_JOIN) and waits. Holding no lock, a waiting node keeps nobody
 * from reaching such a point: a node waiting for a lock gets it from a
 * holder that will release it.
 *
 * A node already waiting in a barrier cannot join, but its arrival (which
 * node 0 holds, as the barrier's manager) says the same, and it changes
 * nothing until the barrier ends: it takes part through it. Once every
 * node has joined or arrived, node 0 sends the joined ones the merge of
 * both (MSG_LRC_GC_GO), tells the arrived ones the round is over
 * (MSG_LRC_GC_END), and adds the joins to the barrier's departure, asking
 * it to collect. The joined nodes apply the merge and collect as at a
 * barrier; the arrived ones collect at the barrier's end, so the joined
 * ones keep their own diffs for them one collection longer. No round can
 * free those diffs before that barrier ends, so they do not count toward
 * asking for the next (lrc_diffs_retiring): counted, each round asked for
 * the next at once, 2,500 rounds in a row while one node waited in a
 * barrier. Until it leaves, the others' memory can pass the bound.
 *
 * A round is invisible to the program: a join point is a synchronization
 * already, and the round only adds ordering. It costs a wait for the
 * slowest node, as a barrier does. A node past a third of the bound waits
 * at its join point for the round to be announced, so its memory stops
 * growing however late the round starts. A barrier's entry asks for no
 * round: the arrival asks for a collection at that barrier (past half, as
 * TreadMarks does), where a round would wait for the nodes already in it
 * and collect twice.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coherence/coherence.h"
#include "coherence/lrc/lrc.h"
#include "stats/stats.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(lrc_gc_rounds, "LRC: garbage collections in rounds between barriers");

#define ROOT 0

/* Node 0's comm thread: the last round, whether it is under way, the
 * nodes that joined it and their joins merged, and the nodes arrived at
 * the barrier under way. */
static struct {
    uint32_t round, accounted;
    int under_way;
    uint8_t *joined, *arrived, *held;
    lrc_gather joins;
} root;

/* Every node: the round announced and not over (0: none), the round the
 * application thread waits in (0: none), the last round it finished
 * (joined, or took part in through a barrier), and how it ended. */
static _Atomic uint32_t announced, joining, finished;
static struct {
    waiter w;
    void *go;
    size_t len;
    int proxies; /* nodes that took part through a barrier arrival */
} outcome;
static int asked; /* application thread: asked since the last collection */

void lrc_rounds_collected(void) { asked = 0; }

/* Rounds are numbered in order: one not above the last finished is over. */
static void heard(uint32_t r)
{
    if (r > atomic_load(&finished))
        atomic_store(&announced, r);
}

/* ---- Node 0 ------------------------------------------------------------------ */

static int not_root(int src, const tsr_msg_hdr *h)
{
    if (cfg.node == ROOT)
        return 0;
    am_reject(src, h, "LRC collection rounds are run by node %d", ROOT);
    return 1;
}

/* Every node joined or arrived: the joined get the merge of all (joins
 * and arrivals), the arrived are told it is over, and the barrier's
 * departure gets the joins and a request to collect. */
static void finish(void)
{
    lrc_gather *barrier = lrc_barrier_gather();
    if (root.accounted < (uint32_t)cfg.nodes)
        return;
    root.under_way = 0;
    uint32_t proxies = 0;
    for (int i = 0; i < cfg.nodes; i++)
        proxies += !root.joined[i];
    lrc_gather all;
    lrc_gather_init(&all);
    lrc_gather_add(&all, &root.joins);
    lrc_gather_add(&all, barrier);
    pbuf out = {0};
    lrc_gather_out(&all, &out);
    for (int i = 0; i < cfg.nodes; i++)
        if (root.joined[i])
            am_send(i, MSG_LRC_GC_GO, root.round, proxies, 0, out.p, out.len);
        else
            am_send(i, MSG_LRC_GC_END, root.round, 0, 0, NULL, 0);
    pbuf_free(&out);
    pbuf_free(&all.records);
    lrc_free(all.vt);
    if (proxies) {
        lrc_gather_add(barrier, &root.joins);
        barrier->gc = 1;
    }
    lrc_gather_reset(&root.joins);
}

static void on_ask(int src, const tsr_msg_hdr *h, void *payload)
{
    if (not_root(src, h) || root.under_way)
        return; /* the round under way collects already */
    root.round++;
    root.under_way = 1;
    root.accounted = 0;
    for (int i = 0; i < cfg.nodes; i++) {
        root.joined[i] = 0;
        root.accounted += root.arrived[i];
    }
    heard(root.round); /* node 0's own, at once */
    for (int i = 0; i < cfg.nodes; i++)
        am_send(i, MSG_LRC_GC_START, root.round, 0, 0, NULL, 0);
    finish();
}

static void on_join(int src, const tsr_msg_hdr *h, void *payload)
{
    if (not_root(src, h))
        return;
    if (!root.under_way || h->arg[0] != root.round || root.joined[src] || root.arrived[src]) {
        am_reject(src, h, "node %d may not join LRC collection round %llu", src,
                  (unsigned long long)h->arg[0]);
        return;
    }
    if (lrc_gather_merge(&root.joins, payload, h->len)) {
        am_reject(src, h, "malformed intervals");
        return;
    }
    root.joined[src] = 1;
    root.accounted++;
    finish();
}

void lrc_round_barrier_arrival(int node)
{
    root.arrived[node] = 1;
    if (!root.under_way)
        return;
    root.accounted++;
    finish();
}

void lrc_round_barrier_held(int node) { root.held[node] = 1; }

/* The nodes parked through the departure are arrived at the next
 * barrier: they stand for themselves in a round that starts before it. */
int lrc_round_barrier_departure(void)
{
    int held = 0;
    for (int i = 0; i < cfg.nodes; i++) {
        root.arrived[i] = root.held[i];
        held += root.held[i];
    }
    memset(root.held, 0, (size_t)cfg.nodes);
    return held;
}

/* ---- Every node ----------------------------------------------------------- */

static int not_from_root(int src, const tsr_msg_hdr *h)
{
    if (src == ROOT && h->arg[0])
        return 0;
    am_reject(src, h, "only node %d runs LRC collection rounds (numbered from 1)", ROOT);
    return 1;
}

/* Arrivals gathered below node 0 (sync/gather.c) go on at once: the
 * round counts them there, and the nodes holding them may wait in it. */
static void on_start(int src, const tsr_msg_hdr *h, void *payload)
{
    if (not_from_root(src, h))
        return;
    heard((uint32_t)h->arg[0]);
    coh_sync.arrivals_flush();
}

int lrc_round_heard(void) { return atomic_load(&announced) != 0; }

/* Round r is over without this node, which is in the barrier that stood
 * for it: it must not join r once the barrier ends. */
static void on_end(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t r = (uint32_t)h->arg[0];
    if (not_from_root(src, h))
        return;
    if (atomic_load(&joining) == r) {
        am_reject(src, h, "this node joined LRC collection round %u", r);
        return;
    }
    atomic_store(&finished, r);
    atomic_compare_exchange_strong(&announced, &r, 0);
}

static void on_go(int src, const tsr_msg_hdr *h, void *payload)
{
    if (not_from_root(src, h))
        return;
    /* Checked whole here, as a barrier's departure is: join() applies it
     * on the application thread, where it can no longer be refused. */
    if (atomic_load(&joining) != h->arg[0] || h->arg[1] >= (uint64_t)cfg.nodes ||
        lrc_payload_check(PL_DEPARTURE, -1, payload, h->len)) {
        am_reject(src, h, "not a merge of the LRC collection round joined here");
        return;
    }
    if (!(outcome.go = malloc(h->len + 1)))
        log_die_status(1, "out of memory (LRC collection round)");
    memcpy(outcome.go, payload, h->len);
    outcome.len = h->len;
    outcome.proxies = (int)h->arg[1];
    waiter_done(&outcome.w);
}

/* Takes part in round r: ends the interval, sends what a barrier arrival
 * carries, waits for the merge, applies it and collects. */
static void join(uint32_t r)
{
    lrc_close_interval();
    waiter_init(&outcome.w, 1);
    atomic_store(&joining, r);
    pbuf out = {0};
    lrc_barrier_arrival(&out);
    am_send(ROOT, MSG_LRC_GC_JOIN, r, 0, 0, out.p, out.len);
    pbuf_free(&out);
    waiter_wait(&outcome.w);
    atomic_store(&finished, r);
    atomic_store(&joining, 0);
    /* Only round r is over: the next may be announced already. */
    atomic_compare_exchange_strong(&announced, &r, 0);
    if (lrc_barrier_apply(outcome.go, outcome.len))
        log_die_status(1, "LRC: the protocol refused a collection round's merge checked on "
                       "arrival");
    free(outcome.go);
    lrc_collect(outcome.proxies > 0);
    COUNTER_ADD(lrc_gc_rounds, 1);
}

/* Past a third of the bound, a node that asked waits here, holding no
 * lock, for the round: its own ask starts one, or one under way that it
 * has not joined yet was announced already (node 0 drops an ask only
 * then). Meanwhile it makes no interval and receives no notice, so its
 * memory stops growing however late node 0's comm thread takes the ask,
 * and the rest is left for what the round's merge brings in (the
 * intervals of the others that this node has not seen) before it
 * collects. */
static uint32_t round_announced(void)
{
    const struct timespec pause = {0, 20 * 1000};
    uint32_t r = atomic_load(&announced);
    while (!r && asked && lrc_bytes() > cfg.lrc_gc_bytes / 3) {
        nanosleep(&pause, NULL);
        r = atomic_load(&announced);
    }
    return r;
}

void lrc_sync_point(int barrier)
{
    if (!lrc_active)
        return;
    if (!barrier && !asked && lrc_gc_held() > cfg.lrc_gc_bytes / 3) {
        asked = 1;
        am_send(ROOT, MSG_LRC_GC_ASK, 0, 0, 0, NULL, 0);
    }
    uint32_t r = round_announced();
    if (r)
        join(r);
}

void lrc_rounds_init(void)
{
    root.joined = calloc((size_t)cfg.nodes, 1);
    root.arrived = calloc((size_t)cfg.nodes, 1);
    root.held = calloc((size_t)cfg.nodes, 1);
    if (!root.joined || !root.arrived || !root.held)
        log_die("out of memory (LRC collection rounds)");
    lrc_gather_init(&root.joins);
    stats_register(&lrc_gc_rounds);
    am_register(MSG_LRC_GC_ASK, on_ask);
    am_register(MSG_LRC_GC_START, on_start);
    am_register(MSG_LRC_GC_JOIN, on_join);
    am_register(MSG_LRC_GC_GO, on_go);
    am_register(MSG_LRC_GC_END, on_end);
}
