/*
 * omp_sync.c - mutual exclusion across the team: critical sections,
 * reductions, atomics and omp_lock_t, each a Tessera lock, so release
 * consistency carries the protected writes from one holder to the next.
 * Outside a team spread over the nodes (sequential code, serialized
 * regions) the other nodes wait in tsr_serve and nothing needs a lock.
 */
#include <stdint.h>

#include "omp_rt.h"

/* Critical sections this thread holds now, innermost last: two names that
 * share a lock id would deadlock when nested, so that is refused. */
#define MAX_HELD 16
static __thread int held[MAX_HELD];
static __thread int nheld;

/* A critical section's name is a global of the program (clang's
 * .gomp_critical_user_NAME.var), at the same address on every node. */
static int critical_lock(const void *name)
{
    return LOCK_CRITICAL + (int)(((uintptr_t)name >> 5) % (LOCK_USER - LOCK_CRITICAL));
}

static void enter(const ident_t *loc, const char *construct, const void *name)
{
    if (!omp_me.spread)
        return;
    int id = critical_lock(name);
    for (int i = 0; i < nheld; i++)
        if (held[i] == id)
            omp_refuse(loc, construct, "nested inside a critical section that maps to the same "
                       "Tessera lock (the same name, or two names whose addresses collide)");
    if (nheld == MAX_HELD)
        omp_refuse(loc, construct, "more than 16 critical sections nested");
    held[nheld++] = id;
    tsr_lock(id);
}

static void leave(void)
{
    if (!omp_me.spread || !nheld)
        return;
    tsr_unlock(held[--nheld]);
}

OMP_API void __kmpc_critical(const ident_t *loc, int32_t gtid, void *name)
{
    enter(loc, "critical", name);
}

OMP_API void __kmpc_critical_with_hint(const ident_t *loc, int32_t gtid, void *name,
                                       uint32_t hint)
{
    enter(loc, "critical", name);
}

OMP_API void __kmpc_end_critical(const ident_t *loc, int32_t gtid, void *name) { leave(); }

/* Reductions combine on the node first: its first thread adds the others'
 * private copies into its own (omp_team_combine), the others return 0
 * (nothing left to do). Then libomp's critical method (1): the node's first
 * thread combines the node's value into the shared variable itself, under
 * the lock of the reduction's name, one holder per node. */
OMP_API int32_t __kmpc_reduce_nowait(const ident_t *loc, int32_t gtid, int32_t nvars,
                                     size_t size, void *data, void (*combine)(void *, void *),
                                     void *name)
{
    if (!omp_team_combine(data, combine))
        return 0;
    enter(loc, "reduction", name);
    return 1;
}

OMP_API void __kmpc_end_reduce_nowait(const ident_t *loc, int32_t gtid, void *name) { leave(); }

/* The same with the construct's barrier, which a thread that returns 0
 * passes here (it calls no __kmpc_end_reduce) and the combining one there. */
OMP_API int32_t __kmpc_reduce(const ident_t *loc, int32_t gtid, int32_t nvars, size_t size,
                              void *data, void (*combine)(void *, void *), void *name)
{
    if (!omp_team_combine(data, combine)) {
        __kmpc_barrier(loc, gtid);
        return 0;
    }
    enter(loc, "reduction", name);
    return 1;
}

OMP_API void __kmpc_end_reduce(const ident_t *loc, int32_t gtid, void *name)
{
    leave();
    __kmpc_barrier(loc, gtid);
}

/* Atomic read-modify-writes: tsrcc's pass turns each into plain loads and
 * stores between these two calls. */
OMP_API void tsr_omp_atomic_enter(void)
{
    if (omp_me.spread)
        tsr_lock(LOCK_ATOMIC);
}

OMP_API void tsr_omp_atomic_leave(void)
{
    if (omp_me.spread)
        tsr_unlock(LOCK_ATOMIC);
}

/* omp_lock_t (include/omp/omp.h) holds its Tessera lock id plus one. */
typedef struct omp_lock_t {
    uintptr_t id;
} omp_lock_t;

static int lock_id(omp_lock_t *l, const char *fn)
{
    if (!l || l->id < 1 || l->id > TSR_MAX_LOCKS - LOCK_USER)
        omp_refuse(NULL, fn, "the lock was not initialized by omp_init_lock");
    return LOCK_USER + (int)l->id - 1;
}

