/*
 * guard.h - the state every public call checks first: the runtime serves
 * calls between tsr_init and tsr_finalize, most of them from the thread
 * that called tsr_init, the thread-safe ones (docs/API.md, "Threads") from
 * any thread.
 * A call out of that state would hang, divide by zero or corrupt memory, so
 * it stops the program with a message naming the call instead.
 */
#ifndef TSR_GUARD_H
#define TSR_GUARD_H

/* tsr_init: the calling thread becomes the application thread. Exits
 * naming tsr_init if the process has already joined (or left) a job. */
void guard_start(void);
/* End of tsr_finalize: every later call is refused. */
void guard_stop(void);
/* At the top of each public call `fn`: exits unless the runtime is running
 * and the caller is the application thread. */
void guard_check(const char *fn);
/* The same for a call any thread may make: only the runtime's state. */
void guard_check_any(const char *fn);
/* Whether the caller is the thread that called tsr_init (pthread_self:
 * cheap, not async-signal-safe). */
int guard_is_app_thread(void);
/* Whether the calling thread is the application thread. Async-signal-safe
 * (one gettid system call): the fault handler asks it. */
int guard_on_app_thread(void);

#endif
