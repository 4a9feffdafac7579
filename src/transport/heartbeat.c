/*
 * heartbeat.c - failure detection on a ring (heartbeat.h).
 *
 * Heartbeats come from the comm thread, not the application's, so a node
 * that computes for minutes without a message still beats; a stopped or
 * livelocked runtime does not. Nodes watch each other on a ring, so that
 * the beats cost O(1) messages per node per period at any size rather
 * than O(N) (4 x 511 a second per node at 512 nodes starved the comm
 * threads of a shared machine until healthy nodes were declared silent).
 * Any set of failed nodes, short of all, holds one whose predecessor
 * lives and watches it, so some failure is always seen, and its watcher
 * relays it to all.
 */
#include "transport/heartbeat.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats/stats.h"
#include "transport/core.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

/* Heartbeats per TSR_HEARTBEAT period. */
#define BEATS_PER_PERIOD 4
/* Two watchers rather than one, so that a watcher slowed down itself (a
 * loaded machine) does not alone decide how soon a stopped node is seen. */
#define WATCHERS 2

STATS_COUNTER(heartbeats_sent, "heartbeats sent (to the nodes that watch this one)");
STATS_COUNTER(heartbeat_rounds, "rounds of heartbeats sent, BEATS_PER_PERIOD per TSR_HEARTBEAT");

/* Per peer: times bytes arrived from it (the comm thread's alone); what
 * the last tick saw of that count, and when it last changed. */
typedef struct peer_life {
    uint64_t arrivals, seen;
    double heard;
} peer_life;

static peer_life *life;
static double last_tick, last_beat;

/* Its arrival was counted where the transport read it (core_heard), and
 * dispatch checked that it carries nothing: there is nothing left to do. */
static void on_heartbeat(int src, const tsr_msg_hdr *h, void *payload) {}

void heartbeat_init(void)
{
    life = calloc((size_t)cfg.nodes, sizeof *life);
    if (!life)
        log_die("cannot set up the heartbeats: out of memory");
    last_tick = last_beat = now_s();
    for (int j = 0; j < cfg.nodes; j++)
        life[j].heard = last_tick;
    stats_register(&heartbeats_sent);
    stats_register(&heartbeat_rounds);
    am_register(MSG_HEARTBEAT, on_heartbeat);
}

void heartbeat_free(void)
{
    free(life);
    life = NULL;
}

void heartbeat_heard(int src) { life[src].arrivals++; }

/* The nodes this one watches or beats to: `k` places after it on the ring
 * (before it for k < 0), as many as there are other nodes. */
static int ring_degree(void) { return cfg.nodes - 1 < WATCHERS ? cfg.nodes - 1 : WATCHERS; }

static int ring_peer(int k) { return (int)(((int64_t)cfg.node + k + cfg.nodes) % cfg.nodes); }

int heartbeat_watchers(void) { return ring_degree(); }

int heartbeat_watcher(int k) { return ring_peer(-k); }

/* A watched peer that has not yet spoken may still be starting: at 512
 * nodes on two cores, the mesh's last connections end start-up seconds
 * apart at neighbours (node 271's ran, node 272 still connected), and a
 * node then failed its neighbour in tsr_init. Until its first word, and
 * only while this node is in tsr_init, a peer has the start-up's own
 * bound, TSR_CONNECT_TIMEOUT. Once tsr_init's barrier is passed every
 * node has started, and a peer stopped before its first beat reached its
 * watcher is as silent as any other. */
static _Atomic int started;
static int started_seen;

void heartbeat_started(void) { atomic_store(&started, 1); }

static double silence_allowed(const peer_life *p)
{
    return p->arrivals || started_seen || cfg.connect_timeout_s < cfg.heartbeat_s
               ? cfg.heartbeat_s
               : cfg.connect_timeout_s;
}

/* Looks at each watched peer's count of arrivals; one that has not moved
 * for TSR_HEARTBEAT seconds belongs to a node that stopped responding. A
 * tick a whole period late (this node itself was stopped, or the whole
 * machine suspended) first forgives everyone: the silence may be ours. A
 * shorter delay needs no forgiving: progress() has just read whatever the
 * peers sent meanwhile. */
static void check_silence(double now)
{
    int forgive = now - last_tick > cfg.heartbeat_s;
    if (!started_seen && atomic_load(&started)) /* the peers' periods start now */
        forgive = started_seen = 1;
    for (int k = 1; k <= ring_degree(); k++) {
        int j = ring_peer(k);
        peer_life *p = &life[j];
        if (core_peer_left(j))
            continue;
        if (p->arrivals != p->seen || forgive) {
            p->seen = p->arrivals;
            p->heard = now;
        } else if (now - p->heard > silence_allowed(p)) {
            char cause[200];
            if (p->arrivals)
                snprintf(cause, sizeof cause, "stopped responding: nothing received from it for "
                         "%u s (TSR_HEARTBEAT; stopped, hung, starved of CPU or cut off)",
                         cfg.heartbeat_s);
            else
                snprintf(cause, sizeof cause, "stopped responding: nothing ever received from it, "
                         "%.0f s into its start (TSR_CONNECT_TIMEOUT; stopped, hung, starved of "
                         "CPU or cut off)", cfg.connect_timeout_s);
            core_peer_hung(j, cause);
        }
    }
}

static void beat(void)
{
    for (int k = 1; k <= ring_degree(); k++) {
        int j = ring_peer(-k);
        if (!core_peer_left(j)) {
            am_send(j, MSG_HEARTBEAT, 0, 0, 0, NULL, 0);
            COUNTER_ADD(heartbeats_sent, 1);
        }
    }
    COUNTER_ADD(heartbeat_rounds, 1);
}

int heartbeat_due(double now)
{
    return cfg.heartbeat_s && cfg.nodes > 1 && now - last_tick >= HEARTBEAT_CHECK_S;
}

void heartbeat_tick(double now, int leaving)
{
    if (!leaving && now - last_beat >= (double)cfg.heartbeat_s / BEATS_PER_PERIOD) {
        beat();
        last_beat = now;
    }
    check_silence(now);
    last_tick = now;
}
