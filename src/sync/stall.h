/*
 * stall.h - the stall detector. A node that waits in a collective call or
 * for a lock longer than a second asks every other node, over the barrier
 * tree (where_tree.h), where it is (the last collective call it entered,
 * whether it is still in it, the lock it waits for, the locks it holds)
 * and looks for a cycle of nodes each
 * waiting for the next (deadlock.c): found twice over with none of them
 * moved, it stops the job naming every node of the cycle. Waits for a
 * message (jia_recv, jia_wait, Tmk_lock_cond_wait) are watched the same
 * way. Past
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
/* A wait for another node's message (stall_wait_msg): none, or which. */
enum { WAIT_NONE, WAIT_JIA_RECV, WAIT_JIA_WAIT, WAIT_TMK_COND, WAIT_KINDS };
extern const char *const where_wait_name[WAIT_KINDS];

/* waiter_wait, watched, for what another node's message brings: `what`
 * names the call (where.h: WAIT_*), `from` the node whose message ends
 * the wait, or -1 for any node. Every message that can end such a wait is
 * counted where it is sent (stall_sent, before sending) and where it is
 * received (stall_got, once handled and any wait it ends is ended), so
 * that a deadlock is claimed only with none of them on its way. */
void stall_wait_msg(waiter *w, int what, int from);
void stall_sent(void);
void stall_got(void);

#endif
