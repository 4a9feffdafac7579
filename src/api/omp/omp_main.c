/*
 * omp_main.c - the job around an unmodified OpenMP program, and its
 * parallel regions.
 *
 * tsrcc -fopenmp links with --wrap=main: __wrap_main starts Tessera, and
 * only node 0 runs the program's main; the other nodes wait in tsr_serve
 * for its forks, as TreadMarks' slaves wait for Tmk_fork. A parallel
 * region is one tsr_fork of run_region, which every node runs with its
 * share of the team's threads (omp_team.c), and one tsr_join: 2(N-1)
 * messages, whatever the threads per node.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_rt.h"

/* The program's globals are shared, without a TSR_SHARE_GLOBALS line of
 * its own (docs/GLOBALS.md). */
OMP_API const int tsr_share_globals_opt_in = 1;

omp_shared *omp_sh;
__thread omp_team omp_me = {.nthreads = 1, .node_n = 1};
int omp_replicate;
int omp_default_threads = 1;
static __thread int pending_threads; /* num_threads(n) of the next region */

void omp_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tessera openmp: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    /* Not exit: its tsr_finalize (finish) would wait for a team that is
     * stopping too. */
    fflush(NULL);
    _exit(2);
}

void omp_refuse(const ident_t *loc, const char *construct, const char *why)
{
    char file[256] = "?", fn[128] = "?";
    int line = 0;
    if (loc && loc->psource)
        sscanf(loc->psource, ";%255[^;];%127[^;];%d", file, fn, &line);
    omp_die("%s at %s:%d (in %s): %s", construct, file, line, fn, why);
}

/* The default team: OMP_NUM_THREADS, else TSR_THREADS on every node (the
 * node's cores, where a host runs one node). */
static int env_threads(void)
{
    const char *s = getenv("OMP_NUM_THREADS");
    if (!s || !*s)
        return omp_team_size((long)tsr_nodes() * tsr_threads(), "TSR_THREADS", NULL);
    char *end;
    long n = strtol(s, &end, 10);
    /* A list ("4,2") sets nested levels too; nested regions are serialized. */
    if (end == s || (*end && *end != ',') || n < 1)
        omp_refuse(NULL, "OMP_NUM_THREADS", "not a positive number");
    if (n != 1 && n < tsr_nodes())
        omp_die("OMP_NUM_THREADS=%ld, but the job has %d nodes: a team has at least one thread "
                "per node (OMP_NUM_THREADS=%d or more) or is 1", n, tsr_nodes(), tsr_nodes());
    return omp_team_size(n, "OMP_NUM_THREADS", NULL);
}

/* TSR_OMP_SEQUENTIAL: the sequential code on node 0 alone (master), or on
 * every node in replicated sections (replicate, OpenMP/NOW). */
static int env_replicate(void)
{
    const char *s = getenv("TSR_OMP_SEQUENTIAL");
    if (!s || !*s || !strcmp(s, "master"))
        return 0;
    if (strcmp(s, "replicate"))
        omp_die("TSR_OMP_SEQUENTIAL=%s: master or replicate", s);
    return 1;
}

static void finish(void)
{
    if (omp_replicate)
        tsr_replicate_end();
    tsr_finalize();
}

int __real_main(int argc, char **argv, char **envp);

OMP_API int __wrap_main(int argc, char **argv, char **envp)
{
    tsr_init(&argc, &argv);
    omp_sh = tsr_alloc(sizeof *omp_sh);
    omp_default_threads = env_threads();
    omp_replicate = env_replicate();
    omp_mem_init();
    omp_loop_init();
    if (omp_replicate) {
        /* Every node runs main; what it prints appears once, node 0's. */
        if (tsr_node() != 0 && !freopen("/dev/null", "w", stdout))
            omp_die("TSR_OMP_SEQUENTIAL=replicate: cannot silence node %d's output", tsr_node());
        tsr_replicate_begin();
    } else if (tsr_node() != 0) {
        tsr_serve();
        tsr_finalize();
        return 0;
    }
    /* exit() from anywhere in the program ends the job too. */
    atexit(finish);
    return __real_main(argc, argv, envp);
}

/* What tsr_fork runs on every node: the node's share of the team. */
static void run_region(void *arg)
{
    omp_shared *sh = arg;
    omp_region r = {.fn = sh->fn, .nthreads = (int)sh->nthreads, .gen = sh->gen};
    memcpy(r.args, sh->args, sizeof r.args);
    int nodes = tsr_nodes(), node = tsr_node(), q = r.nthreads / nodes, extra = r.nthreads % nodes;
    r.first = node * q + (node < extra ? node : extra);
    r.node_n = q + (node < extra);
    omp_team_run(&r);
}

