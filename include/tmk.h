/*
 * tmk.h (also installed as Tmk.h, the distribution's name) - TreadMarks
 * 1.0's programming interface, on Tessera. A program written for TreadMarks
 * compiles unchanged against this header and links with libtessera:
 *
 *   cc -std=gnu89 prog.c -o prog $(pkg-config --cflags --libs tessera)
 *   tsrun -n 4 ./prog         (or ./prog alone: a one-process job)
 *
 * K&R programs (implicit int main, K&R definitions, library calls without
 * their headers, as TreadMarks' examples are) need -std=gnu89, or
 * -Wno-implicit-int -Wno-implicit-function-declaration: C99 and later made
 * those errors in clang 16 and gcc 14, warnings in gcc 12.
 *
 * Call by call, what differs from TreadMarks and why:
 *  - Tmk_proc_id, Tmk_nprocs, Tmk_page_size, Tmk_npages are variables, not
 *    macros over the Fortran common block tmk_ (no Fortran binding here).
 *  - Tmk_malloc, Tmk_sbrk: TreadMarks' homeless lazy release consistency
 *    (Tessera's TSR_PROTO_LRC) keeps the memory, as in TreadMarks. Tmk_sbrk
 *    is Tmk_malloc (memory that is never freed), not a separate arena.
 *  - Tmk_barrier(id): every id names the one global barrier (ids must be
 *    below TMK_NBARRIERS, as TreadMarks checks); all processes must pass
 *    the same sequence of barriers, as TreadMarks programs do.
 *  - Lock ids are 0 .. TMK_NLOCKS-1 (4096, TreadMarks had 1024); condition
 *    ids 0 .. TMK_NCONDS-1 per lock, as in TreadMarks.
 *  - Tmk_distribute needs every process to run the same binary: it finds
 *    the variable by its place in the program's loaded images, which holds
 *    under address-space randomization too. At most 64 MiB per call.
 *  - Tmk_sched_start(manager): only process 0 may manage (Tessera's
 *    fork/join master); the argument of Tmk_sched_fork is copied to every
 *    process, as TreadMarks copies it in its fork message.
 *  - Tmk_stat holds Tessera's counters, read at each Tmk_barrier, lock and
 *    condition call and Tmk_sched_* call; Tessera has no retransmissions on
 *    its default transports nor TreadMarks' garbage collection "repos"
 *    (it collects under TSR_LRC_GC_BYTES), so rexmits and repos stay 0,
 *    and messages_for_acquires is not told apart from the rest.
 *  - Tmk_errexit and Tmk_perrexit stop the whole job with the message
 *    (TreadMarks stopped the calling process, and the others with it).
 *  - TMK_NPAGES is TreadMarks' constant; Tmk_npages is the number of pages
 *    of Tessera's shared region, which has no such limit.
 *  - Tmk_fork, Tmk_join, Tmk_serve are Tessera's (tsr_fork), not TreadMarks'.
 */
#ifndef TMK_H
#define TMK_H

#include "tessera.h" /* TSR_API */

