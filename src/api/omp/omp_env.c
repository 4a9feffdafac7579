/*
 * omp_env.c - the omp_* routines (include/omp/omp.h), and the refusal of
 * the libomp entry points whose constructs Tessera does not run: they stop
 * the job at their first execution naming the construct and its line,
 * rather than run wrongly (docs/OPENMP.md lists them).
 */
#include <time.h>
#include <unistd.h>

#include "omp_rt.h"

OMP_API int omp_get_thread_num(void) { return omp_me.tid; }
OMP_API int omp_get_num_threads(void) { return omp_me.nthreads; }
/* nthreads-var, as libomp answers even inside a region (where a nested
 * region would still get one thread: nested regions are serialized). */
OMP_API int omp_get_max_threads(void) { return omp_default_threads; }
/* The job's processors as the team rule counts them: TSR_THREADS a node. */
OMP_API int omp_get_num_procs(void) { return omp_sh ? tsr_nodes() * tsr_threads() : 1; }
OMP_API int omp_in_parallel(void) { return omp_me.level > 0 && omp_me.spread; }
OMP_API int omp_get_level(void) { return omp_me.level; }
OMP_API int omp_get_dynamic(void) { return 0; }
OMP_API int omp_get_nested(void) { return 0; }

OMP_API void omp_set_num_threads(int n)
{
    if (!omp_sh)
        omp_refuse(NULL, "omp_set_num_threads", "called before main, where the job's size is "
                   "not known yet");
    omp_default_threads = omp_team_size(n, "omp_set_num_threads", NULL);
}

OMP_API double omp_get_wtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

OMP_API double omp_get_wtick(void)
{
    struct timespec t;
    clock_getres(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* proc_bind places threads on cores; the node's threads are left where
 * the kernel puts them. */
OMP_API void __kmpc_push_proc_bind(const ident_t *loc, int32_t gtid, int proc_bind) {}

/* One entry point that is refused; the arguments after loc are not read. */
#define REFUSED(entry, construct, why) \
    OMP_API void entry(const ident_t *loc) { omp_refuse(loc, construct, why); }

REFUSED(__kmpc_flush, "flush",
        "a flush alone carries no write between nodes; use a critical section or a barrier")
REFUSED(__kmpc_doacross_init, "ordered(n)", "doacross loops are not supported")
REFUSED(__kmpc_doacross_wait, "ordered depend(sink)", "doacross loops are not supported")
REFUSED(__kmpc_doacross_post, "ordered depend(source)", "doacross loops are not supported")
REFUSED(__kmpc_doacross_fini, "ordered(n)", "doacross loops are not supported")
REFUSED(__kmpc_taskloop, "taskloop", "taskloop is not supported")
REFUSED(__kmpc_threadprivate_cached, "threadprivate", "threadprivate is not supported")
REFUSED(__kmpc_threadprivate_register, "threadprivate", "threadprivate is not supported")
REFUSED(__kmpc_cancel, "cancel", "cancellation is not supported")
REFUSED(__kmpc_cancellationpoint, "cancellation point", "cancellation is not supported")
REFUSED(__kmpc_cancel_barrier, "cancel", "cancellation is not supported")
REFUSED(__kmpc_fork_teams, "teams", "teams are not supported")
REFUSED(__kmpc_push_num_teams, "teams", "teams are not supported")
REFUSED(__kmpc_dist_for_static_init_4, "distribute parallel for", "distribute is not supported")
REFUSED(__kmpc_dist_for_static_init_8, "distribute parallel for", "distribute is not supported")
REFUSED(__kmpc_init_allocator, "allocator", "OpenMP allocators are not supported")
REFUSED(__kmpc_alloc, "allocate", "OpenMP allocators are not supported")
REFUSED(__kmpc_scope, "scope", "the scope construct is not supported")
