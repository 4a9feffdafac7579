/*
 * protocol.h - what a coherence protocol provides. Each allocation names
 * one; coherence.c routes every fault, interval end and write notice to the
 * protocol of the page concerned, and locks and barriers carry each
 * protocol's payloads through its hooks (payload.h). A new protocol adds one of these tables
 * and touches nothing else. Hooks marked optional may be NULL.
 */
#ifndef TSR_PROTOCOL_H
#define TSR_PROTOCOL_H

#include <stdint.h>

#include "coherence/payload.h"
#include "tessera.h"

typedef struct tsr_protocol {
    const char *name;
    /* Optional: the protocol whose page machinery keeps this one's pages
     * too (scope: hlrc), which differs only in what its synchronization
     * payloads carry. Its flush and replicated-section hooks, which act on
     * every page of that machinery, run once, as the base's; this table
     * leaves them NULL. */
    const struct tsr_protocol *variant_of;
    /* 1 when its pages serve only the thread that called tsr_init (Munin,
     * whose fault and update paths assume one application thread). */
    int one_thread;
    /* Optional: registers message handlers; once, at tsr_init. */
    void (*init)(void);
    /* Sets up the pages of a new allocation (their homes are already set). */
    void (*map)(uint32_t first, uint32_t n, const tsr_attr *attr);
    /* Optional: forgets an allocation that tsr_free is releasing (every
     * node is past the barrier that begins tsr_free). */
    void (*unmap)(uint32_t first, uint32_t n);
    /* Optional: memory that a node allocates alone (tsr_malloc) may use
     * this protocol from now on. Every node calls it at the same point, as
     * a collective call, but with no barrier: before its next lock or
     * barrier. Those allocations call `map` on their owner only. */
    void (*prepare_local)(void);
    /* Optional, for the pages a node allocates alone (adopt.c). At their
     * owner, on its comm thread: the run of pages that another node
     * adopts with `page` and a word that node needs to set them up (by
     * default: the pages around `page` kept by this protocol, info 0). */
    void (*adopt_run)(uint32_t page, uint32_t *first, uint32_t *n, uint16_t *info);
    /* Optional: at the adopting node, on its comm thread, before the pages
     * count as allocated (their home is set), sets them up from `info`. Returns -1 if info is
     * not a valid word (the answer is rejected). */
    int (*adopt)(uint32_t first, uint32_t n, uint16_t info);
    /* Optional: at the owner, tsr_free_local has given back the whole run
     * [first, first+n). Returns 1 once every node has forgotten the pages:
     * they then belong to no protocol, and a later allocation may give
     * them to any. Without it (or 0), they keep this protocol, and other
     * nodes' copies stay coherent as the memory is reused. */
    int (*free_local)(uint32_t first, uint32_t n);
    /* A fault on one of its pages. Runs in the SIGSEGV handler: must be
     * async-signal-safe (no malloc, no stdio, no mutex). is_write is -1
     * where the hardware does not say. */
    void (*fault)(uint32_t page, int is_write);
    /* Optional: a range check (range.c) found pages first + i * stride
     * (i < n) without the access asked for. It does what faults on each
     * would do, in as few exchanges as it can; without it, `fault` is
     * called page by page. Application thread, outside any signal handler. */
    void (*range)(uint32_t first, uint32_t n, uint32_t stride, int is_write);
    /* Ends the interval: makes this node's writes visible where they are
     * needed. With sent == NULL (a lock release) it returns once its
     * changes are applied at their destinations. At a barrier arrival, sent
     * (one counter per node) is given: the protocol may then send without
     * waiting for acks, adding one to sent[dest] per such message, and the
     * receiver calls coh_counted_arrival() for each; the barrier makes every
     * node wait for the messages counted for it before it leaves. */
    void (*flush)(uint32_t *sent);
    /* Optional: every node has left the barrier, this node has received
     * every counted message of the epoch and applied the departure. */
    void (*barrier_done)(void);
    /* Optional: this node has applied every departure it was given and
     * its application thread resumes (a parked node leaves two barriers
     * at once, barrier.c): no departure of these barriers is still to
     * change a page's state or home here. */
    void (*barrier_left)(void);
    /* Optional: the application thread holds no lock and is about to
     * synchronize (tsr_lock, the end of tsr_unlock, a barrier's entry).
     * The protocol may wait here for an exchange of its own that every
     * node joins at such a point (LRC's collection rounds). `barrier`:
     * at a barrier's entry, whose arrival carries the protocol's payload
     * next. */
    void (*sync_point)(int barrier);

    /* Synchronization payloads, all optional (payload.h frames them).
     * Writers append to `out` (nothing: no frame); readers get their own
     * frame's bytes, once payload_check has accepted it (and every other
     * protocol's frame of the message), and return -1 only on a bug. Hooks of a lock's grantor (grant, merge,
     * peek) run on the comm thread or the application thread, one at a
     * time (under the lock manager's mutex). */
    /* Whether this protocol's frame of a payload of `kind` (payload.h;
     * `lock` for lock payloads, else -1) is one its reader accepts: 0, or
     * -1. Changes nothing. A protocol whose readers accept any bytes has
     * none. */
    int (*payload_check)(payload_kind kind, int lock, const void *p, size_t len);
    /* The acquirer's request: what the grantor must know of it. */
    void (*lock_request)(int lock, pbuf *out);
    /* Whether a request's frame (NULL, 0: none) is one its lock_grant and
     * lock_handoff accept (0), or -1; changes nothing. Checked where the
     * request arrives. */
    int (*lock_request_check)(const void *req, size_t len);
    /* The grant to `node` of a lock free at its manager, built from its
     * request frame (req NULL, len 0: the request had none). */
    int (*lock_grant)(int lock, int node, const void *req, size_t len, pbuf *out);
    /* The grant a releaser sends straight to the next holder (its interval
     * is flushed): the lock's state at the manager is not involved. A
     * protocol with lock_grant has this too. */
    int (*lock_handoff)(int lock, int node, const void *req, size_t len, pbuf *out);
    /* What a releaser with no next holder hands back to the manager... */
    void (*lock_release)(int lock, pbuf *out);
    /* ...and how the manager merges it. */
    int (*lock_merge)(int lock, int node, const void *p, size_t len);
    /* The acquirer applies its grant (every protocol flushed first). */
    int (*lock_acquire)(int lock, const void *p, size_t len);
    /* A node reading without the lock (MSG_LOCK_PEEK): the manager's
     * answer, given when the lock is free, and its installation. */
    void (*lock_peek)(int lock, pbuf *out);
    int (*lock_peeked)(int lock, const void *p, size_t len);
    /* A node's barrier arrival, and the root's merge of it... */
    void (*barrier_arrival)(pbuf *out);
    int (*barrier_merge)(int node, const void *p, size_t len);
    /* ...the departure the root sends every node once all have arrived
     * (the root then forgets the epoch's merges), and its application at
     * each node, once the epoch's counted messages are in. */
    void (*barrier_departure)(pbuf *out);
    int (*barrier_apply)(const void *p, size_t len);
    /* Optional, at the root just before barrier_departure: node `node`,
     * parked for a fork (sync/barrier.c), applies this departure only
     * with the next barrier's, when the fork wakes it, and counts as
     * arrived at that next barrier already. Whatever the departure asks of
     * every node at once (LRC's collection) must wait for that one. */
    void (*barrier_held)(int node);
    /* Optional, comm thread: 1 while this node must pass every barrier
     * arrival it gathers (sync/gather.c) on to the root at once, rather
     * than once its part of the tree is in (LRC: a collection round under
     * way counts a node waiting in a barrier by its arrival at the root).
     * A protocol that turns it on calls coh_sync.arrivals_flush. */
    int (*barrier_eager)(void);

    /* Replicated sequential sections (docs/OMPNOW.md), both optional;
     * without them a protocol cannot have pages while a section runs.
     * begin: after the barrier that opens a section, every node runs the
     * same code, so writes made from now on must reach no other node and
     * must not show in what this node serves others. end: after the
     * barrier that closes it (whose flush leaves them alone), the
     * section's writes are forgotten as writes (every node has made
     * them); pages return to normal. */
    void (*replicate_begin)(void);
    void (*replicate_end)(void);
} tsr_protocol;