static void run_serialized(kmpc_micro fn, void *const *args)
{
    __kmpc_serialized_parallel(NULL, omp_me.tid);
    omp_call_region(fn, 0, args);
    __kmpc_end_serialized_parallel(NULL, 0);
}

OMP_API void __kmpc_fork_call(const ident_t *loc, int32_t argc, kmpc_micro fn, ...)
{
    if (argc < 0 || argc > MAX_ARGS)
        omp_refuse(loc, "parallel", "a region sharing more than 32 variables");
    void *args[MAX_ARGS] = {0};
    va_list ap;
    va_start(ap, fn);
    for (int i = 0; i < argc; i++)
        args[i] = va_arg(ap, void *);
    va_end(ap);
    int n = pending_threads ? pending_threads : omp_default_threads;
    pending_threads = 0;
    /* Before main (a constructor) there is no job yet: a team of one. */
    if (!omp_sh || omp_me.level > 0 || n == 1) {
        run_serialized(fn, args);
        return;
    }
    /* The standard lets an implementation give fewer threads than asked. */
    if (n > tsr_nodes() * MAX_NODE_THREADS)
        n = tsr_nodes() * MAX_NODE_THREADS;
    omp_team_size(n, "parallel num_threads", loc);
    omp_sh->fn = fn;
    omp_sh->argc = (uint32_t)argc;
    omp_sh->nthreads = (uint32_t)n;
    omp_sh->gen++;
    memcpy(omp_sh->args, args, sizeof args);
    tsr_fork(run_region, omp_sh);
    tsr_join();
}

OMP_API void __kmpc_push_num_threads(const ident_t *loc, int32_t gtid, int32_t n)
{
    if (n < 1)
        omp_refuse(loc, "num_threads", "the number of threads must be positive");
    pending_threads = n;
}

OMP_API void __kmpc_serialized_parallel(const ident_t *loc, int32_t gtid)
{
    omp_me.level++;
    omp_me.nthreads = 1;
    omp_me.tid = 0;
    omp_me.node_n = 1;
    omp_me.local = 0;
}

OMP_API void __kmpc_end_serialized_parallel(const ident_t *loc, int32_t gtid)
{
    /* Back to the enclosing team: the region's, or the sequential part's. */
    omp_me.level--;
    int outer = omp_me.level == 1 && omp_me.spread;
    omp_me.nthreads = outer ? omp_me.team_n : 1;
    omp_me.tid = outer ? omp_me.team_tid : 0;
    omp_me.node_n = outer ? omp_me.team_node_n : 1;
    omp_me.local = outer ? omp_me.team_local : 0;
}

OMP_API int32_t __kmpc_global_thread_num(const ident_t *loc) { return omp_me.tid; }

OMP_API int32_t __kmpc_ok_to_fork(const ident_t *loc) { return 1; }

OMP_API void __kmpc_barrier(const ident_t *loc, int32_t gtid)
{
    if (omp_me.nthreads > 1)
        tsr_barrier_threads(omp_me.node_n);
}

OMP_API int32_t __kmpc_master(const ident_t *loc, int32_t gtid) { return omp_me.tid == 0; }
OMP_API void __kmpc_end_master(const ident_t *loc, int32_t gtid) {}

OMP_API int32_t __kmpc_masked(const ident_t *loc, int32_t gtid, int32_t filter)
{
    return omp_me.tid == filter;
}
OMP_API void __kmpc_end_masked(const ident_t *loc, int32_t gtid) {}

/* single copyprivate: the thread that ran the single publishes the list of
 * its variables' addresses (in its frame stack, shared: the list holds
 * them, so the pass moved them there), and each other thread copies their
 * values with the compiler's function. The second barrier keeps the
 * variables alive until every thread has copied them. */
OMP_API void __kmpc_copyprivate(const ident_t *loc, int32_t gtid, size_t size, void *list,
                                void (*copy)(void *dst, void *src), int32_t didit)
{
    if (omp_me.nthreads == 1)
        return;
    if (size > sizeof omp_sh->copyprivate)
        omp_refuse(loc, "single copyprivate", "more than 32 variables");
    if (didit)
        memcpy(omp_sh->copyprivate, list, size);
    __kmpc_barrier(loc, gtid);
    if (!didit)
        copy(list, omp_sh->copyprivate);
    __kmpc_barrier(loc, gtid);
}

/* single: thread 0 runs it, which needs no message (any thread may). */
OMP_API int32_t __kmpc_single(const ident_t *loc, int32_t gtid) { return omp_me.tid == 0; }
OMP_API void __kmpc_end_single(const ident_t *loc, int32_t gtid) {}
