/*
 * sigmutex.h - a mutex that a signal handler may take: the node's protocol
 * lock is taken in the SIGSEGV handler, where pthread mutexes are not
 * allowed, and held across a page fetch, too long to spin. Atomics and the
 * futex system call only (Drepper, "Futexes Are Tricky", mutex 2): 0 free,
 * 1 held, 2 held with sleepers. Not recursive: the caller never takes it
 * twice.
 */
#ifndef TSR_SIGMUTEX_H
#define TSR_SIGMUTEX_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct { _Atomic int v; } sigmutex;

static inline void sigmutex_lock(sigmutex *m)
{
    int c = 0;
    if (atomic_compare_exchange_strong_explicit(&m->v, &c, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    if (c != 2)
        c = atomic_exchange_explicit(&m->v, 2, memory_order_acquire);
    while (c) {
        syscall(SYS_futex, &m->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        c = atomic_exchange_explicit(&m->v, 2, memory_order_acquire);
    }
}

static inline void sigmutex_unlock(sigmutex *m)
{
    if (atomic_exchange_explicit(&m->v, 0, memory_order_release) == 2)
        syscall(SYS_futex, &m->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

#endif
