/*
 * lrc.h - TreadMarks' homeless lazy release consistency (TSR_PROTO_LRC),
 * as the OpenMP/NOW paper's Section 5.1 describes it: what its files share.
 *
 *   lrc.c           the protocol table, allocations, garbage collection
 *   lrc_gc.c        collection rounds, for programs that reach no barrier
 *   lrc_mem.c       its memory: allocation safe in the fault handler, counted
 *   lrc_interval.c  intervals, vector timestamps, write notices; the lock
 *                   and barrier payloads that carry them
 *   lrc_page.c      page states, faults, diff requests, and the diffs'
 *                   application in happens-before order
 *   lrc_diff.c      this node's lazy diffs: made, served, retired
 *
 * Each node's execution is cut into intervals at every acquire and
 * release; only intervals that wrote something are numbered. A vector
 * timestamp says, per node, the last of its intervals that this node has
 * seen. A write notice (writer, interval, page) invalidates the page here;
 * the page's next access asks each writer named by its notices for the
 * diffs of those intervals and applies them in happens-before order. No
 * page has a home: every node starts from the same zero page and brings
 * its own copy up to date.
 */
#ifndef TSR_LRC_H
#define TSR_LRC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "coherence/payload.h"
#include "transport/transport.h"
#include "transport/wait.h"

/* L_REP: written in a replicated section, no twin, no notice (lrc_page.c). */
enum lrc_state { L_READ = 0, L_WRITE, L_INVALID, L_REP };

/* ---- lrc_mem.c ---------------------------------------------------------- */

/* Async-signal-safe allocation (size classes over mmap, a spin lock),
 * counting the bytes in use and their peak (named counters). Never NULL:
 * exhaustion stops the job. */
void *lrc_alloc(size_t n);
void lrc_free(void *p);
size_t lrc_bytes(void);
/* The bytes lrc_alloc counted for block p. */
size_t lrc_size(const void *p);
void lrc_mem_init(void);

/* ---- lrc_interval.c ----------------------------------------------------- */

/* An interval that wrote pages: its writer, index, vector timestamp and
 * the pages it wrote. Immutable once made. */
typedef struct lrc_interval {
    uint32_t writer, index, npages;
    uint64_t order; /* sum of vt: grows along happens-before */
    uint32_t *vt;   /* cfg.nodes entries */
    uint32_t pages[];
} lrc_interval;

/* Whether LRC memory may exist, the same on every node: from the first
 * collective LRC allocation, or from the point where every node lets
 * tsr_malloc use LRC (protocol.h: prepare_local). Until then LRC adds nothing to locks and barriers. Atomic: the
 * comm thread reads it while a tsr_malloc sets it again. */
extern atomic_int lrc_active;
void lrc_interval_init(void);
/* Ends this node's interval: if it wrote pages, numbers it, write-protects
 * them (their diffs wait: lazy) and records it. */
void lrc_close_interval(void);
/* Records a dirty page of the current interval (fault handler). */
void lrc_dirty(uint32_t page);
/* Garbage collection at a barrier, once every page here is up to date:
 * forgets the intervals the barrier's timestamp covers. */
void lrc_interval_collect(void);

void lrc_lock_request(int lock, pbuf *out);
int lrc_lock_request_check(const void *req, size_t len);
int lrc_payload_check(payload_kind kind, int lock, const void *p, size_t len);
int lrc_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out);
int lrc_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out);
void lrc_lock_release(int lock, pbuf *out);
int lrc_lock_merge(int lock, int node, const void *p, size_t len);
int lrc_lock_acquire(int lock, const void *p, size_t len);
/* The barrier arrival: a GC request flag, this node's timestamp and its
 * own intervals since the last exchange (barrier or collection round);
 * a collection round's join is the same. */
void lrc_barrier_arrival(pbuf *out);
int lrc_barrier_merge(int node, const void *p, size_t len);
void lrc_barrier_departure(pbuf *out);
int lrc_barrier_apply(const void *p, size_t len);
/* The merged arrivals of an exchange (a barrier, or a collection round,
 * at node 0): what any asked for GC, the maximum timestamp, the intervals.
 * merge returns -1, having kept nothing, on a malformed arrival; out
 * writes the departure (the same form as an arrival) and resets. */
