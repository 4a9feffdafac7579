/*
 * team.c - tsr_barrier_threads: a barrier of every thread of the job, as
 * ArgoDSM's argo::barrier(threadcount). The node's threads combine here
 * first; the last to arrive passes the node's barrier (the one
 * tsr_barrier passes, so one arrival message per node) while the others
 * wait, and the job's writes are then consistent for all of them: the
 * threads share the node's page cache.
 *
 * Each arrival belongs to a round; a thread that arrives for the next
 * round while the last one of this round is still in the node's barrier
 * waits for the next round's end, not this one's.
 */
#include <pthread.h>
#include <stdint.h>

#include "sync/local_wait.h"
#include "sync/sync.h"
#include "tessera.h"
#include "util/guard.h"
#include "util/log.h"

static pthread_cond_t round_over = PTHREAD_COND_INITIALIZER;
static int arrived, expected;
static uint64_t rounds_begun, rounds_done;

void tsr_barrier_threads(int threads)
{
    guard_check_any("tsr_barrier_threads");
    if (threads < 1)
        log_die("tsr_barrier_threads(%d): the node's thread count must be at least 1", threads);
    sync_thread_check("tsr_barrier_threads");
    lw_self();
    pthread_mutex_lock(&local_mu);
    if (arrived && threads != expected)
        log_die("tsr_barrier_threads(%d): another thread of this node passed %d for the same "
                "barrier", threads, expected);
    expected = threads;
    uint64_t round = rounds_begun;
    if (++arrived < threads) {
        lw_begin(LW_TEAM, round);
        while (rounds_done <= round)
            lw_wait(&round_over);
        lw_end();
        pthread_mutex_unlock(&local_mu);
        return;
    }
    arrived = 0;
    rounds_begun++;
    pthread_mutex_unlock(&local_mu);
    coll_sig sig = coll_sig_of(COLL_BARRIER, 0, NULL);
    barrier_collective(&sig);
    pthread_mutex_lock(&local_mu);
    rounds_done++;
    pthread_cond_broadcast(&round_over);
    pthread_mutex_unlock(&local_mu);
}
