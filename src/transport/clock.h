/*
 * clock.h - each node's clock offset to node 0's, measured at start-up for
 * the job timeline (TSR_TRACE, docs/TRACE.md).
 */
#ifndef TSR_CLOCK_H
#define TSR_CLOCK_H

/* Registers the handlers (before transport_start). */
void clock_init(void);
/* With tracing on, a node other than 0 asks node 0 for its clock a few
 * times and keeps the estimate of the quickest round trip (once the
 * transport runs). */
void clock_measure(void);

#endif
