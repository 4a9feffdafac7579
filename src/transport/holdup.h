/*
 * holdup.h - the holdup statistics: how long messages from peers wait
 * between their sending and their handler (holdup.c).
 */
#ifndef TSR_HOLDUP_H
#define TSR_HOLDUP_H

#include <stdint.h>

/* A message's stamp: this node's clock (CLOCK_REALTIME, ns) for one
 * message in HOLDUP_SAMPLE, at random, and 0, not measured, for the rest.
 * Async-signal-safe. */
uint64_t holdup_stamp(void);
/* Counts the holdup of a message from a peer stamped `stamp` (nothing for
 * 0). Async-signal-safe. */
void holdup_note(uint64_t stamp);
/* Registers the counters (at transport_start). */
void holdup_init(void);

#endif
