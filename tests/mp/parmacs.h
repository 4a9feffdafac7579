/*
 * parmacs.h - a PARMACS macro file for Tessera, as SPLASH programs expect
 * one (the m4 macros of c.m4.null, as C macros), for programs whose shared
 * state is in ordinary globals (docs/GLOBALS.md), which it shares
 * (TSR_SHARE_GLOBALS; below).
 *
 * SPLASH's master sets up globals and G_MALLOCs shared data, then CREATEs
 * the other processes. Under tsrun every node runs main: MAIN_INITENV
 * joins the job (sharing the globals); the nodes
 * other than 0 then wait until the master's first CREATE, call the function
 * it names (read from a shared global: one address layout per job makes
 * the pointer valid on every node), and end with WAIT_FOR_END's barrier.
 * The master sees the first CREATE release them and the others do nothing.
 */
#ifndef PARMACS_H
#define PARMACS_H

#include <stdlib.h>
#include <sys/time.h>

#include "tessera.h"

void (*parmacs_created)(void); /* the function the master CREATEs */
int parmacs_next_lock;         /* lock ids LOCKINIT hands out */

#define MAIN_ENV TSR_SHARE_GLOBALS;
#define EXTERN_ENV
#define MAIN_INITENV()                                                   \
    do {                                                                 \
        tsr_init(&argc, &argv);                                          \
        if (tsr_node() != 0) {                                           \
            tsr_barrier();     /* the master's first CREATE */          \
            parmacs_created();                                           \
            tsr_barrier();     /* the master's WAIT_FOR_END */          \
            tsr_finalize();                                              \
            exit(0);                                                     \
        }                                                                \
    } while (0)
#define MAIN_END tsr_finalize()
#define CREATE(fn)                                                       \
    do {                                                                 \
        if (!parmacs_created) {                                          \
            parmacs_created = (fn);                                      \
            tsr_barrier();                                               \
        }                                                                \
    } while (0)
#define WAIT_FOR_END(n) tsr_barrier()
#define G_MALLOC(size) tsr_malloc(size)
#define G_FREE(ptr) tsr_free_local(ptr)
#define LOCKDEC(l) int l;
#define LOCKINIT(l) ((l) = parmacs_next_lock++)
#define LOCK(l) tsr_lock(l)
#define UNLOCK(l) tsr_unlock(l)
#define BARDEC(b) int b;
#define BARINIT(b) ((b) = 0)
#define BARRIER(b, n) tsr_barrier()
#define CLOCK(t)                                                         \
    do {                                                                 \
        struct timeval tv_;                                              \
        gettimeofday(&tv_, NULL);                                        \
        (t) = (unsigned long)(tv_.tv_sec * 1000000 + tv_.tv_usec);      \
    } while (0)

#endif
