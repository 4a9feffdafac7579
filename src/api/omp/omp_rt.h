/*
 * omp_rt.h - what the parts of Tessera's OpenMP runtime share
 * (docs/OPENMP.md). The runtime is libtessera_omp.a: the entry points that
 * clang's -fopenmp code calls (libomp's ABI, __kmpc_*), the omp_* routines,
 * and the calls tsrcc's pass puts into the program (tsr_omp_*). It is built
 * on Tessera's public API only: a parallel region is one tsr_fork and one
 * tsr_join, the team's consecutive thread numbers spread over the nodes,
 * each node running its share on the thread tsr_fork calls and on threads
 * of its pool (omp_team.c).
 */
#ifndef TSR_OMP_RT_H
#define TSR_OMP_RT_H

#include <stdint.h>

#include "tessera.h"

/* The names the program calls; everything else stays inside the library. */
#define OMP_API __attribute__((visibility("default")))

/* libomp's source location: psource is ";file;function;line;column;;". */
typedef struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident_t;

typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);

/* Lock ids (0 <= id < TSR_MAX_LOCKS): the program makes no tsr_lock call
 * of its own, so the runtime has them all. */
enum {
    LOCK_ATOMIC = 0,        /* atomic read-modify-writes on shared memory */
    LOCK_ALLOCATE = 1,      /* the counter omp_init_lock draws from */
    LOCK_SLOTS = 64,        /* one per dispatch slot */
    LOCK_CRITICAL = 256,    /* critical sections, by their name's address */
    LOCK_USER = 2048,       /* omp_lock_t */
};

#define MAX_ARGS 32  /* variables a parallel region may share */
#define MAX_NODE_THREADS 256 /* threads of a team on one node */
#define SLOTS 64     /* dynamic loops a thread may run ahead of another */

/* A dynamic, guided or ordered loop's state, shared by the team: loop
 * `seq` of region `gen` (every thread meets the loops in the same order). */
typedef struct slot {
    uint64_t gen, seq, next;
    uint64_t ordered; /* an ordered loop's iteration whose ordered region is next */
} slot;

/* The job's shared block (tsr_alloc at start-up, one page). */
typedef struct omp_shared {
    kmpc_micro fn;          /* the region node 0 forks */
    uint32_t argc;
    uint32_t nthreads;
    uint64_t gen;           /* regions forked so far */
    void *args[MAX_ARGS];
    uint32_t user_locks;    /* omp_lock_t ids handed out */
    void *copyprivate[MAX_ARGS]; /* the single's thread's list of its variables */
    slot slots[SLOTS];
} omp_shared;

/* A region as a node runs it: what node 0 forked, and the node's share. */
typedef struct omp_region {
    kmpc_micro fn;
    void *args[MAX_ARGS];
    int nthreads;      /* the team */
    int first;         /* the number of the node's first thread in it */
    int node_n;        /* the node's threads in it */
    uint64_t gen;
} omp_region;

/* A thread's view of the team it runs in (thread-local). */
typedef struct omp_team {
    int level;         /* parallel regions entered (nested ones are serialized) */
    int nthreads;      /* the innermost team's size */
    int tid;           /* this thread's number in it */
    int spread;        /* the outermost team is more than one thread (locks needed) */
    int node_n;        /* threads of the innermost team on this node */
    int local;         /* this thread's number among them (0: tsr_fork's thread) */
    /* the outermost team's nthreads, tid, node_n and local, which a nested
     * region's end restores */
    int team_n, team_tid, team_node_n, team_local;
    uint64_t gen;      /* the outermost region's generation */
    uint64_t loops;    /* dynamic loops met in it */
} omp_team;

extern omp_shared *omp_sh;
extern __thread omp_team omp_me;
extern int omp_default_threads;   /* OMP_NUM_THREADS, or the job's nodes times TSR_THREADS */
extern int omp_replicate;         /* TSR_OMP_SEQUENTIAL=replicate */
extern int omp_run_sched, omp_run_chunk; /* OMP_SCHEDULE */

/* Stops the job with the message (printf's format), status 2. */
__attribute__((noreturn, format(printf, 1, 2))) void omp_die(const char *fmt, ...);
/* Stops the job naming the construct and its source line. */
__attribute__((noreturn)) void omp_refuse(const ident_t *loc, const char *construct,
                                          const char *why);
void __kmpc_barrier(const ident_t *loc, int32_t gtid);
void __kmpc_serialized_parallel(const ident_t *loc, int32_t gtid);
void __kmpc_end_serialized_parallel(const ident_t *loc, int32_t gtid);
void omp_mem_init(void);
/* A region's frames go to the node's own stack (omp_frames_own returns
 * what omp_frames_back restores): replicated sequential code keeps its
 * frames on a stack at the same addresses on every node. */
void *omp_frames_own(void);
void omp_frames_back(void *outer);
/* Gives the calling pool thread a frame stack of its own. */
void omp_frames_start(void);
void omp_loop_init(void);
/* The team size that OMP_NUM_THREADS, omp_set_num_threads or a
 * num_threads clause (`what`) asks for, checked: 1, or at least the job's
 * nodes and at most MAX_NODE_THREADS per node. */
int omp_team_size(long n, const char *what, const ident_t *loc);
/* Calls a region's outlined function as thread tid, with its arguments. */
void omp_call_region(kmpc_micro fn, int32_t tid, void *const *args);
/* Runs the region on the node's share of the team, the calling thread
 * being the node's first, the pool's threads the others; returns when all
 * are done. */
void omp_team_run(const omp_region *r);
/* A reduction's first step: combines the private copies (`data`) of the
 * node's threads into its first thread's; 1 there, 0 on the others once
 * theirs are combined. */
int omp_team_combine(void *data, void (*combine)(void *, void *));

#endif
