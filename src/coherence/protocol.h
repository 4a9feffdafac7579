/*
 * protocol.h - what a coherence protocol provides. Each allocation names
 * one; coherence.c routes every fault, interval end and write notice to the
 * protocol of the page concerned. A new protocol (Munin's, TreadMarks')
 * adds one of these tables and touches nothing else.
 */
#ifndef TSR_PROTOCOL_H
#define TSR_PROTOCOL_H

#include <stdint.h>

#include "tessera.h"

typedef struct tsr_protocol {
    const char *name;
    /* Registers message handlers; once, at tsr_init. */
    void (*init)(void);
    /* Sets up the pages of a new allocation (their homes are already set). */
    void (*map)(uint32_t first, uint32_t n);
    /* A fault on one of its pages. Runs in the SIGSEGV handler: must be
     * async-signal-safe (no malloc, no stdio, no mutex). */
    void (*fault)(uint32_t page, int is_write);
    /* Ends the interval: makes this node's writes visible at their homes and
     * reports a write notice for each (coh_note). */
    void (*flush)(void);
    /* A write notice reached this node at an acquire or a barrier. */
    void (*invalidate)(uint32_t page, uint32_t version);
} tsr_protocol;

extern const tsr_protocol hlrc_protocol;

/* Records a notice this node produced or learned (coherence.c). */
void coh_note(uint32_t page, uint32_t version);

#endif
