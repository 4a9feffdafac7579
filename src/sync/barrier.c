/*
 * barrier.c - the barrier: the arrivals climb a tree to the root (node 0,
 * gather.c), which sends the departure once all have arrived down the
 * same tree (tree.h): each node that gets it passes it to its children,
 * before it leaves, with the counts of its children's parts, so that no
 * node sends or reads more than TREE_DEGREE barrier messages at any size
 * (N - 1 at node 0 cost it seconds a barrier at 512 nodes on two cores),
 * in log N rounds each way.
 *
 * The root knows who has arrived in the current epoch (a bitmap), and a
 * node knows which epoch it waits to leave: a second arrival, one for
 * another epoch, a departure not from the root or not awaited is rejected
 * (am_reject) and changes nothing.
 *
 * Fork/join (api/fork.c) passes the same barriers in fewer messages, as
 * TreadMarks' Tmk_fork and Tmk_join do (OpenMP/NOW paper, Section 2.2.1).
 * A node other than the root may *park* (barrier_park): its arrival says
 * that it waits, past this barrier, for the root's next *note* (a fork, or
 * the end of forks: barrier_noted). So a join is one message from each
 * other node, its parked arrival; the root leaves that barrier as usual
 * and keeps its departure for the parked nodes. They count as arrived at
 * the next barrier too, having done nothing in between (their application
 * thread waits; nothing of theirs is to release), and only the root's
 * arrival with a note may end it: each parked node then gets one MSG_FORK
 * with the note and the departures of both barriers, and applies them as
 * if it had passed each. A fork is thus one message to each other node,
 * carrying what the protocols put in a departure (write notices, vector
 * timestamps and intervals). tsr_serve's first arrival parks at the
 * barrier of the first fork, which its note ends at once.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "sync/collective.h"
#include "sync/gather.h"
#include "sync/stall.h"
#include "sync/sync.h"
#include "sync/tree.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/guard.h"
#include "util/log.h"

#define BARRIER_MANAGER 0

STATS_COUNTER(departures_sent, "barrier departures sent to other nodes (MSG_BARRIER_DONE)");

/* Manager side (node 0's comm thread only). expect[j]: messages sent to
 * node j without acks during the epoch (coh_barrier_release), which j must
 * receive before it leaves. */
static uint32_t *expect;
static unsigned char *arrived_from; /* in this epoch, by node */
static int arrived;
static uint64_t mgr_epoch;
/* The epoch's first arrival: every other one must make the same call. */
static coll_sig first_sig;
static int first_node = -1;
/* Fork/join. parked_at[j]: the epoch node j parked at, + 1 (0: not
 * parked); held: the departure of the epoch before, kept for nodes parked
 * at it, with held_expect[j]; note: the root's for this epoch. The root's
 * application thread stages its note before its own arrival. */
static uint64_t *parked_at;
static int nparked;
static pbuf held;
static uint32_t *held_expect;
static struct {
    int set;
    uint64_t v[3];
} note;
static uint64_t staged[3];
static _Atomic int staged_set;

/* Node side. `awaited` is the epoch whose departure this node waits for
 * (NO_EPOCH: none), taken back by the departure. */
#define NO_EPOCH UINT64_MAX
static uint64_t epoch;
static struct {
    waiter w;
    void *departure; /* the protocols' frames */
    size_t len;
    uint32_t expected; /* counted messages to receive before leaving */
    _Atomic uint64_t awaited;
    _Atomic int parked; /* awaits a MSG_FORK rather than MSG_BARRIER_DONE */
    uint32_t count;     /* MSG_FORK: the departures in `departure`, after the note */
} done = {.awaited = NO_EPOCH};
static int (*note_ok)(const uint64_t note[3]);

/* Every arrival of an epoch must make its first arrival's call; a node that
 * does not has misused the API, and the job stops naming both calls.
 * tsr_serve's arrival matches whatever node 0 does next (a fork, or
 * tsr_finalize), which the note says. */
static void check_signature(int src, const coll_sig *sig)
{
    if (sig->kind == COLL_SERVE)
        return;
    if (first_node < 0) {
        first_sig = *sig;
        first_node = src;
    } else if (memcmp(sig, &first_sig, sizeof *sig)) {
        coll_mismatch(mgr_epoch, first_node, &first_sig, src, sig);
    }
}

/* gather.c checked the entry's own rules (its park flag, its frames). */
const char *barrier_refuses(uint64_t ep, const arrival *a)
{
    if (ep != mgr_epoch)
        return "an arrival at another barrier than the current one";
    if (arrived_from[a->node])
        return "a second arrival at one barrier, or one from a node parked for a fork";
    return NULL;
}

