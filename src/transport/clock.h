/*
 * clock.h - each node's clock offset to node 0's, measured at start-up for
 * the job timeline (TSR_TRACE, docs/TRACE.md), down the barrier tree.
 */
#ifndef TSR_CLOCK_H
#define TSR_CLOCK_H

/* Registers the handlers (before transport_start). */
void clock_init(void);
/* With tracing on, a node other than 0 asks `parent`, its parent in the
 * barrier tree, for its estimate of node 0's clock a few times and keeps
 * the estimate of the quickest round trip (once the transport runs); then
 * it answers its own children's questions, which wait until it knows. */
void clock_measure(int parent);

#endif
