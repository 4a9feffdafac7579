/*
 * tsr_native.c - the part of Tessera's API the apps use, on one process
 * with plain pthreads and no Tessera: shared memory is the process's own
 * (mmap), locks are mutexes, tsr_barrier_threads is a pthread barrier. An
 * app's Tessera source linked with this file instead of libtessera
 * (build/apps/NAME_native) is the same program, the same kernels and the
 * same split of the work among TSR_THREADS workers, without a fault, a
 * twin or a message: the baseline bench/thr_apps.sh times one Tessera
 * node of as many threads against.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "tessera.h"
#include "tessera_munin.h"

static int threads = 1;
static pthread_mutex_t locks[TSR_MAX_LOCKS];
static pthread_barrier_t team;
static int team_size; /* the count `team` was made for; 0 before the first barrier */
static pthread_mutex_t team_init = PTHREAD_MUTEX_INITIALIZER;

static void die(const char *what)
{
    fprintf(stderr, "tsr_native: %s\n", what);
    exit(2);
}

/* TSR_THREADS as Tessera reads it (docs/CONFIG.md): 1 to 4096, default 1. */
int tsr_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *s = getenv("TSR_THREADS");
    if (s && *s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || *end || v < 1 || v > 4096)
            die("TSR_THREADS must be an integer from 1 to 4096");
        threads = (int)v;
    }
    for (int i = 0; i < TSR_MAX_LOCKS; i++)
        pthread_mutex_init(&locks[i], NULL);
    return 0;
}

void tsr_finalize(void) {}

int tsr_node(void)
{
    return 0;
}

int tsr_nodes(void)
{
    return 1;
}

int tsr_threads(void)
{
    return threads;
}

/* Zeroed, page-aligned memory, as Tessera's shared memory is. */
void *tsr_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        die("out of memory");
    return p;
}

void *tsr_alloc_attr(size_t bytes, const tsr_attr *attr)
{
    if (attr && attr->proto == TSR_PROTO_MUNIN)
        die("Munin's annotations need Tessera (--munin)");
    return tsr_alloc(bytes);
}

void tsr_lock(int id)
{
    if (id < 0 || id >= TSR_MAX_LOCKS)
        die("lock id out of range");
    pthread_mutex_lock(&locks[id]);
}

void tsr_unlock(int id)
{
    if (id < 0 || id >= TSR_MAX_LOCKS)
        die("lock id out of range");
    pthread_mutex_unlock(&locks[id]);
}

/* The barrier is made by the first caller, for the count every caller
 * passes; later calls only read the count. */
void tsr_barrier_threads(int n)
{
    if (!__atomic_load_n(&team_size, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&team_init);
        if (!team_size) {
            if (n < 1 || pthread_barrier_init(&team, NULL, (unsigned)n))
                die("cannot make the thread barrier");
            __atomic_store_n(&team_size, n, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&team_init);
    }
    if (n != team_size)
        die("tsr_barrier_threads: threads passed different counts");
    pthread_barrier_wait(&team);
}

void tsr_barrier(void)
{
    tsr_barrier_threads(1);
}

double tsr_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Munin's hints: only --munin calls them, and its allocation stops first. */
void tsr_hint_phase_change(void *ptr)
{
    (void)ptr;
}

void tsr_hint_change_annotation(void *ptr, tsr_annotation annot)
{
    (void)ptr;
    (void)annot;
}
