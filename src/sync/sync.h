/*
 * sync.h - locks and barriers: the points where release consistency makes
 * writes visible.
 *
 * Locks have a manager node (id mod N) that keeps the end of a FIFO queue
 * (lock_manager.c), whose members grant each other directly (lock.c); the
 * barrier has one manager (node 0). Requests, grants, releases and barrier
 * messages carry the protocols' payloads (coherence/payload.h), which the
 * protocols build, merge and apply: this layer never reads them.
 */
#ifndef TSR_SYNC_H
#define TSR_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "sync/collective.h"

void lock_init(void);
/* cohort.c: the program's locks among the node's threads (lock_init). */
void cohort_init(void);
/* A thread's side of any lock slot (coherence/payload.h): waits for the
 * node's other threads, then takes it from the job unless the node holds
 * it; the release hands it to a waiting thread of the node or gives it
 * back. `fn` names the public call in errors (a slot held twice, or not
 * held). */
void cohort_acquire(const char *fn, int slot);
void cohort_release(const char *fn, int slot);
/* Stops a call from a thread other than tsr_init's while a protocol that
 * serves one thread keeps pages, naming it. */
void sync_thread_check(const char *fn);
void barrier_init(void);
/* The barrier that ends (tsr_alloc) or begins (tsr_free) a collective call,
 * or is one (tsr_barrier): carries the call's signature to the manager. */
void barrier_collective(const coll_sig *sig);
/* Fork/join (barrier.c says how): node 0 passes a barrier with a note of
 * three numbers for the nodes parked in tsr_serve (NULL: none)... */
void barrier_noted(const coll_sig *sig, const uint64_t *note);
/* ...and another node parks: it arrives, then waits past the barrier's
 * end for node 0's next note, applying every departure meanwhile, and
 * returns the note. */
void barrier_park(const coll_sig *sig, uint64_t note[3]);
/* Whether a note from the wire is one node 0 can have sent (MSG_FORK's
 * rule, at the comm thread); set at start. */
void barrier_on_note(int (*ok)(const uint64_t note[3]));
/* The node's side of tsr_lock and tsr_unlock for any lock slot
 * (coherence/payload.h), the pause flags' included: one thread of the node
 * at a time per lock (cohort.c hands the program's locks between the
 * node's threads). */
void lock_acquire(int id);
void lock_release(int id);
/* tsr_trylock's node side: 1 if the manager granted the lock (the node
 * then holds it, as after lock_acquire), 0 if it was held (refused). */
int lock_try(int id);
/* Pause flags (flag.c): registers their messages. */
void flag_init(void);
/* Whether this node holds lock `id` (the stall detector asks). */
int lock_held_here(int id);
/* The node whose request for lock `id` the manager forwarded here, to be
 * granted at this node's release; -1 while there is none (tests wait on
 * it for "the request has arrived"). */
int lock_successor(int id);
/* Reads the data bound to lock `id` (coherence/payload.h) without taking
 * the lock: asks its manager, which answers when the lock is free, and
 * waits for the answer to be installed. Async-signal-safe (Munin's fault
 * handler reads that way). */
void lock_peek(int id);
/* How many locks this node holds. */
int lock_held_count(void);
/* The slots of the locks this node holds, at most `max` of them, into
 * out[]; returns how many it holds (the stall detector asks, from the comm
 * thread). */
int lock_held_list(int32_t *out, int max);
/* At a barrier arrival: adds the releases sent to each manager since the
 * last barrier to sent[] (the barrier's counted messages). */
void lock_count_releases(uint32_t *sent);
/* hooks.c: functions of a layer above to run at every lock release and
 * barrier arrival (release), and after every lock grant and barrier
 * departure (acquire), on the application thread; NULL for none. */
void sync_set_hooks(void (*release)(void), void (*acquire)(void));
void sync_releasing(void);
void sync_acquired(void);

#endif