#ifdef __cplusplus
extern "C" {
#endif

#define TMK_NPROCS 4096 /* Tessera's most nodes; TreadMarks had 32 */
#define TMK_NPAGES 16384
#define TMK_NBARRIERS 32
#define TMK_NCONDS 4
#define TMK_NLOCKS 4096

/* This process's id, 0 .. Tmk_nprocs-1, the number of processes, the page
 * size and the shared region's pages; set by Tmk_startup. */
extern TSR_API unsigned Tmk_proc_id;
extern TSR_API unsigned Tmk_nprocs;
extern TSR_API unsigned Tmk_page_size;
extern TSR_API unsigned Tmk_npages;

/* This process's counters since Tmk_startup (see above for when). */
struct Tmk_stat {
    unsigned acquires;
    unsigned acquire_time; /* microseconds */
    unsigned arrivals;
    unsigned broadcasts;
    unsigned signals;
    unsigned waits;
    unsigned bytes;
    unsigned bytes_of_data; /* bytes of the pages fetched whole */
    unsigned cold_misses;   /* pages fetched whole */
    unsigned messages;
    unsigned messages_for_acquires;
    unsigned rexmits;
    unsigned diffs;
    unsigned twins;
    unsigned repos;
    unsigned total_diff_size; /* bytes */
};
extern TSR_API struct Tmk_stat Tmk_stat;

/* Tmk_sched_fork's argument, copied to every process. */
struct Tmk_sched_arg {
    int sharedLen;
    int byvalueLen;
    void *shared[15];
    union {
        short short_by_value;
        int int_by_value;
        long long_by_value;
        float float_by_value;
        double double_by_value;
    } byvalue[15];
};
typedef struct Tmk_sched_arg *Tmk_sched_arg_t;

/* Joins the job; every process calls it first. */
TSR_API void Tmk_startup(int argc, char *const *argv);
/* Every process calls it last: waits for the others (a barrier), leaves the
 * job and ends the process with `status`. */
TSR_API void Tmk_exit(int status) __attribute__((noreturn));

/* Prints the message (printf-style) and stops every process of the job. */
TSR_API void Tmk_errexit(const char *format, ...)
    __attribute__((format(printf, 1, 2), noreturn));
/* Prints the message to standard error. */
TSR_API void Tmk_err(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* As perror(s), then stops every process of the job. */
TSR_API void Tmk_perrexit(const char *s) __attribute__((noreturn));

/* All processes; every write made before it is visible after it. */
TSR_API void Tmk_barrier(unsigned barrier_id);
TSR_API void Tmk_lock_acquire(unsigned lock_id);
TSR_API void Tmk_lock_release(unsigned lock_id);
/* Condition variables bound to a lock, which the caller holds. Wait
 * releases the lock, sleeps until a signal or broadcast on (lock, cond)
 * made after it, and takes the lock again; signal wakes the longest
 * waiting process, broadcast all; either is lost if nobody waits. */
TSR_API void Tmk_lock_cond_wait(unsigned lock_id, unsigned cond_id);
TSR_API void Tmk_lock_cond_signal(unsigned lock_id, unsigned cond_id);
TSR_API void Tmk_lock_cond_broadcast(unsigned lock_id, unsigned cond_id);

/* Copies the caller's `size` private bytes at `ptr` (a global variable of
 * the program) to the same variable of every other process. They are
 * written there before Tmk_distribute returns, so they are visible after
 * the next barrier at the latest; a process must not use the variable
 * between its own last barrier and that one. */
TSR_API void Tmk_distribute(const void *ptr, int size);
/* One process allocates shared memory alone; the others may use it once
 * the pointer reaches them through shared memory and a lock or barrier, or
 * through Tmk_distribute. Not zeroed. */
TSR_API void *Tmk_malloc(unsigned size);
/* Frees Tmk_malloc memory; only the process that allocated it may. */
TSR_API void Tmk_free(void *ptr);
TSR_API void *Tmk_sbrk(unsigned incr);

/* TreadMarks' loop scheduling (fork/join). Every process calls
 * Tmk_sched_start(0): process 0 returns 1 once every other process waits
 * (and again after each fork, once all have finished it); the others run
 * each function process 0 forks, and return 0 when it calls
 * Tmk_sched_exit. Tmk_sched_fork(func, arg), on process 0, runs func on
 * every process, process 0 included, with a copy of *arg. */
TSR_API int Tmk_sched_start(unsigned proc_id);
TSR_API void Tmk_sched_fork(void (*func)(Tmk_sched_arg_t arg), Tmk_sched_arg_t arg);
TSR_API void Tmk_sched_exit(void);

/* Fork/join as Tessera has it (tsr_fork): process 0 calls Tmk_fork, which
 * runs fn(arg) on every process, then Tmk_join, which waits for all; the
 * others wait in Tmk_serve, which returns when process 0 calls Tmk_exit. */
TSR_API void Tmk_fork(void (*fn)(void *arg), void *arg);
TSR_API void Tmk_join(void);
TSR_API void Tmk_serve(void);

#ifdef __cplusplus
}
#endif
#endif /* TMK_H */