extern const tsr_protocol hlrc_protocol;
extern const tsr_protocol munin_protocol;
extern const tsr_protocol lrc_protocol;
extern const tsr_protocol scope_protocol;

/* The protocols, by index: tsr_attr.proto + 1 (0: not allocated). */
#define COH_NPROTO 5
extern const tsr_protocol *const coh_protocols[COH_NPROTO];

/* The protocol that keeps page `page` (NULL: not allocated). */
const tsr_protocol *coh_protocol_of(uint32_t page);
/* Gives page `page` to protocol index `proto` (0: to none), counting the
 * pages each protocol keeps: every change of page_meta.proto goes through
 * here. The application thread changes its own allocations' pages, the
 * comm thread adopted ones (adopt.c). Async-signal-safe. */
void coh_set_proto(uint32_t page, uint8_t proto);
/* 1 if `proto` (a page_meta.proto from the wire) names a protocol. */
int coh_protocol_known(unsigned proto);
/* The current barrier epoch (the number of barriers this node has left). */
uint32_t coh_epoch(void);
/* Multicast in replicated sections (docs/OMPNOW.md): the number of the
 * section this node begins now, the epoch of the barrier that opened it
 * plus one, or 0 when nothing is multicast (TSR_MULTICAST=off, or two
 * nodes: the only other node is the one that asked). */
uint32_t coh_mc_section(void);
/* Whether a multicast of section `s` belongs to this node's section
 * `mine`, or, while this node is in none (mine 0), to the next one, which
 * its barrier may be leaving (coh_epoch about to count it): a multicast
 * of an earlier section is stale. */
int coh_mc_current(uint32_t mine, uint64_t s);
/* The section a request names in the high half of its first argument
 * (MSG_PAGE_REQ, MSG_LRC_DIFF_REQ), if coh_mc_current: the node serving
 * it multicasts for that section even before it has begun the section
 * itself (the requester left the barrier first). Else 0. */
uint32_t coh_mc_asked(uint32_t mine, uint64_t arg0);
/* Multicast offers (docs/OMPNOW.md): a fault on a page this node will
 * multicast hands it to the comm thread as message `type` (page,
 * section, slot) from preallocated messages, or not at all if none is
 * free. Async-signal-safe. The handler first frees the slot:
 * coh_offer_taken returns -1 if the message is no offer of this node. */
struct tsr_msg_hdr;
void coh_offer(int type, uint32_t page, uint32_t section);
int coh_offer_taken(int src, const struct tsr_msg_hdr *h);
/* A message counted in sent[] at the barrier ending `epoch` has been
 * handled here. May be called from the comm thread. */
void coh_counted_arrival(uint32_t epoch);
/* The comm thread brackets a change of a page's access with these; begin
 * returns 0 once tsr_finalize has closed the region (coh_close). */
int coh_comm_access_begin(void);
void coh_comm_access_end(void);

#endif
