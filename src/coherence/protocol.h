/*
 * protocol.h - what a coherence protocol provides. Each allocation names
 * one; coherence.c routes every fault, interval end and write notice to the
 * protocol of the page concerned. A new protocol adds one of these tables
 * and touches nothing else. Hooks marked optional may be NULL.
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
    void (*map)(uint32_t first, uint32_t n, const tsr_attr *attr);
    /* Optional: forgets an allocation that tsr_free is releasing (every
     * node is past the barrier that begins tsr_free). */
    void (*unmap)(uint32_t first, uint32_t n);
    /* A fault on one of its pages. Runs in the SIGSEGV handler: must be
     * async-signal-safe (no malloc, no stdio, no mutex). is_write is -1
     * where the hardware does not say. */
    void (*fault)(uint32_t page, int is_write);
    /* Ends the interval: makes this node's writes visible where they are
     * needed and reports a write notice for each (coh_note) if the protocol
     * uses notices. With sent == NULL (a lock release) it returns once its
     * changes are applied at their destinations. At a barrier arrival, sent
     * (one counter per node) is given: the protocol may then send without
     * waiting for acks, adding one to sent[dest] per such message, and the
     * receiver calls coh_counted_arrival() for each; the barrier makes every
     * node wait for the messages counted for it before it leaves. */
    void (*flush)(uint32_t *sent);
    /* Optional: a write notice reached this node at an acquire or a barrier. */
    void (*invalidate)(uint32_t page, uint32_t version);
    /* Optional: every node has left the barrier and this node has received
     * every counted message of the epoch. */
    void (*barrier_done)(void);
    /* Optional, data bound to a lock: the bytes this node gives up as it
     * releases `lock`, copied to out (NULL: just their length)... */
    size_t (*lock_data)(int lock, void *out);
    /* ...and their installation at the next holder (writable), or at a node
     * reading them without the lock (read-only). */
    void (*lock_install)(int lock, const void *data, size_t len, int writable);
} tsr_protocol;

extern const tsr_protocol hlrc_protocol;
extern const tsr_protocol munin_protocol;

/* The protocol that keeps page `page` (NULL: not allocated). */
const tsr_protocol *coh_protocol_of(uint32_t page);
/* 1 if `proto` (a page_meta.proto from the wire) names a protocol. */
int coh_protocol_known(unsigned proto);
/* Records a notice this node produced or learned (coherence.c). */
void coh_note(uint32_t page, uint32_t version);
/* The current barrier epoch (the number of barriers this node has left). */
uint32_t coh_epoch(void);
/* A message counted in sent[] at the barrier ending `epoch` has been
 * handled here. May be called from the comm thread. */
void coh_counted_arrival(uint32_t epoch);

#endif
