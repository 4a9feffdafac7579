/*
 * jia.h - JIAJIA 2.x's programming interface, on Tessera. A program written
 * for JIAJIA compiles unchanged against this header and links with
 * libtessera:
 *
 *   cc -std=gnu89 prog.c -o prog $(pkg-config --cflags --libs tessera)
 *   tsrun -n 4 ./prog         (no .jiahosts file; or ./prog alone)
 *
 * K&R programs (implicit int main, K&R definitions, library calls without
 * their headers) need -std=gnu89, or -Wno-implicit-int
 * -Wno-implicit-function-declaration: C99 and later made those errors in
 * clang 16 and gcc 14, warnings in gcc 12.
 *
 * Shared memory is kept as JIAJIA keeps it: home-based, under scope
 * consistency (TSR_PROTO_SCOPE, whatever TSR_PROTO says), with the page
 * homes JIAJIA's allocation calls ask for.
 * Call by call, what differs from JIAJIA and why:
 *  - jia_init: hosts come from tsrun, not .jiahosts.
 *  - jia_alloc*: limited by TSR_MEMORY, not by JIAJIA's compiled-in
 *    Maxmemsize; the memory is zeroed.
 *  - jia_lock, jia_unlock: lock ids 0 .. 4095 (JIAJIA had 64).
 *  - jia_setcv, jia_resetcv, jia_waitcv: condition ids 0 .. 4095 (JIAJIA had
 *    16); they are Tessera's pause flags (tsr_flag_*), each a lock
 *    underneath: under scope consistency waitcv brings no write made
 *    before the setcv, as in JIAJIA (memory of other protocols gets them).
 *  - jia_error: stops every process, with the message, and no statistics.
 *  - jia_startstat, jia_stopstat: startstat zeroes Tessera's counters
 *    (tsr_stats_reset) on the calling host and returns 0; stopstat prints
 *    them on one line for that host (JIAJIA printed a table at host 0) and
 *    returns the messages it sent in between.
 *  - jia_send, jia_recv, jia_reduce, jia_bcast: at most 64 MiB per message;
 *    jia_reduce's and jia_bcast's own messages never match a jia_recv of the
 *    program, whatever its tag (JIAJIA used two reserved tags).
 *  - jia_config: LOADBAL switches jia_divtask's load balancing, as in
 *    JIAJIA; HMIG, ADWD, BROADCAST and WVEC are accepted and, under
 *    TSR_VERBOSE, reported once with their Tessera equivalent (home
 *    migration and write vectors have none; adaptive write detection is
 *    TSR_WRITE_DETECT=cache-only, set for the whole job).
 *  - G2_MALLOC(x, y) is jia_alloc2(x, y), and G_MALLOC has no trailing
 *    semicolon (JIAJIA's did not compile as an expression).
 * MSG_PROC_ALL, MSG_TAG_ALL and the reduction operations (SUM_INT ...) were
 * in JIAJIA's internal msg.h; they are here, with its values.
 */
#ifndef JIA_H
#define JIA_H

#include "tessera.h" /* TSR_API */

#ifdef __cplusplus
extern "C" {
#endif

/* This host's id, 0 .. jiahosts-1, and the number of hosts; set by jia_init. */
#define jiahosts hostc
#define jiapid jia_pid
extern TSR_API int jia_pid;
extern TSR_API int hostc;

/* Joins the job; every host calls it first. */
TSR_API void jia_init(int argc, char **argv);
/* Every host calls it last: waits for the others (a barrier) and leaves the
 * job. The process goes on. */
TSR_API void jia_exit(void);

/* Every host calls these with the same arguments in the same order and gets
 * the same address, zeroed and page aligned (cast it). jia_alloc3 homes
 * `block` bytes (rounded up to pages) at host `starthost`, the next block
 * at the next host, and so on round robin. jia_alloc2 starts at host 0;
 * jia_alloc2p homes all of it at host `proc`, jia_alloc1 at host 0.
 * jia_alloc, as in JIAJIA, homes all of an allocation at one host: host 0
 * for the first call, host 1 for the second, and so on round robin. */
TSR_API unsigned long jia_alloc3(int size, int block, int starthost);
TSR_API unsigned long jia_alloc2(int size, int block);
TSR_API unsigned long jia_alloc2p(int size, int proc);
TSR_API unsigned long jia_alloc1(int size);
TSR_API unsigned long jia_alloc(int size);

TSR_API void jia_lock(int lockid);
TSR_API void jia_unlock(int lockid);
/* All hosts; every write made before it is visible after it. */
TSR_API void jia_barrier(void);
/* All hosts meet; no write is made visible (a rendezvous, not a barrier). */
TSR_API void jia_wait(void);
/* Condition `cvnum` up, down; waitcv returns once it is up. */
TSR_API void jia_setcv(int cvnum);
TSR_API void jia_resetcv(int cvnum);
TSR_API void jia_waitcv(int cvnum);

/* Prints the message (printf-style) and stops every host. */
TSR_API void jia_error(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));
TSR_API unsigned int jia_startstat(void);
TSR_API unsigned int jia_stopstat(void);
/* Seconds since the first call, which jia_init makes if the program did
 * not (any call may come before jia_init, as in JIAJIA). */
