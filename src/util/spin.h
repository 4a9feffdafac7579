/*
 * spin.h - a spin lock for the send side of the backends and for what a
 * comm thread shares with the fault path. Not a mutex: it is taken on the
 * fault path, where only async-signal-safe operations are allowed, and it
 * is held only around short copies.
 */
#ifndef TSR_SPIN_H
#define TSR_SPIN_H

#include <sched.h>
#include <stdatomic.h>

#include "util/cpu.h"

typedef struct { atomic_flag f; } spin_t;

static inline void spin_lock(spin_t *s)
{
    for (unsigned i = 0; atomic_flag_test_and_set_explicit(&s->f, memory_order_acquire); i++)
        if (i > 100)
            sched_yield();
        else
            cpu_relax();
}

static inline int spin_trylock(spin_t *s)
{
    return !atomic_flag_test_and_set_explicit(&s->f, memory_order_acquire);
}

static inline void spin_unlock(spin_t *s) { atomic_flag_clear_explicit(&s->f, memory_order_release); }

#endif