/* A barrier ends with nodes parked and no note: only a join may, where
 * every other node has just parked; node 0 made any other call alone, and
 * a node that did not park would gather the next arrivals (gather.c) of
 * nodes asleep through it. */
static void check_hold(void)
{
    int fresh = nparked == cfg.nodes - 1;
    for (int j = 0; j < cfg.nodes; j++)
        fresh &= !parked_at[j] || parked_at[j] == mgr_epoch + 1;
    if (fresh && first_node >= 0 && first_sig.kind == COLL_JOIN)
        return;
    char d[96], cause[256];
    snprintf(cause, sizeof cause, "collective call #%llu: node 0 called %s while other "
             "nodes wait in tsr_serve, where only its tsr_fork and tsr_finalize meet them, "
             "and a tsr_join meets them only if every other node waits there",
             (unsigned long long)mgr_epoch, coll_describe(&first_sig, d, sizeof d));
    am_abort(cause);
}

static void put_departure(pbuf *m, uint32_t expected, const pbuf *d)
{
    uint32_t hd[2] = {expected, (uint32_t)d->len};
    pbuf_put(m, hd, sizeof hd);
    static const char zero[4];
    pbuf_put(m, d->p, d->len);
    pbuf_put(m, zero, (4 - d->len % 4) % 4);
}

/* MSG_FORK to parked node i: the note, the departure kept for it if it
 * parked at the epoch before, and this epoch's. */
static void wake(int i, const pbuf *out)
{
    uint64_t first = parked_at[i] - 1;
    pbuf m = {0};
    pbuf_put(&m, note.v, sizeof note.v);
    if (first < mgr_epoch)
        put_departure(&m, held_expect[i], &held);
    put_departure(&m, expect[i], out);
    am_send(i, MSG_FORK, first, mgr_epoch - first + 1, 0, m.p, m.len);
    pbuf_free(&m);
    parked_at[i] = 0;
    nparked--;
}

/* The counts of messages to await ahead of the frames in a tree
 * departure, padded so that the frames start 8-aligned. */
static size_t counts_len(int nodes) { return ((size_t)nodes * sizeof(uint32_t) + 7) & ~(size_t)7; }

/* Sends a departure to this node's children in the tree, this node heading
 * [cfg.node, hi): each gets its own count of messages to await in arg 1,
 * its part's in the payload (`below` holds those of cfg.node + 1 to
 * hi - 1, as u32 in any alignment), then the frames. */
static void send_down(uint64_t ep, int hi, const char *below, const void *frames, size_t len)
{
    int child[TREE_DEGREE], child_hi[TREE_DEGREE];
    int k = tree_children(cfg.node, hi, child, child_hi);
    for (int c = 0; c < k; c++) {
        const char *own = below + (size_t)(child[c] - cfg.node - 1) * sizeof(uint32_t);
        int part = child_hi[c] - child[c] - 1;
        uint32_t expected;
        memcpy(&expected, own, sizeof expected);
        pbuf m = {0};
        pbuf_put(&m, own + sizeof expected, (size_t)part * sizeof expected);
        static const char zero[8];
        pbuf_put(&m, zero, counts_len(part) - (size_t)part * sizeof expected);
        pbuf_put(&m, frames, len);
        am_send(child[c], MSG_BARRIER_DONE, ep, expected, 1, m.p, m.len);
        COUNTER_ADD(departures_sent, 1);
        pbuf_free(&m);
    }
}

/* Every node has arrived (a parked one from its arrival on). Unless one
 * is parked, the departure goes down the tree; the parked nodes' wake-ups
 * (MSG_FORK) come from here, so then every node hears from here. */
static void depart(void)
{
    if (nparked && !note.set) {
        check_hold();
        for (int j = 0; j < cfg.nodes; j++)
            if (parked_at[j])
                coh_barrier_held(j);
    }
    pbuf out = {0};
    coh_barrier_departure(&out);
    /* This node last: its application thread, once released, must find
     * every other node's release counted in messages_sent (tsr_finalize
     * takes the statistics right after its barrier). */
    if (!nparked)
        send_down(mgr_epoch, cfg.nodes, (const char *)(expect + 1), out.p, out.len);
    for (int k = nparked ? 1 : cfg.nodes; k <= cfg.nodes; k++) {
        int i = (cfg.node + k) % cfg.nodes;
        if (!parked_at[i]) {
            am_send(i, MSG_BARRIER_DONE, mgr_epoch, expect[i], 0, out.p, out.len);
            COUNTER_ADD(departures_sent, i != cfg.node);
        } else if (note.set)
            wake(i, &out);
        else
            held_expect[i] = expect[i];
    }
    if (nparked) {
        held.len = 0;
        pbuf_put(&held, out.p, out.len);
    }
    pbuf_free(&out);
    memset(expect, 0, (size_t)cfg.nodes * sizeof *expect);
    note.set = 0;
    first_node = -1;
    mgr_epoch++;
    /* The parked nodes are at the next barrier already. */
    for (int j = 0; j < cfg.nodes; j++)
        arrived_from[j] = parked_at[j] != 0;
    arrived = nparked;
}

