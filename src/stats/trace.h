/*
 * trace.h - the job timeline (TSR_TRACE) and the data the sharing profile
 * is computed from (TSR_PROFILE): docs/TRACE.md.
 *
 * Each thread records fixed-size events into a buffer of its own, with no
 * lock and no system call: the buffers are slices of one file mapping per
 * node (the node's *part*, FILE.partN), so that what a node recorded is in
 * the file however it ends, killed by SIGKILL included. tsrun merges the
 * parts into one Chrome trace event JSON file once the nodes have exited
 * (stats/trace_json.c), and prints the profile (stats/profile.c).
 *
 * A hook is one line: with tracing off it is a load of trace_on and a
 * branch the compiler marks unlikely. trace_begin returns 0 then, and
 * TRACE_SPAN does nothing for a start of 0. Recording is
 * async-signal-safe: the fault handler records its own spans.
 */
#ifndef TSR_TRACE_H
#define TSR_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* What an event is. The fields it uses: `page` (or lock, epoch, section,
 * message type: a), `b` (a count or a size), `node` (a peer). */
enum {
    EV_FAULT_READ = 1, /* a: page; dur: the fault's whole handling */
    EV_FAULT_WRITE,    /* a: page */
    EV_FETCH,          /* a: first page, b: pages fetched, node: their home */
    EV_DIFF_MAKE,      /* a: page, b: diff bytes */
    EV_DIFF_APPLY,     /* a: page, b: diff bytes */
    EV_INVALIDATE,     /* a: page (instant) */
    EV_LOCK_WAIT,      /* a: lock, node: the node whose grant ended the wait */
    EV_LOCK_HOLD,      /* a: lock */
    EV_BARRIER,        /* a: the barrier's epoch; its start is the arrival */
    EV_FORK,           /* from tsr_fork (or a fork tsr_serve took) to its join */
    EV_REPLICATED,     /* a replicated sequential section */
    EV_RANGE,          /* a: first page, b: bytes checked */
    EV_SEND,           /* node: destination, a: message type, b: stamp (instant) */
    EV_RECV,           /* node: source, a: type, b: the sender's stamp; dur: handler */
    EV_ALLOC,          /* a: first page, b: bytes, dur: call site's offset in
                        * module `node` of the part's module table (instant) */
    EV_KINDS
};

/* One event, as the part file holds it. */
typedef struct trace_event {
    uint64_t ts;  /* this node's CLOCK_REALTIME, ns */
    uint64_t dur; /* ns; 0 for an instant */
    uint16_t kind;
    uint16_t node;
    uint32_t a;
    uint64_t b;
} trace_event;

/* The part file: this header, then TRACE_SLOTS slot headers, then each
 * slot's events from TRACE_DATA on, slot_bytes apart. */
#define TRACE_MAGIC "TSRTRC1"
#define TRACE_SLOTS 64
#define TRACE_MODULES 8
#define TRACE_DATA 65536

typedef struct trace_head {
    char magic[8];
    /* What a reader of another build's parts checks first, and refuses. */
    uint32_t kinds, event_bytes, head_bytes, pad; /* EV_KINDS, sizeof(trace_event), sizeof(trace_head) */
    uint32_t node, nodes;
    uint64_t slot_bytes;
    int64_t offset_ns;  /* add to this node's clock to read node 0's */
    uint64_t offset_rtt_ns; /* the round trip the offset was measured in; 0: not measured */
    uint32_t pid, nmodules;
    uint32_t untraced_threads;   /* threads past TRACE_SLOTS, which record nothing */
    char modules[TRACE_MODULES][256]; /* files whose call sites EV_ALLOC names */
} trace_head;

typedef struct trace_slot {
    uint32_t claimed, tid;
    char name[16];
    uint64_t count;   /* events written (a release store after each) */
    uint64_t dropped; /* events lost to a full buffer */
} trace_slot;

extern int trace_on;

#define TRACE_LIKELY_OFF(x) __builtin_expect(!!(x), 0)

uint64_t trace_now(void);
void trace_record(int kind, uint64_t t0, int node, uint32_t a, uint64_t b);

/* The start of a span, or 0 with tracing off. */
static inline uint64_t trace_begin(void) { return TRACE_LIKELY_OFF(trace_on) ? trace_now() : 0; }

/* Ends the span begun at t0 (nothing if t0 is 0). */
#define TRACE_SPAN(t0, kind, node, a, b)                        \
    do {                                                        \
        if (TRACE_LIKELY_OFF(t0))                               \
            trace_record((kind), (t0), (node), (a), (b));       \
    } while (0)

/* An instant event. */
#define TRACE_MARK(kind, node, a, b)                            \
    do {                                                        \
        if (TRACE_LIKELY_OFF(trace_on))                         \
            trace_record((kind), 0, (node), (a), (b));          \
    } while (0)

/* Lock `id` taken (on 1) or given back (0): a hold span, for the
 * program's locks (below TRACE_LOCKS). */
#define TRACE_LOCKS 16384 /* TSR_MAX_LOCKS (lock.c checks) */
void trace_hold_at(int id, int on);
static inline void trace_hold(int id, int on)
{
    if (TRACE_LIKELY_OFF(trace_on))
        trace_hold_at(id, on);
}

/* Opens this node's part if TSR_TRACE or TSR_PROFILE asks for one (at
 * tsr_init, after the configuration). */
void trace_init(void);
/* The calling thread's name on its track (at most 15 characters). */
void trace_thread_name(const char *name);
/* A message's stamp with tracing on: the clock, but never the same value
 * twice on one node, so that (sender, stamp) names one message. */
uint64_t trace_stamp(void);
/* The clock offset to node 0 measured at start-up (transport/clock.c). */
void trace_set_offset(int64_t offset_ns, uint64_t rtt_ns);
/* An allocation of `bytes` at page `page`, made by the call returning to `ra`. */
void trace_alloc(uint32_t page, size_t bytes, const void *ra);

#endif
