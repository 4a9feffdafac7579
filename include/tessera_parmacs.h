/*
 * tessera_parmacs.h - the C side of share/tessera/c.m4.tessera, the PARMACS
 * macros of SPLASH-3 on Tessera (docs/OMPNOW.md, "PARMACS"). The macro file
 * includes this header in every file of the program; MAIN_ENV defines
 * TSR_PARMACS_MAIN first, so the file holding main also holds the
 * definitions, once. Not part of libtessera: only the public API is used.
 *
 * The model is TreadMarks' (Section 2.2.1 of the OpenMP/NOW paper): node 0
 * runs main alone, as the pthreads master does, and the other nodes wait in
 * tsr_serve from before main (a constructor) to the end. CREATE forks the
 * created function on every node, node 0 included; the fork and the join
 * are barriers, so whatever the master wrote before CREATE is seen by every
 * process, and whatever they wrote is seen by the master after
 * WAIT_FOR_END. The program's globals are shared (TSR_SHARE_GLOBALS), as
 * threads share them.
 */
#ifndef TESSERA_PARMACS_H
#define TESSERA_PARMACS_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <tessera.h>

#ifndef PAGE_SIZE
#define PAGE_SIZE 4096 /* SPLASH-3's pthreads macros define it; LU-CONT aligns with it */
#endif

void tsr_parmacs_create(void (*fn)(void), long n, const char *name);
void tsr_parmacs_wait_for_end(void);
void tsr_parmacs_end(void);
void tsr_parmacs_locks(int *ids, long n, const char *name);
int tsr_parmacs_pause(void);
void tsr_parmacs_barrier(long n, const char *name);
/* A condition variable (CONDVARDEC) is an unsigned long long, bit n set
 * while node n waits on it: a plain type, since FMM declares them in a
 * header that comes before the macro file's. It lives in shared memory
 * (inside G_MALLOCed structures) and is read and written under the lock
 * its users hold. */
void tsr_parmacs_cond_wait(unsigned long long *cv, int lock);
void tsr_parmacs_cond_wake(unsigned long long *cv, int all);

#endif /* TESSERA_PARMACS_H */

/* Outside the include guard: FMM's MAIN_ENV file includes a header with
 * EXTERN_ENV before MAIN_ENV itself. */
#if defined(TSR_PARMACS_MAIN) && !defined(TESSERA_PARMACS_DEFINED)
#define TESSERA_PARMACS_DEFINED 1
TSR_SHARE_GLOBALS;

/* The macro file's own lock: it guards the two id counters, which created
 * processes may advance at the same time (LOCKINIT in parallel code). */
#define TSR_PARMACS_LOCK (TSR_MAX_LOCKS - 1)
/* Pause flags 0 .. nodes-1 are the condition variables' (node n waits on
 * flag n); PAUSEINIT hands out the rest. */

static int tsr_parmacs_next_lock, tsr_parmacs_next_flag;
static void (*tsr_parmacs_fn)(void);
/* Node 0 only: a fork not yet joined; inside CREATE; finalized. */
static int tsr_parmacs_forked, tsr_parmacs_creating, tsr_parmacs_ended;

/* Stops the job: the message names the macro and the limit. */
static void tsr_parmacs_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tsr_parmacs_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "c.m4.tessera: node %d: ", tsr_node());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    tsr_parmacs_ended = 1; /* no tsr_finalize at exit: the job is stopping */
    exit(1);
}

/* A program that leaves main by exit() or return rather than MAIN_END
 * still ends the job properly, unless it leaves in the middle of CREATE's
 * processes: then the job stops, as node 0's exit says. */
static void tsr_parmacs_atexit(void)
{
    if (tsr_parmacs_ended || tsr_parmacs_forked)
        return;
    tsr_parmacs_ended = 1;
    tsr_finalize();
}

/* Before main, on every node: the servers never run main, so its input,
 * its output and its sequential part happen once, on node 0, as with
 * threads. glibc gives constructors main's arguments, which tsr_init needs
 * under srun or mpirun (to restart the program without address-space
 * randomisation). */
__attribute__((constructor)) static void tsr_parmacs_boot(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (tsr_node() != 0) {
        tsr_serve();
        tsr_finalize();
        exit(0);
    }
    tsr_parmacs_next_flag = tsr_nodes();
    atexit(tsr_parmacs_atexit);
}

static void tsr_parmacs_run(void *arg)
{
    (void)arg;
    tsr_parmacs_fn();
    fflush(stdout); /* before the join: the master's next lines come after */
}