typedef struct lrc_gather {
    uint32_t gc, *vt;
    pbuf records;
} lrc_gather;
void lrc_gather_init(lrc_gather *g);
int lrc_gather_merge(lrc_gather *g, const void *p, size_t len);
void lrc_gather_out(lrc_gather *g, pbuf *out);
void lrc_gather_reset(lrc_gather *g);
/* Adds what g gathered to `into` (g is kept). */
void lrc_gather_add(lrc_gather *into, const lrc_gather *g);
/* Node 0: the arrivals of the barrier under way. */
lrc_gather *lrc_barrier_gather(void);
/* Whether the last barrier's departure asked for garbage collection. */
int lrc_gc_requested(void);
/* This node's last interval. */
uint32_t lrc_own_index(void);

/* ---- lrc.c, lrc_gc.c ----------------------------------------------------- */

/* Garbage collection, once this node has applied an exchange that every
 * node takes part in (a barrier departure, or a round's): frees its own
 * diffs of the collection before (every node has finished it), brings every
 * invalid page up to date, and forgets the intervals the exchange covers.
 * Its own diffs of those intervals go at the next collection, or, with
 * others_later (nodes that will collect only at the barrier they wait in),
 * at the one after that barrier's. */
void lrc_collect(int others_later);
/* The memory a collection asked for now could free: all this node holds
 * but the own diffs that the next barrier or round frees anyway, or that
 * no round can free (lrc.c). A node asks for a collection in its barrier
 * arrival past half of TSR_LRC_GC_BYTES, for a round past a third. */
size_t lrc_gc_held(void);
int lrc_gc_due(void);
void lrc_rounds_init(void);
/* A collection happened: the next time this node passes a third of the
 * bound it asks for a round again. */
void lrc_rounds_collected(void);
/* The application thread, holding no lock, is about to synchronize: asks
 * for a collection round if this node passed a third of TSR_LRC_GC_BYTES
 * (not at a barrier, whose arrival asks for a collection there), and
 * takes part in a round that node 0 announced. */
void lrc_sync_point(int barrier);
/* Node 0's comm thread: node's barrier arrival (it takes part in a round
 * under way through it), a node parked through the departure being made
 * (protocol.h: barrier_held), and the barrier's departure, which returns
 * how many were. */
void lrc_round_barrier_arrival(int node);
void lrc_round_barrier_held(int node);
/* 1 from a round's start until this node knows it is over: its barrier
 * arrivals must reach node 0 as they come (protocol.h: barrier_eager). */
int lrc_round_heard(void);
int lrc_round_barrier_departure(void);


/* ---- lrc_diff.c and lrc_page.c ------------------------------------------- */

/* A diff of this node's (own), received for a fault, or multicast and
 * kept (lrc_mcast.c): the writes of `writer`'s intervals first..last. */
typedef struct lrc_diff {
    struct lrc_diff *next;
    uint32_t writer, first, last, len;
    int applied;
    uint8_t bytes[];
} lrc_diff;

/* A write notice not applied yet. */
typedef struct lrc_note {
    struct lrc_note *next;
    uint32_t writer, index;
    uint64_t order;
} lrc_note;

/* A fault's requests: the replies' diffs gather on `got`. The notices
 * say what each writer's reply must hold (lrc_fetch_covers). */
typedef struct lrc_fetch {
    waiter w;
    _Atomic(lrc_diff *) got;
    uint32_t page; /* the page whose diffs are asked for */
    uint32_t nnotes;
    lrc_note *const *notes; /* the fault's, for its wait */
} lrc_fetch;

/* Whether `list` holds, for each of f's notices of `writer`, a diff of
 * that writer's covering the notice's interval. Async-signal-safe. */
int lrc_fetch_covers(const lrc_fetch *f, uint32_t writer, const lrc_diff *list);

