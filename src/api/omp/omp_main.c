/*
 * omp_main.c - the job around an unmodified OpenMP program, and its
 * parallel regions.
 *
 * tsrcc -fopenmp links with --wrap=main: __wrap_main starts Tessera, and
 * only node 0 runs the program's main; the other nodes wait in tsr_serve
 * for its forks, as TreadMarks' slaves wait for Tmk_fork. A parallel
 * region is one tsr_fork of run_region, which every node runs as thread
 * `node` of the team, and one tsr_join: 2(N-1) messages.
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
omp_team omp_me = {.nthreads = 1};
int omp_replicate;
int omp_default_threads = 1;
static int pending_threads; /* num_threads(n) of the next region */

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

static int env_threads(void)
{
    const char *s = getenv("OMP_NUM_THREADS");
    if (!s || !*s)
        return tsr_nodes();
    char *end;
    long n = strtol(s, &end, 10);
    /* A list ("4,2") sets nested levels too; nested regions are serialized. */
    if (end == s || (*end && *end != ',') || n < 1)
        omp_refuse(NULL, "OMP_NUM_THREADS", "not a positive number");
    if (n != 1 && n != tsr_nodes())
        omp_die("OMP_NUM_THREADS=%ld, but the job has %d nodes: a team is one thread per node "
                "(OMP_NUM_THREADS=%d) or 1", n, tsr_nodes(), tsr_nodes());
    return (int)n;
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

/* Calls a region's outlined function with its n shared variables. The
 * x86-64 and AArch64 calling conventions let a caller pass more arguments
 * than the callee reads (the caller removes them), so one call with
 * MAX_ARGS covers every n, where libomp switches on n. */
#if !defined(__x86_64__) && !defined(__aarch64__)
#error "omp_main.c: call_region relies on the x86-64 or AArch64 calling convention"
#endif
static void call_region(kmpc_micro fn, int32_t tid, void *const *a)
{
    int32_t gtid = tid, btid = tid;
    fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
       a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24],
       a[25], a[26], a[27], a[28], a[29], a[30], a[31]);
}

/* What tsr_fork runs on every node. */
static void run_region(void *arg)
{
    omp_shared *sh = arg;
    void *args[MAX_ARGS];
    memcpy(args, sh->args, sizeof args);
    omp_me = (omp_team){.level = 1, .nthreads = (int)sh->nthreads, .tid = tsr_node(),
                        .spread = sh->nthreads > 1, .gen = sh->gen};
    void *outer = omp_frames_own();
    call_region(sh->fn, omp_me.tid, args);
    omp_frames_back(outer);
    omp_me = (omp_team){.nthreads = 1};
}

static void run_serialized(kmpc_micro fn, void *const *args)
{
    omp_team outer = omp_me;
    omp_me.level++;
    omp_me.nthreads = 1;
    omp_me.tid = 0;
    call_region(fn, 0, args);
    omp_me = outer;
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
    if (omp_sh && n > tsr_nodes())
        n = tsr_nodes(); /* fewer threads than asked: the standard lets an implementation */
    if (!omp_sh || omp_me.level > 0 || n == 1) {
        run_serialized(fn, args);
        return;
    }
    if (n != tsr_nodes())
        omp_refuse(loc, "parallel num_threads",
                   "a team smaller than the job (one thread per node; use tsrun -n with the team size)");
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
}

OMP_API void __kmpc_end_serialized_parallel(const ident_t *loc, int32_t gtid)
{
    /* Back to the enclosing team: the region's, or the sequential part's. */
    omp_me.level--;
    omp_me.nthreads = omp_me.level == 1 && omp_me.spread ? (int)omp_sh->nthreads : 1;
    omp_me.tid = omp_me.nthreads > 1 ? tsr_node() : 0;
}

OMP_API int32_t __kmpc_global_thread_num(const ident_t *loc) { return omp_me.tid; }

OMP_API int32_t __kmpc_ok_to_fork(const ident_t *loc) { return 1; }

OMP_API void __kmpc_barrier(const ident_t *loc, int32_t gtid)
{
    if (omp_me.nthreads > 1)
        tsr_barrier();
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
    tsr_barrier();
    if (!didit)
        copy(list, omp_sh->copyprivate);
    tsr_barrier();
}

/* single: thread 0 runs it, which needs no message (any thread may). */
OMP_API int32_t __kmpc_single(const ident_t *loc, int32_t gtid) { return omp_me.tid == 0; }
OMP_API void __kmpc_end_single(const ident_t *loc, int32_t gtid) {}
