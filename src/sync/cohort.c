/*
 * cohort.c - tsr_lock and tsr_unlock held by threads: a cohort lock over
 * the node's lock (lock.c). The node takes a lock from the job once for a
 * run of its threads: a thread that releases it while another thread of
 * the node waits hands it over here, with no message and no coherence
 * work (the threads share the node's page cache, so the next holder sees
 * every write the releaser made), up to COHORT_PASSES times in a row
 * while a node elsewhere waits for it, so other nodes are not starved.
 * Otherwise the node releases it as before (lock_release).
 *
 * One thread of the node at a time asks for a given lock, so lock.c sees
 * one acquirer per lock, as with one application thread. The pause flags'
 * locks (slots TSR_MAX_LOCKS + flag) pass through here too, so that
 * threads setting or waiting for one flag at once keep that rule.
 */
#include <pthread.h>
#include <stdlib.h>

#include "coherence/coherence.h"
#include "coherence/payload.h"
#include "stats/stats.h"
#include "sync/local_wait.h"
#include "sync/sync.h"
#include "util/guard.h"
#include "util/log.h"

/* Hand-offs in a row to threads of this node while another node waits:
 * enough to amortize the node's acquire over a burst of local requests,
 * few enough that a remote waiter waits for at most that many critical
 * sections more than under a FIFO. */
#define COHORT_PASSES 8

typedef struct cohort {
    pthread_cond_t turn;
    pthread_t holder;
    int holder_index; /* its lw_self(), for the deadlock finder */
    int busy;       /* a thread holds it, or is taking or releasing it */
    int node_holds; /* the node holds it from the job */
    int waiters;    /* threads waiting for `busy` to end */
    int passes;     /* local hand-offs since the node took it */
} cohort;

static cohort *cohorts;
STATS_COUNTER(lock_local_handoffs, "locks handed to a thread of the same node, no message");
STATS_COUNTER(lock_local_waits, "lock requests that waited for a thread of the same node");

void cohort_init(void)
{
    cohorts = calloc(COH_LOCK_SLOTS, sizeof *cohorts);
    if (!cohorts)
        log_die("out of memory (lock table)");
    for (int id = 0; id < COH_LOCK_SLOTS; id++)
        pthread_cond_init(&cohorts[id].turn, NULL);
    stats_register(&lock_local_handoffs);
    stats_register(&lock_local_waits);
}

void sync_thread_check(const char *fn)
{
    const char *proto;
    if (!guard_is_app_thread() && (proto = coh_one_thread_kept()))
        log_die("%s: called from a second thread while protocol %s keeps pages; it serves only "
                "the thread that called tsr_init (docs/API.md, \"Threads\")", fn, proto);
}

static void check_id(const char *fn, int id)
{
    guard_check_any(fn);
    if (id < 0 || id >= TSR_MAX_LOCKS)
        log_die("%s(%d): lock id out of range [0, %d)", fn, id, TSR_MAX_LOCKS);
    sync_thread_check(fn);
}

void cohort_acquire(const char *fn, int slot)
{
    cohort *c = &cohorts[slot];
    int me = lw_self();
    pthread_mutex_lock(&local_mu);
    if (c->busy && pthread_equal(c->holder, pthread_self()))
        log_die("%s(%d): this thread already holds the lock (locks are not recursive)", fn, slot);
    c->waiters++;
    if (c->busy) {
        COUNTER_ADD(lock_local_waits, 1);
        lw_begin(LW_LOCK, (uint64_t)slot);
        while (c->busy)
            lw_wait(&c->turn);
        lw_end();
    }
    c->waiters--;
    c->busy = 1;
    c->holder = pthread_self();
    c->holder_index = me;
    int local = c->node_holds;
    pthread_mutex_unlock(&local_mu);
    if (local)
        return;
    lock_acquire(slot);
    pthread_mutex_lock(&local_mu);
    c->node_holds = 1;
    c->passes = 0;
    pthread_mutex_unlock(&local_mu);
}

int cohort_holder(int slot)
{
    const cohort *c = &cohorts[slot];
    return c->busy ? c->holder_index : -1;
}

/* Never waits for a thread of this node either: a lock that one holds or
 * takes is refused here without a message; one the node holds between two
 * of its threads (a local hand-off under way) is taken as that hand-off
 * would. */
int tsr_trylock(int id)
{
    check_id("tsr_trylock", id);
    cohort *c = &cohorts[id];
    int me = lw_self();
    pthread_mutex_lock(&local_mu);
    if (c->busy && pthread_equal(c->holder, pthread_self()))
        log_die("tsr_trylock(%d): this thread already holds the lock (locks are not recursive)",
                id);
    int free = !c->busy;
    if (free) {
        c->busy = 1;
        c->holder = pthread_self();
        c->holder_index = me;
    }
    int local = c->node_holds;
    pthread_mutex_unlock(&local_mu);
    if (!free || local)
        return free;
    int got = lock_try(id);
    pthread_mutex_lock(&local_mu);
    c->node_holds = got;
    c->passes = 0;
    c->busy = got;
    if (!got)
        pthread_cond_signal(&c->turn);
    pthread_mutex_unlock(&local_mu);
    return got;
}

/* Whether the next holder may be a waiting thread of this node. */
static int pass_locally(const cohort *c, int slot)
{
    return c->waiters && (c->passes < COHORT_PASSES || lock_successor(slot) < 0);
}

void cohort_release(const char *fn, int slot)
{
    cohort *c = &cohorts[slot];
    pthread_mutex_lock(&local_mu);
    if (!c->busy || !c->node_holds || !pthread_equal(c->holder, pthread_self()))
        log_die("%s(%d): this thread does not hold the lock", fn, slot);
    int local = pass_locally(c, slot);
    if (local) {
        c->passes++;
        c->busy = 0;
        pthread_cond_signal(&c->turn);
    }
    pthread_mutex_unlock(&local_mu);
    if (local) {
        COUNTER_ADD(lock_local_handoffs, 1);
        return;
    }
    lock_release(slot);
    pthread_mutex_lock(&local_mu);
    c->node_holds = 0;
    c->busy = 0;
    pthread_cond_signal(&c->turn);
    pthread_mutex_unlock(&local_mu);
}

void tsr_lock(int id)
{
    check_id("tsr_lock", id);
    cohort_acquire("tsr_lock", id);
}

void tsr_unlock(int id)
{
    check_id("tsr_unlock", id);
    cohort_release("tsr_unlock", id);
}