/* Reads the h->arg[2] diffs of a MSG_LRC_DIFF_REP or _PUSH from src onto
 * *list: 0, or -1 if malformed, a diff's runs included (what was read
 * stays on the list). */
int lrc_diffs_decode(int src, const tsr_msg_hdr *h, const void *payload, lrc_diff **list);
void lrc_diffs_free(lrc_diff *list);
/* `list` with `rest` after it (either may be NULL). */
lrc_diff *lrc_diffs_join(lrc_diff *list, lrc_diff *rest);

void lrc_diff_init(void);
void lrc_page_init(void);
/* The spin lock over the pending diffs, twins and own diffs (lrc_diff.c),
 * never held across a wait; whether page p's diff is pending (under it);
 * p's pending diff made now, if any (it takes the lock). */
void lrc_diffs_lock(void);
void lrc_diffs_unlock(void);
int lrc_diff_pending(uint32_t p);
void lrc_diff_make_pending(uint32_t p);
void lrc_fault(uint32_t page, int is_write);
/* A notice of another node's interval for this page: invalidates it. */
void lrc_notice(uint32_t page, const lrc_interval *iv);
/* This node closed interval `index`, which wrote `page`: its diff is made
 * only when needed (lazy). */
void lrc_written(uint32_t page, uint32_t index);
/* Brings every page invalidated since the last call up to date (GC). */
void lrc_validate_all(void);
/* A collection is under way: every other node is about to validate the
 * pages this node wrote, so their pending diffs are made now, each
 * holding only intervals the collection covers (lrc.c, lrc_collect). */
void lrc_diffs_make_all(void);
/* A collection covered this node's intervals up to `index` (0: it keeps
 * them for a later one): its diffs of them stay while other nodes may
 * still ask for them, until lrc_diffs_free_retired. */
void lrc_diffs_retire(uint32_t index);
/* Every node has finished the collection (GC: at the next barrier, or the
 * next round): frees the diffs retired by it. */
void lrc_diffs_free_retired(void);
/* The bytes of own diffs no collection asked for now could free: those
 * retired (made since included), or every one after a round that some
 * node took part in through a barrier arrival. */
size_t lrc_diffs_retiring(void);
/* Forgets pages [first, first+n): they are being freed or mapped anew. */
void lrc_forget(uint32_t first, uint32_t n);
/* Replicated sections (tsr_protocol.replicate_begin/end). */
void lrc_replicate_begin(void);
void lrc_replicate_end(void);

/* ---- lrc_mcast.c: diffs multicast in replicated sections ---------------- */

void lrc_mc_init(void);
void lrc_mc_begin(void);
void lrc_mc_end(void);
/* This node's section while multicast is on, else 0; each diff request
 * names it (MSG_LRC_DIFF_REQ), as in hlrc_mc_section. */
uint32_t lrc_mc_section(void);
/* Writer (comm thread), having answered `requester`: sends the same reply
 * to every other node, once per page and section (a request from a node
 * in this node's section or the next, coh_mc_asked). */
void lrc_mc_push(int requester, const tsr_msg_hdr *h, uint32_t count, const void *payload,
                 size_t len);
/* A fault on an L_READ page: if this node watched it in the section, its
 * diffs are offered to every node (lrc_mcast.c). Async-signal-safe. */
void lrc_mc_offered(uint32_t p);
/* lrc_diff.c: appends to out this node's diffs of page p that cover any
 * of its intervals lo..hi (the pending one made first), as a diff reply
 * carries them; returns how many. Comm thread. */
uint32_t lrc_diffs_put(uint32_t p, uint32_t lo, uint32_t hi, pbuf *out);
/* Calls fn for each page with a pending diff, and its intervals, under
 * the diffs' lock (fn must not take it). */
void lrc_each_pending(void (*fn)(uint32_t p, uint32_t lo, uint32_t hi));
/* The fault: if the kept diffs of `writer` for page p hold every one of
 * its notices in f, moves them onto f->got and returns 1 (no request
 * needed). Async-signal-safe. */
int lrc_mc_take(uint32_t p, uint32_t writer, lrc_fetch *f);

#endif
