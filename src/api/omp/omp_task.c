/*
 * omp_task.c - tasks, run undeferred: a task runs to completion where it is
 * created, by the thread that creates it, which the standard allows (any
 * task may be undeferred). Program order then satisfies every dependence,
 * taskwait and taskgroup have nothing left to wait for, and a task's
 * memory, which only that thread touches, can be private.
 */
#include <stdlib.h>

#include "omp_rt.h"

/* libomp's kmp_task_t (kmp.h): what the compiler fills and reads. */
typedef struct kmp_task {
    void *shareds;
    int32_t (*routine)(int32_t gtid, struct kmp_task *task);
    int32_t part_id;
} kmp_task_t;

/* The flags the compiler passes to __kmpc_omp_task_alloc (kmp_tasking_flags_t). */
enum { TASK_TIED = 1, TASK_DETACHABLE = 1 << 6 };

OMP_API kmp_task_t *__kmpc_omp_task_alloc(const ident_t *loc, int32_t gtid, int32_t flags,
                                          size_t task_size, size_t shareds_size,
                                          int32_t (*routine)(int32_t, kmp_task_t *))
{
    /* An untied task re-enqueues itself at each scheduling point, expecting
     * to resume later; run at once, it would be freed twice. */
    if (!(flags & TASK_TIED))
        omp_refuse(loc, "task untied", "untied tasks are not supported");
    if (flags & TASK_DETACHABLE)
        omp_refuse(loc, "task detach", "detachable tasks are not supported");
    size_t head = (task_size + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
    if (task_size < sizeof(kmp_task_t) || head > SIZE_MAX - shareds_size)
        omp_refuse(loc, "task", "the compiler's task layout is not libomp's");
    kmp_task_t *t = calloc(1, head + shareds_size);
    if (!t)
        omp_die("task: no memory for a task of %zu bytes", head + shareds_size);
    t->shareds = shareds_size ? (char *)t + head : NULL;
    t->routine = routine;
    return t;
}

OMP_API int32_t __kmpc_omp_task(const ident_t *loc, int32_t gtid, kmp_task_t *t)
{
    t->routine(gtid, t);
    free(t);
    return 0;
}

OMP_API int32_t __kmpc_omp_task_with_deps(const ident_t *loc, int32_t gtid, kmp_task_t *t,
                                          int32_t ndeps, void *deps, int32_t nnoalias,
                                          void *noalias)
{
    return __kmpc_omp_task(loc, gtid, t);
}

/* if(0): the compiler calls the task's routine itself between these. */
OMP_API void __kmpc_omp_task_begin_if0(const ident_t *loc, int32_t gtid, kmp_task_t *t) {}
OMP_API void __kmpc_omp_task_complete_if0(const ident_t *loc, int32_t gtid, kmp_task_t *t)
{
    free(t);
}

OMP_API void __kmpc_omp_wait_deps(const ident_t *loc, int32_t gtid, int32_t ndeps, void *deps,
                                  int32_t nnoalias, void *noalias)
{
}

OMP_API int32_t __kmpc_omp_taskwait(const ident_t *loc, int32_t gtid) { return 0; }
OMP_API int32_t __kmpc_omp_taskyield(const ident_t *loc, int32_t gtid, int end_part) { return 0; }
OMP_API void __kmpc_taskgroup(const ident_t *loc, int32_t gtid) {}
OMP_API void __kmpc_end_taskgroup(const ident_t *loc, int32_t gtid) {}
