/*
 * fork.c - fork/join as TreadMarks has it for OpenMP (Tmk_fork, Tmk_join),
 * and replicated sequential sections as OpenMP/NOW runs them
 * (openmp-now-replicated-sequential-sections.md, Sections 2.2.1 and 5.2).
 *
 * Two ways to run the code between parallel sections:
 *
 *  - Node 0 alone (the master): the other nodes wait in tsr_serve, parked
 *    at a barrier (sync/barrier.c). A fork is node 0's arrival at that
 *    barrier with a note naming the function by its place in the program's
 *    loaded images (image.h) and its argument: its end sends each other
 *    node one MSG_FORK with the note and the departure, so node 0's writes
 *    before the fork are seen by the function everywhere. A join is a
 *    barrier at which the other nodes park again: one message from each,
 *    whose departure reaches them with the next fork. 2(N-1) messages per
 *    fork and join, as TreadMarks sends. tsr_finalize on node 0 ends the
 *    serving with a note of its own.
 *
 *  - Every node (a replicated section, tsr_replicate_begin): all nodes run
 *    the sequential code and all call tsr_fork, which ends the section,
 *    and tsr_join, which begins the next one. No fork message is needed.
 *    Writes made inside the section stay on the node that made them
 *    (coh_replicate_begin/end and the protocols' hooks).
 */
#include "api/fork.h"
#include "api/image.h"
#include "coherence/coherence.h"
#include "stats/trace.h"
#include "sync/sync.h"
#include "tessera.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/guard.h"
#include "util/log.h"

#define MASTER 0

/* A note (sync.h): {image, offset, arg} of a fork, or the end: {NOTE_END,
 * NOTE_AT_FINALIZE or NOTE_GO_ON, 0}. */
#define NOTE_END UINT64_MAX
#define NOTE_AT_FINALIZE 0 /* node 0's tsr_finalize: its barrier is passed */
#define NOTE_GO_ON 1       /* fork_end_serve: tsr_serve returns, the program goes on */

static enum { SEQUENTIAL, FORKED, FORKED_REPLICATED } phase;
static int served; /* tsr_serve returned: tsr_finalize's barrier is passed */
/* When the running fork and replicated section began, for their spans. */
static uint64_t forked_at, replicated_at;

/* MSG_FORK's rule for the note: a function of the program, or the end. */
static int note_ok(const uint64_t note[3])
{
    if (note[0] == NOTE_END)
        return note[1] <= NOTE_GO_ON && !note[2];
    return note[0] <= UINT32_MAX && image_code_address((uint32_t)note[0], note[1]) != NULL;
}

void fork_init(void) { barrier_on_note(note_ok); }

void fork_finalize(void)
{
    coll_sig sig = coll_sig_of(COLL_FINALIZE, 0, NULL);
    static const uint64_t end[3] = {NOTE_END, NOTE_AT_FINALIZE, 0};
    if (cfg.node == MASTER)
        barrier_noted(&sig, end);
    else if (!served)
        barrier_collective(&sig);
}

void fork_end_serve(void)
{
    coll_sig sig = coll_sig_of(COLL_BARRIER, 0, NULL);
    static const uint64_t end[3] = {NOTE_END, NOTE_GO_ON, 0};
    if (cfg.node == MASTER)
        barrier_noted(&sig, end);
    else
        barrier_collective(&sig);
}

static void barrier(coll_kind kind, uint64_t arg)
{
    coll_sig sig = coll_sig_of(kind, arg, NULL);
    barrier_collective(&sig);
}

void tsr_replicate_begin(void)
{
    guard_check("tsr_replicate_begin");
    if (coh_replicating() || phase != SEQUENTIAL)
        log_die("tsr_replicate_begin: %s", coh_replicating()
                                               ? "already in a replicated section"
                                               : "called between tsr_fork and tsr_join");
    /* The join of Section 5.2: every node's writes so far are seen by all. */
    barrier(COLL_REPLICATE, 1);
    coh_replicate_begin();
    replicated_at = trace_begin();
}

void tsr_replicate_end(void)
{
    guard_check("tsr_replicate_end");
    if (!coh_replicating())
        log_die("tsr_replicate_end: not in a replicated section (tsr_replicate_begin)");
    /* The section ends once every node has finished it: a home that left
     * early would serve its pages with the section's writes to a node
     * still running it, which would make them twice. */
    barrier(COLL_REPLICATE, 0);
    coh_replicate_end();
    TRACE_SPAN(replicated_at, EV_REPLICATED, 0, 0, 0);
}

int tsr_replicated(void)
{
    guard_check("tsr_replicated");
    return coh_replicating();
}

void tsr_fork(void (*fn)(void *), void *arg)
{
    guard_check("tsr_fork");
    if (!fn)
        log_die("tsr_fork: fn is NULL");
    if (phase != SEQUENTIAL)
        log_die("tsr_fork: called again before tsr_join (forks do not nest)");
    if (coh_replicating()) {
        phase = FORKED_REPLICATED;
        barrier(COLL_FORK, 1);
        coh_replicate_end();
        TRACE_SPAN(replicated_at, EV_REPLICATED, 0, 0, 0);
        forked_at = trace_begin();
        fn(arg);
        return;
    }
    if (cfg.node != MASTER)
        log_die("tsr_fork: called on node %d outside a replicated section; only node 0 forks "
                "(the other nodes wait in tsr_serve), or every node inside "
                "tsr_replicate_begin/tsr_replicate_end", cfg.node);
    uint32_t image;
    uint64_t offset;
    if (image_locate_code(fn, &image, &offset))
        log_die("tsr_fork(%p): not a function of the program's loaded images", (void *)fn);
    uint64_t note[3] = {image, offset, (uintptr_t)arg};
    coll_sig sig = coll_sig_of(COLL_FORK, 0, NULL);
    phase = FORKED;
    barrier_noted(&sig, note);
    forked_at = trace_begin();
    fn(arg);
}

void tsr_join(void)
{
    guard_check("tsr_join");
    if (phase == SEQUENTIAL)
        log_die("tsr_join: no tsr_fork to join");
    int again = phase == FORKED_REPLICATED;
    phase = SEQUENTIAL;
    TRACE_SPAN(forked_at, EV_FORK, 0, 0, 0);
    barrier(COLL_JOIN, 0);
    if (again) {
        coh_replicate_begin();
        replicated_at = trace_begin();
    }
}

void tsr_serve(void)
{
    guard_check("tsr_serve");
    if (cfg.node == MASTER)
        log_die("tsr_serve: called on node 0, which runs the program and forks");
    if (coh_replicating() || phase != SEQUENTIAL)
        log_die("tsr_serve: called inside a replicated section or a fork");
    coll_sig sig = coll_sig_of(COLL_SERVE, 0, NULL);
    for (;;) {
        uint64_t note[3];
        barrier_park(&sig, note);
        if (note[0] == NOTE_END) {
            served = note[1] == NOTE_AT_FINALIZE;
            return;
        }
        void (*fn)(void *) = image_code_address((uint32_t)note[0], note[1]);
        phase = FORKED;
        forked_at = trace_begin();
        fn((void *)(uintptr_t)note[2]);
        TRACE_SPAN(forked_at, EV_FORK, 0, 0, 0);
        phase = SEQUENTIAL;
        sig = coll_sig_of(COLL_JOIN, 0, NULL);
    }
}
