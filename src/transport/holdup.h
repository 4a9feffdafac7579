/*
 * holdup.h - the holdup statistics: how long messages from peers wait
 * between their sending and their handler (holdup.c).
 */
#ifndef TSR_HOLDUP_H
#define TSR_HOLDUP_H

#include <stdint.h>

/* This node's clock for a message's stamp (CLOCK_REALTIME, ns).
 * Async-signal-safe. */
uint64_t holdup_stamp(void);
/* Counts the holdup of a message from a peer stamped `stamp`.
 * Async-signal-safe. */
void holdup_note(uint64_t stamp);
/* Registers the counters (at transport_start). */
void holdup_init(void);

#endif
