/*
 * heartbeat.h - failure detection on a ring, run by the core's comm thread
 * (core.c): node i beats to the WATCHERS nodes before it and watches the
 * WATCHERS after it, so the beats cost O(1) messages per node per period
 * at any size; a watched peer silent for TSR_HEARTBEAT seconds stops this
 * node, naming it (core_peer_hung), and the core's relay tells the rest.
 */
#ifndef TSR_HEARTBEAT_H
#define TSR_HEARTBEAT_H

/* The longest gap between two looks at the peers' silence. */
#define HEARTBEAT_CHECK_S 0.25

/* Sets up the per-peer counts, the counters and MSG_HEARTBEAT's handler;
 * the peers' silence is measured from now. */
void heartbeat_init(void);
void heartbeat_free(void);
/* Bytes arrived from src. Comm thread. */
void heartbeat_heard(int src);
/* tsr_init's last barrier is passed: every node has started. */
void heartbeat_started(void);
/* The nodes that watch this one, k = 1 .. heartbeat_watchers(). */
int heartbeat_watchers(void);
int heartbeat_watcher(int k);
/* 1 when a tick is due at `now` (heartbeats on, HEARTBEAT_CHECK_S since
 * the last). */
int heartbeat_due(double now);
/* The tick: beats to the watchers if a beat is due and this node is not
 * leaving, then looks at the watched peers' silence. Comm thread. */
void heartbeat_tick(double now, int leaving);

#endif