void barrier_counted(const uint32_t *sent)
{
    for (int j = 0; j < cfg.nodes; j++)
        expect[j] += sent[j];
}

/* An arrival: its call, the protocols' frames; a parked one waits for
 * node 0's note. */
void barrier_arrived(const arrival *a)
{
    check_signature(a->node, &a->sig);
    if (coh_barrier_merge(a->node, a->frames, a->len))
        log_die_status(1, "barrier: the protocols refused an arrival checked on arrival");
    if (a->node == BARRIER_MANAGER && atomic_exchange(&staged_set, 0)) {
        note.set = 1;
        memcpy(note.v, staged, sizeof note.v);
    }
    if (a->park) {
        parked_at[a->node] = mgr_epoch + 1;
        nparked++;
    }
    arrived_from[a->node] = 1;
    if (++arrived == cfg.nodes)
        depart();
}

/* A departure comes from the root itself (tree 0), or from this node's
 * parent in the tree (tree 1), with the counts of this node's part ahead
 * of the frames (`*counts`: their length). */
static const char *departure_refused(int src, const tsr_msg_hdr *h, const void *payload,
                                     int *hi, size_t *counts)
{
    int parent;
    tree_place(cfg.node, cfg.nodes, &parent, hi);
    *counts = h->arg[2] ? counts_len(*hi - cfg.node - 1) : 0;
    if (h->arg[2] > 1 || src != (h->arg[2] ? parent : BARRIER_MANAGER))
        return "a departure neither from the barrier's root nor, down the tree, from this "
               "node's parent";
    if (h->len < *counts ||
        coh_payload_check(PL_DEPARTURE, -1, (const char *)payload + *counts, h->len - *counts))
        return "a malformed departure";
    uint64_t want = h->arg[0];
    if (atomic_load(&done.parked) || !atomic_compare_exchange_strong(&done.awaited, &want, NO_EPOCH))
        return "a departure from a barrier this node does not wait at";
    return NULL;
}

static void keep(const void *payload, size_t len, uint32_t count)
{
    if (!(done.departure = malloc(len + 1)))
        log_die_status(1, "out of memory (barrier)");
    memcpy(done.departure, payload, len);
    done.len = len;
    done.count = count;
    waiter_done(&done.w);
}

/* Passes a tree departure on before leaving (keep wakes the application
 * thread), for the same reason as depart() leaves the root last. */
static void on_done(int src, const tsr_msg_hdr *h, void *payload)
{
    int hi;
    size_t counts;
    const char *why = departure_refused(src, h, payload, &hi, &counts);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
    const char *frames = (const char *)payload + counts;
    if (h->arg[2])
        send_down(h->arg[0], hi, payload, frames, h->len - counts);
    done.expected = (uint32_t)h->arg[1];
    keep(frames, h->len - counts, 1);
}

/* A MSG_FORK payload: the note (3 u64), then `count` departures, each
 * (u32 expected, u32 length, frames padded to 4). Fills d[]; 0, or -1 if
 * malformed. */
typedef struct departure {
    uint32_t expected;
    const char *p;
    size_t len;
} departure;

static int departures_of(const char *p, size_t len, uint32_t count, departure *d)
{
    size_t at = 3 * sizeof(uint64_t);
    for (uint32_t k = 0; k < count; k++) {
        uint32_t hd[2];
        if (len < at + sizeof hd)
            return -1;
        memcpy(hd, p + at, sizeof hd);
        at += sizeof hd;
        size_t padded = ((size_t)hd[1] + 3) & ~(size_t)3;
        if (padded > len - at)
            return -1;
        d[k] = (departure){hd[0], p + at, hd[1]};
        at += padded;
    }
    return at == len ? 0 : -1;
}

