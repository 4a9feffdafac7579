/*
 * local_wait.h - waits among a node's threads (cohort.c, team.c): a thread
 * that waits for a lock another thread of its node holds, or for the
 * node's other threads at tsr_barrier_threads, sends nothing, so the stall
 * detector (stall.c), which asks other nodes, never sees it. Here each
 * such wait is recorded, numbered by thread, and looked at every second:
 * threads each waiting for a lock the next one holds, the last for the
 * first's, are a deadlock, which stops the job naming every thread of it;
 * a wait past TSR_STALL_WARN is reported, naming the thread, and one past
 * TSR_STALL_ABORT stops the job.
 *
 * `local_mu` guards the cohort table, the team's rounds and the records,
 * so the deadlock finder sees them at one moment.
 */
#ifndef TSR_LOCAL_WAIT_H
#define TSR_LOCAL_WAIT_H

#include <pthread.h>
#include <stdint.h>

extern pthread_mutex_t local_mu;

enum { LW_RUNNING, LW_LOCK, LW_TEAM };

/* The calling thread's index: 0 for the thread that called tsr_init,
 * then 1, 2, ... in the order threads first lock, wait for a flag or pass
 * tsr_barrier_threads (stall and deadlock reports name it). */
int lw_self(void);
/* Under local_mu: the calling thread begins to wait for lock slot `arg`
 * (LW_LOCK) or for team round `arg` (LW_TEAM); waits on `cv` (one
 * wake-up, or a second, after which it looks for a deadlock and reports
 * a long wait); and has stopped waiting. */
void lw_begin(int kind, uint64_t arg);
void lw_wait(pthread_cond_t *cv);
void lw_end(void);

/* What the finder asks cohort.c, under local_mu: the index of the thread
 * that holds lock slot `slot`, or -1 if none does. */
int cohort_holder(int slot);

#endif
