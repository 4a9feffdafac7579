/*
 * fork.c - fork/join as TreadMarks has it for OpenMP (Tmk_fork, Tmk_join),
 * and replicated sequential sections as OpenMP/NOW runs them
 * (openmp-now-replicated-sequential-sections.md, Sections 2.2.1 and 5.2).
 *
 * Two ways to run the code between parallel sections:
 *
 *  - Node 0 alone (the master): the other nodes wait in tsr_serve. A fork
 *    sends each of them MSG_FORK naming the function by its place in the
 *    program's loaded images (image.h), then every node passes a barrier
 *    (the fork's consistency: node 0's writes before the fork are seen by
 *    the function everywhere) and runs it; tsr_join is a barrier, after
 *    which the servers wait for the next fork. TreadMarks' fork message
 *    carries the write notices itself and its join is one message per
 *    slave; here both are a barrier, which serves every protocol alike.
 *
 *  - Every node (a replicated section, tsr_replicate_begin): all nodes run
 *    the sequential code and all call tsr_fork, which ends the section,
 *    and tsr_join, which begins the next one. No fork message is needed.
 *    Writes made inside the section stay on the node that made them
 *    (coh_replicate_begin/end and the protocols' hooks).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "api/fork.h"
#include "api/image.h"
#include "coherence/coherence.h"
#include "sync/sync.h"
#include "tessera.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/guard.h"
#include "util/log.h"

#define MASTER 0

/* The fork a serving node was sent, filled by the comm thread. */
static struct {
    waiter w;
    _Atomic int full; /* a fork or the end is waiting to be taken */
    int end;
    void (*fn)(void *);
    void *arg;
} mailbox;

/* Node 0: which nodes serve, whom the end has been sent. The comm thread
 * (a late MSG_FORK_READY) and tsr_finalize may both send it: the exchange
 * on `ended` lets exactly one of them. */
static _Atomic uint8_t *serving, *ended;
static _Atomic int finishing;

static enum { SEQUENTIAL, FORKED, FORKED_REPLICATED } phase;

static void post(void (*fn)(void *), void *arg, int end)
{
    mailbox.fn = fn;
    mailbox.arg = arg;
    mailbox.end = end;
    atomic_store(&mailbox.full, 1);
    waiter_done(&mailbox.w);
}

static void on_fork(int src, const tsr_msg_hdr *h, void *payload)
{
    void (*fn)(void *) = image_code_address((uint32_t)h->arg[0], h->arg[1]);
    if (src != MASTER || !fn || atomic_load(&mailbox.full)) {
        am_reject(src, h, "a fork not from node 0, of no function of the program, or before "
                          "the previous one was taken");
        return;
    }
    post(fn, (void *)(uintptr_t)h->arg[2], 0);
}

static void on_fork_end(int src, const tsr_msg_hdr *h, void *payload)
{
    if (src != MASTER || atomic_load(&mailbox.full)) {
        am_reject(src, h, "an end of forks not from node 0, or with a fork still untaken");
        return;
    }
    post(NULL, NULL, 1);
}

static void send_end(int node)
{
    if (!atomic_exchange(&ended[node], 1))
        am_send(node, MSG_FORK_END, 0, 0, 0, NULL, 0);
}

static void on_fork_ready(int src, const tsr_msg_hdr *h, void *payload)
{
    if (cfg.node != MASTER || src == MASTER || atomic_exchange(&serving[src], 1)) {
        am_reject(src, h, "a server announced to a node other than 0, or twice");
        return;
    }
    if (atomic_load(&finishing))
        send_end(src);
}

void fork_init(void)
{
    serving = calloc((size_t)cfg.nodes, sizeof *serving);
    ended = calloc((size_t)cfg.nodes, sizeof *ended);
    if (!serving || !ended)
        log_die("out of memory (fork/join)");
    waiter_init(&mailbox.w, 1);
    am_register(MSG_FORK, on_fork);
    am_register(MSG_FORK_READY, on_fork_ready);
    am_register(MSG_FORK_END, on_fork_end);
}

void fork_finish(void)
{
    if (cfg.node != MASTER)
        return;
    atomic_store(&finishing, 1);
    for (int node = 1; node < cfg.nodes; node++)
        if (atomic_load(&serving[node]))
            send_end(node);
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
    for (int node = 1; node < cfg.nodes; node++)
        am_send(node, MSG_FORK, image, offset, (uintptr_t)arg, NULL, 0);
    phase = FORKED;
    barrier(COLL_FORK, 0);
    fn(arg);
}

void tsr_join(void)
{
    guard_check("tsr_join");
    if (phase == SEQUENTIAL)
        log_die("tsr_join: no tsr_fork to join");
    int again = phase == FORKED_REPLICATED;
    phase = SEQUENTIAL;
    barrier(COLL_JOIN, 0);
    if (again)
        coh_replicate_begin();
}

void tsr_serve(void)
{
    guard_check("tsr_serve");
    if (cfg.node == MASTER)
        log_die("tsr_serve: called on node 0, which runs the program and forks");
    if (coh_replicating() || phase != SEQUENTIAL)
        log_die("tsr_serve: called inside a replicated section or a fork");
    am_send(MASTER, MSG_FORK_READY, 0, 0, 0, NULL, 0);
    for (;;) {
        waiter_wait(&mailbox.w);
        waiter_init(&mailbox.w, 1);
        void (*fn)(void *) = mailbox.fn;
        void *arg = mailbox.arg;
        int end = mailbox.end;
        atomic_store(&mailbox.full, 0);
        if (end)
            return;
        phase = FORKED;
        barrier(COLL_FORK, 0);
        fn(arg);
        tsr_join();
    }
}