static const char *wake_refused(int src, const tsr_msg_hdr *h, const void *payload)
{
    departure d[2];
    if (src != BARRIER_MANAGER)
        return "a fork not from node 0, the barrier's root";
    if (h->arg[1] < 1 || h->arg[1] > 2 ||
        departures_of(payload, h->len, (uint32_t)h->arg[1], d))
        return "not one or two departures after a note";
    for (uint64_t k = 0; k < h->arg[1]; k++)
        if (coh_payload_check(PL_DEPARTURE, -1, d[k].p, d[k].len))
            return "a malformed departure";
    uint64_t v[3];
    memcpy(v, payload, sizeof v);
    if (!note_ok(v))
        return "a fork of no function of the program";
    uint64_t want = h->arg[0];
    if (!atomic_load(&done.parked) ||
        !atomic_compare_exchange_strong(&done.awaited, &want, NO_EPOCH))
        return "a fork to a node not parked at that barrier";
    return NULL;
}

static void on_fork(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = wake_refused(src, h, payload);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
    gather_skip(h->arg[0] + h->arg[1]);
    keep(payload, h->len, (uint32_t)h->arg[1]);
}

void barrier_init(void)
{
    expect = calloc((size_t)cfg.nodes, sizeof *expect);
    arrived_from = calloc((size_t)cfg.nodes, 1);
    parked_at = calloc((size_t)cfg.nodes, sizeof *parked_at);
    held_expect = calloc((size_t)cfg.nodes, sizeof *held_expect);
    if (!expect || !arrived_from || !parked_at || !held_expect)
        log_die("out of memory (barrier)");
    stats_register(&departures_sent);
    gather_init();
    am_register(MSG_BARRIER_DONE, on_done);
    am_register(MSG_FORK, on_fork);
}

void barrier_on_note(int (*ok)(const uint64_t note[3])) { note_ok = ok; }

void tsr_barrier(void)
{
    guard_check("tsr_barrier");
    coll_sig sig = coll_sig_of(COLL_BARRIER, 0, NULL);
    barrier_collective(&sig);
}

/* Releases this node's writes and sends its arrival (parked or not). */
static void arrive(const coll_sig *sig, int park)
{
    coh_enter(); /* until the arrival is built: the node's other threads may fault */
    if (!lock_held_count())
        coh_sync_point(1);
    sync_releasing();
    am_wait_room();
    stall_enter(epoch, sig);
    size_t counts = (size_t)cfg.nodes * sizeof(uint32_t);
    uint32_t *sent = calloc(1, counts);
    if (!sent)
        log_die("out of memory (barrier)");
    coh_barrier_release(sent);
    lock_count_releases(sent);
    pbuf frames = {0};
    coh_barrier_arrival(&frames);
    coh_leave();
    waiter_init(&done.w, 1);
    atomic_store(&done.parked, park);
    atomic_store(&done.awaited, epoch); /* before the departure can come */
    gather_arrive(epoch, (uint32_t)park, sent, sig, &frames);
    pbuf_free(&frames);
    free(sent);
}

static void leave(const void *departure, size_t len, uint32_t expected)
{
    epoch++;
    coh_enter();
    int refused = coh_barrier_done(departure, len, expected);
    coh_leave();
    if (refused)
        log_die_status(1, "barrier: the protocols refused a departure checked on arrival");
    STAT_ADD(barriers, 1);
}

void barrier_noted(const coll_sig *sig, const uint64_t *note_v)
{
    double t0 = now_s();
    uint64_t traced = trace_begin();
    if (note_v) {
        memcpy(staged, note_v, sizeof staged);
        atomic_store(&staged_set, 1);
    }
    arrive(sig, 0);
    stall_wait(&done.w, -1);
    stall_leave();
    leave(done.departure, done.len, done.expected);
    coh_barrier_left();
    free(done.departure);
    sync_acquired();
    STAT_TIME(barrier_wait_s, now_s() - t0);
    TRACE_SPAN(traced, EV_BARRIER, 0, epoch - 1, 0);
}

void barrier_collective(const coll_sig *sig) { barrier_noted(sig, NULL); }

void barrier_park(const coll_sig *sig, uint64_t note_v[3])
{
    uint64_t traced = trace_begin();
    arrive(sig, 1);
    /* Unwatched: node 0's sequential part may take any time. */
    waiter_wait(&done.w);
    stall_leave();
    departure d[2];
    departures_of(done.departure, done.len, done.count, d);
    for (uint32_t k = 0; k < done.count; k++)
        leave(d[k].p, d[k].len, d[k].expected);
    coh_barrier_left();
    memcpy(note_v, done.departure, 3 * sizeof *note_v);
    free(done.departure);
    sync_acquired();
    TRACE_SPAN(traced, EV_BARRIER, 0, epoch - 1, 1);
}
