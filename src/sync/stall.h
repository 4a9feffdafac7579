/*
 * stall.h - the stall detector. A node that waits in a collective call or
 * for a lock longer than a second asks every other node where it is (the
 * last collective call it entered, whether it is still in it, the lock it
 * waits for, the locks it holds) and looks for a cycle of nodes each
 * waiting for the next (deadlock.c): found twice over with none of them
 * moved, it stops the job naming every node of the cycle. Past
 * TSR_STALL_WARN seconds it also prints which nodes it waits for and where
 * they are, and after TSR_STALL_ABORT seconds it stops the job with that
 * report. The questions go out only once a wait is already long: nothing is
 * added to a wait that ends in time, and nothing at all to the fault path.
 */
#ifndef TSR_STALL_H
#define TSR_STALL_H

#include <stdint.h>

#include "sync/collective.h"
#include "transport/wait.h"

void stall_init(void);
/* This node enters collective call number `call` (the barrier epoch). */
void stall_enter(uint64_t call, const coll_sig *sig);
/* ... and has left it. */
void stall_leave(void);
/* This node took or released a lock (the deadlock finder's `moves`). */
void stall_moved(void);
/* waiter_wait, watched: `lock` is the lock waited for, -1 in a collective. */
void stall_wait(waiter *w, int lock);

#endif
