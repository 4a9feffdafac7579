/*
 * tmk.h - TreadMarks 1.0's programming interface, on Tessera. A program
 * written for TreadMarks compiles unchanged against this header and links
 * with libtessera (`pkg-config --cflags --libs tessera`); start it with
 * `tsrun -n N prog`, or alone as a one-process job.
 *
 * What differs from TreadMarks, and why:
 *  - Memory from Tmk_malloc is kept by Tessera's home-based lazy release
 *    consistency, homed at the allocating process, because Tessera does not
 *    have TreadMarks' homeless protocol yet. Programs see the same
 *    consistency (a write is visible after the next lock acquire or barrier
 *    that follows its release); only the messages differ. When the homeless
 *    protocol (TSR_PROTO_LRC) lands, Tmk_malloc memory will use it.
 *  - Every barrier id names the one global barrier: all processes must
 *    pass the same sequence of barriers, as TreadMarks programs do.
 *  - Lock ids are 0 .. TMK_NLOCKS-1.
 *  - Tmk_distribute needs every process to run the same binary: it finds
 *    the variable by its place in the program's loaded images, which holds
 *    under address-space randomization too.
 */
#ifndef TMK_H
#define TMK_H

#include "tessera.h" /* TSR_API */

#ifdef __cplusplus
extern "C" {
#endif

#define TMK_NLOCKS 4096

/* This process's id, 0 .. Tmk_nprocs-1, and the number of processes; set
 * by Tmk_startup. */
extern TSR_API unsigned Tmk_proc_id;
extern TSR_API unsigned Tmk_nprocs;

/* Joins the job; every process calls it first. */
TSR_API void Tmk_startup(int argc, char **argv);
/* Every process calls it last: waits for the others (a barrier), leaves the
 * job and ends the process with `status`. */
TSR_API void Tmk_exit(int status);

/* One process allocates shared memory alone; the others may use it once
 * the pointer reaches them through shared memory and a lock or barrier, or
 * through Tmk_distribute. Not zeroed. */
TSR_API char *Tmk_malloc(unsigned size);
/* Frees Tmk_malloc memory; only the process that allocated it may. */
TSR_API void Tmk_free(char *ptr);
/* Copies the caller's `size` private bytes at `ptr` (a global variable of
 * the program) to the same variable of every other process. They are
 * written there before Tmk_distribute returns, so they are visible after
 * the next barrier at the latest; a process must not use the variable
 * between its own last barrier and that one. */
TSR_API void Tmk_distribute(char *ptr, int size);

TSR_API void Tmk_lock_acquire(unsigned id);
TSR_API void Tmk_lock_release(unsigned id);
/* All processes; every write made before it is visible after it. */
TSR_API void Tmk_barrier(unsigned id);

/* Fork/join as TreadMarks has it for OpenMP: process 0 calls Tmk_fork,
 * which runs fn(arg) on every process, then Tmk_join, which waits for all;
 * the others wait in Tmk_serve (Tessera's tsr_serve: TreadMarks' slaves
 * wait inside Tmk_startup, which here returns on every process, so the
 * program says where they wait). Tmk_serve returns when process 0 calls
 * Tmk_exit. */
TSR_API void Tmk_fork(void (*fn)(void *arg), void *arg);
TSR_API void Tmk_join(void);
TSR_API void Tmk_serve(void);

#ifdef __cplusplus
}
#endif
#endif /* TMK_H */
