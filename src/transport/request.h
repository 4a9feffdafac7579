/*
 * request.h - request ids: how a reply names the request it answers.
 *
 * A request carries an id from this table (in arg1) instead of an address
 * of the requester's; the reply names the id back. The table remembers, per
 * outstanding id, who was asked, which reply type is due and the context
 * to hand to the reply's handler. So a reply that names an id that is not
 * outstanding (never issued, already answered: a duplicate, or stale) or
 * that comes from another node or with another type than the request's is
 * dropped before any handler runs (am_dispatch), and a forged or repeated
 * message can never make a handler write through a pointer it was given.
 *
 * Ids are never reused: each is a slot number plus the slot's own 64-bit
 * generation, one more at each opening. Opening an id is async-signal-safe
 * (preallocated slots, atomics only), since page fetches open them in the
 * fault handler.
 */
#ifndef TSR_REQUEST_H
#define TSR_REQUEST_H

#include <stdint.h>

#include "transport/transport.h"

/* Slots: requests outstanding at once on one node (a release diffs to every
 * home, a Munin manager invalidates every copy; both stay below the node
 * limit, 4096). */
#define REQ_SLOTS 16384

/* Opens a request to `peer`, answered by a message of type `reply_type`
 * that gets `ctx`. Never 0, so that 0 can mean "no reply wanted".
 * Async-signal-safe; stops the node if every slot is taken. */
uint64_t req_open(int peer, int reply_type, void *ctx);

/* Why a reply does not match an outstanding request: NULL if it does. */
const char *req_mismatch(int src, const tsr_msg_hdr *h);

/* The context of the outstanding request `id` (checked by req_mismatch). */
void *req_ctx(uint64_t id);

/* Ends request `id`: a later reply naming it is dropped. */
void req_close(uint64_t id);

/* Requests open now. A thread that waits for every reply it asked for
 * leaves none behind, so a test can tell a leaked slot. */
uint32_t req_outstanding(void);

#endif