static uintptr_t new_lock(const char *fn)
{
    if (!omp_sh)
        omp_refuse(NULL, fn, "called before main");
    if (omp_me.spread)
        tsr_lock(LOCK_ALLOCATE);
    uint32_t n = ++omp_sh->user_locks;
    if (omp_me.spread)
        tsr_unlock(LOCK_ALLOCATE);
    if (n > TSR_MAX_LOCKS - LOCK_USER)
        omp_refuse(NULL, fn, "more than 2048 locks initialized");
    return n;
}

OMP_API void omp_init_lock(omp_lock_t *l) { l->id = new_lock("omp_init_lock"); }

OMP_API void omp_destroy_lock(omp_lock_t *l)
{
    lock_id(l, "omp_destroy_lock");
    l->id = 0;
}

/* Unlike critical sections, a lock is taken even in sequential code: it
 * may be set there and unset inside a region. */
OMP_API void omp_set_lock(omp_lock_t *l) { tsr_lock(lock_id(l, "omp_set_lock")); }
OMP_API void omp_unset_lock(omp_lock_t *l) { tsr_unlock(lock_id(l, "omp_unset_lock")); }
/* One round trip to the lock's manager, which refuses a held lock rather
 * than queue the try (sync/lock_manager.c). Replicated sequential code
 * runs the master's one thread on every node, and each copy must get the
 * master's answer, not the one its turn at the manager gives: there no
 * other thread runs, so the copies take the lock in turn, as omp_set_lock
 * does there, and all answer 1. */
static int try_lock(int id)
{
    if (omp_replicate && !omp_me.spread) {
        tsr_lock(id);
        return 1;
    }
    return tsr_trylock(id);
}

OMP_API int omp_test_lock(omp_lock_t *l) { return try_lock(lock_id(l, "omp_test_lock")); }

/* A nestable lock: its holder may set it again. The holder and the depth
 * live in the lock variable; only the holder writes them, under the lock,
 * and clears the holder before it lets the lock go, so a thread that reads
 * itself there holds the lock. Threads of one node read the holder while
 * another writes it: single loads and stores (is_holder, set_holder). */
typedef struct omp_nest_lock_t {
    omp_lock_t lock;
    int holder; /* thread number plus one, 0 when free */
    int depth;
} omp_nest_lock_t;

OMP_API void omp_init_nest_lock(omp_nest_lock_t *l)
{
    *l = (omp_nest_lock_t){.lock.id = new_lock("omp_init_nest_lock")};
}

OMP_API void omp_destroy_nest_lock(omp_nest_lock_t *l)
{
    lock_id(&l->lock, "omp_destroy_nest_lock");
    l->lock.id = 0;
}

static int is_holder(const omp_nest_lock_t *l)
{
    return __atomic_load_n(&l->holder, __ATOMIC_RELAXED) == omp_me.tid + 1;
}

static void set_holder(omp_nest_lock_t *l, int tid_plus_1)
{
    __atomic_store_n(&l->holder, tid_plus_1, __ATOMIC_RELAXED);
}

OMP_API void omp_set_nest_lock(omp_nest_lock_t *l)
{
    int id = lock_id(&l->lock, "omp_set_nest_lock");
    if (!is_holder(l)) {
        tsr_lock(id);
        set_holder(l, omp_me.tid + 1);
    }
    l->depth++;
}

/* The new nesting depth, or 0 if another thread holds the lock. */
OMP_API int omp_test_nest_lock(omp_nest_lock_t *l)
{
    int id = lock_id(&l->lock, "omp_test_nest_lock");
    if (!is_holder(l)) {
        if (!try_lock(id))
            return 0;
        set_holder(l, omp_me.tid + 1);
    }
    return ++l->depth;
}

OMP_API void omp_unset_nest_lock(omp_nest_lock_t *l)
{
    int id = lock_id(&l->lock, "omp_unset_nest_lock");
    if (!is_holder(l) || l->depth < 1)
        omp_refuse(NULL, "omp_unset_nest_lock", "the lock is not held by this thread");
    if (--l->depth == 0) {
        set_holder(l, 0);
        tsr_unlock(id);
    }
}