TSR_API float jia_clock(void);

/* Message passing beside the shared memory. jia_send copies `len` bytes to
 * host `toproc` and returns; jia_recv waits for the oldest message from
 * `fromproc` (MSG_PROC_ALL: any) with `tag` (MSG_TAG_ALL: any), copies at
 * most `len` bytes of it to buf, and returns how many. jia_reduce combines
 * `count` elements of every host's sendbuf with `op` into root's recvbuf;
 * jia_bcast copies root's `len` bytes at buf to every host's buf. */
TSR_API void jia_send(char *buf, int len, int toproc, int tag);
TSR_API int jia_recv(char *buf, int len, int fromproc, int tag);
TSR_API void jia_reduce(char *sendbuf, char *recvbuf, int count, int op, int root);
TSR_API void jia_bcast(char *buf, int len, int root);

/* jia_config(option, ON or OFF). */
TSR_API void jia_config(int option, int value);
/* Narrows [*begin, *end] (inclusive) to this host's share: equal shares,
 * or, with LOADBAL on, shares in proportion to each host's speed as the
 * last jia_loadcheck measured it. */
TSR_API void jia_divtask(int *begin, int *end);
/* With LOADBAL on, every host calls it together: measures the time each
 * took since the last call and sets the shares jia_divtask gives. */
TSR_API void jia_loadcheck(void);

#ifndef ON
#define OFF 0
#define ON 1
#endif

#define HMIG 0
#define ADWD 1
#define BROADCAST 2
#define LOADBAL 3
#define WVEC 4

#define MSG_TAG_ALL (-1)
#define MSG_PROC_ALL (-1)
#define SUM_INT 0
#define MAX_INT 1
#define MIN_INT 2
#define SUM_FLOAT 10
#define MAX_FLOAT 11
#define MIN_FLOAT 12
#define SUM_DOUBLE 20
#define MAX_DOUBLE 21
#define MIN_DOUBLE 22

#define jia_wtnt(a, b)
#define jia_wtntw(a)
#define jia_wtntd(a)
#define jia_errexit jia_error

/* Argonne (ANL/PARMACS) macros, as JIAJIA's jia.h has them. */
extern TSR_API int jia_lock_index;

#define Maxlocks 64
#define LOCKDEC(x) int x;
#define LOCKINIT(x) (x) = (jia_lock_index++) % Maxlocks;
#define LOCK(x) jia_lock(x);
#define UNLOCK(x) jia_unlock(x);

#define ALOCKDEC(x, y) int x[y];
#define ALOCKINIT(x, y)                                                                  \
    {                                                                                    \
        int i;                                                                           \
        for (i = 0; i < (y); i++)                                                        \
            (x)[i] = (jia_lock_index++) % Maxlocks;                                      \
    }
#define ALOCK(x, y) jia_lock((x)[y]);
#define AULOCK(x, y) jia_unlock((x)[y]);

#define BARDEC(x) int x;
#define BARINIT(x)
#define BARRIER(x, y) jia_barrier();

#define EXTERN_ENV
#define MAIN_ENV
#define MAIN_INITENV(x, y)
#define MAIN_END
#define WAIT_FOR_END(x) jia_barrier();

#define PAUSEDEC(x) int x;
#define PAUSEINIT(x)
#define PAUSE_POLL(x)
#define PAUSE_SET(x, y)
#define PAUSE_RESET(x)
#define PAUSE_ACCEPT(x)

#define GSDEC(x) int x;
#define GSINIT(x)
#define GETSUB(x, y, z, zz)
#define G_MALLOC(x) jia_alloc1((x))
#define G2_MALLOC(x, y) jia_alloc2((x), (y))

#define CLOCK(x) x = jia_clock();

#ifdef __cplusplus
}
#endif
#endif /* JIA_H */