void tsr_parmacs_wait_for_end(void)
{
    if (tsr_node() != 0 || tsr_parmacs_creating)
        tsr_parmacs_die("WAIT_FOR_END: called by a created process; only the master waits");
    if (tsr_parmacs_forked) {
        tsr_parmacs_forked = 0;
        tsr_join();
    }
}

void tsr_parmacs_create(void (*fn)(void), long n, const char *name)
{
    if (tsr_node() != 0 || tsr_parmacs_creating)
        tsr_parmacs_die("CREATE(%s, %ld): called by a created process; only the master creates",
                        name, n);
    if (n != tsr_nodes())
        tsr_parmacs_die("CREATE(%s, %ld): one process per node, but the job has %d nodes "
                        "(run it with tsrun -n %ld)", name, n, tsr_nodes(), n);
    /* A CREATE with no WAIT_FOR_END after the previous one (VOLREND):
     * every process of that one has returned (the master's too). */
    tsr_parmacs_wait_for_end();
    tsr_parmacs_fn = fn;
    tsr_parmacs_forked = 1;
    tsr_parmacs_creating = 1;
    fflush(stdout);
    tsr_fork(tsr_parmacs_run, NULL);
    tsr_parmacs_creating = 0;
}

void tsr_parmacs_end(void)
{
    tsr_parmacs_wait_for_end();
    tsr_parmacs_ended = 1;
    tsr_finalize();
}

/* LOCKINIT (n = 1) and ALOCKINIT of the lock or array `name`. */
void tsr_parmacs_locks(int *ids, long n, const char *name)
{
    tsr_lock(TSR_PARMACS_LOCK);
    if (n < 0 || tsr_parmacs_next_lock + n > TSR_PARMACS_LOCK)
        tsr_parmacs_die("%sLOCKINIT(%s): %ld more locks after %d, but Tessera has %d lock ids "
                        "(TSR_MAX_LOCKS, one of them the macro file's own)",
                        n == 1 ? "" : "A", name, n, tsr_parmacs_next_lock, TSR_MAX_LOCKS);
    for (long i = 0; i < n; i++)
        ids[i] = tsr_parmacs_next_lock++;
    tsr_unlock(TSR_PARMACS_LOCK);
}

int tsr_parmacs_pause(void)
{
    tsr_lock(TSR_PARMACS_LOCK);
    if (tsr_parmacs_next_flag >= TSR_MAX_FLAGS)
        tsr_parmacs_die("PAUSEINIT: more than %d pause flags (TSR_MAX_FLAGS, less one per node "
                        "for the condition variables)", TSR_MAX_FLAGS - tsr_nodes());
    int id = tsr_parmacs_next_flag++;
    tsr_unlock(TSR_PARMACS_LOCK);
    return id;
}

void tsr_parmacs_barrier(long n, const char *name)
{
    if (n != tsr_nodes())
        tsr_parmacs_die("BARRIER(%s, %ld): Tessera's barrier takes every node, and the job has %d",
                        name, n, tsr_nodes());
    if (tsr_node() == 0 && !tsr_parmacs_creating)
        tsr_parmacs_die("BARRIER(%s, %ld): called by the master outside CREATE's processes, "
                        "where no other process could reach it", name, n);
    tsr_barrier();
}

/* Called with `lock` held, as pthread_cond_wait is. The flag is lowered
 * before this node says it waits (tsr_flag_clear returns once the flag's
 * manager has lowered it), so the set of whoever wakes it, made under the
 * same lock after this node let it go, is never lost. */
void tsr_parmacs_cond_wait(unsigned long long *cv, int lock)
{
    int me = tsr_node();
    if (me >= 64)
        tsr_parmacs_die("CONDVARWAIT: condition variables serve nodes 0 to 63 only");
    tsr_flag_clear(me);
    *cv |= 1ull << me;
    tsr_unlock(lock);
    tsr_flag_wait(me);
    tsr_lock(lock);
}

/* Called with the condition's lock held (every SPLASH-3 program does): the
 * waiters' bits are shared data under that lock. */
void tsr_parmacs_cond_wake(unsigned long long *cv, int all)
{
    while (*cv) {
        int node = __builtin_ctzll(*cv);
        *cv &= *cv - 1;
        tsr_flag_set(node);
        if (!all)
            break;
    }
}
#endif /* TSR_PARMACS_MAIN */
