/*
 * omp_team.c - a node's share of a team: the thread that runs tsr_fork's
 * function is its first, and a pool of threads the node starts as regions
 * first need them, reused by every later region, runs the others.
 *
 * The team rule (docs/OPENMP.md, "The team"): a team of n threads over N
 * nodes gives each node n / N threads, the first n % N nodes one more, and
 * consecutive thread numbers share a node, so that a static schedule gives
 * each node one contiguous block, as it gives each core one on a machine.
 * The node's threads pass barriers together (tsr_barrier_threads: one
 * arrival per node), hand locks on among themselves without a message,
 * and combine a reduction on the node before its first thread takes it to
 * the other nodes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "omp_rt.h"

/* The pool and the round it runs. Threads 1 .. size are started; those
 * below `want` take part in round `round`, `running` of them still in it. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    int size, want, running;
    uint64_t round;
    omp_region region;
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

/* What a pool thread starts from: its number on the node, and the round
 * that was current when it was started (it waits for the next). */
typedef struct start {
    int local;
    uint64_t round;
} start;
static start starts[MAX_NODE_THREADS];

int omp_team_size(long n, const char *what, const ident_t *loc)
{
    long nodes = tsr_nodes();
    if (n < 1)
        omp_refuse(loc, what, "the number of threads must be positive");
    if (n != 1 && n < nodes)
        omp_refuse(loc, what, "a team of more than one thread but fewer than the job's nodes "
                   "(each node runs at least one thread of a team; use tsrun -n with at most "
                   "the team size)");
    if (n > nodes * MAX_NODE_THREADS)
        omp_refuse(loc, what, "more than 256 threads per node");
    return (int)n;
}

/* Calls a region's outlined function with its n shared variables. The
 * x86-64 and AArch64 calling conventions let a caller pass more arguments
 * than the callee reads (the caller removes them), so one call with
 * MAX_ARGS covers every n, where libomp switches on n. */
#if !defined(__x86_64__) && !defined(__aarch64__)
#error "omp_team.c: omp_call_region relies on the x86-64 or AArch64 calling convention"
#endif
void omp_call_region(kmpc_micro fn, int32_t tid, void *const *a)
{
    int32_t gtid = tid, btid = tid;
    fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
       a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24],
       a[25], a[26], a[27], a[28], a[29], a[30], a[31]);
}

/* Runs the region as the node's thread `local`, on its own frame stack. */
static void run_as(const omp_region *r, int local)
{
    int tid = r->first + local;
    omp_me = (omp_team){.level = 1, .nthreads = r->nthreads, .tid = tid,
                        .spread = r->nthreads > 1, .node_n = r->node_n, .local = local,
                        .team_n = r->nthreads, .team_tid = tid, .team_node_n = r->node_n,
                        .team_local = local, .gen = r->gen};
    void *outer = omp_frames_own();
    omp_call_region(r->fn, tid, r->args);
    omp_frames_back(outer);
    omp_me = (omp_team){.nthreads = 1, .node_n = 1};
}

static void *pool_main(void *arg)
{
    const start *s = arg;
    uint64_t seen = s->round;
    omp_frames_start();
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (pool.round == seen)
            pthread_cond_wait(&pool.go, &pool.mu);
        seen = pool.round;
        if (s->local >= pool.want)
            continue;
        omp_region r = pool.region;
        pthread_mutex_unlock(&pool.mu);
        run_as(&r, s->local);
        pthread_mutex_lock(&pool.mu);
        if (--pool.running == 0)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* Starts pool threads until the node has n (itself included); called with
 * pool.mu held, so each new thread waits for the round after this one. */
static void grow(int n)
{
    while (pool.size < n - 1) {
        start *s = &starts[++pool.size];
        *s = (start){.local = pool.size, .round = pool.round};
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int e = pthread_create(&t, &attr, pool_main, s);
        pthread_attr_destroy(&attr);
        if (e)
            omp_die("node %d cannot start its thread %d of a team: %s", tsr_node(), pool.size,
                    strerror(e));
    }
}

void omp_team_run(const omp_region *r)
{
    if (r->node_n > 1) {
        pthread_mutex_lock(&pool.mu);
        grow(r->node_n);
        pool.region = *r;
        pool.want = r->node_n;
        pool.running = r->node_n - 1;
        pool.round++;
        pthread_cond_broadcast(&pool.go);
        pthread_mutex_unlock(&pool.mu);
    }
    run_as(r, 0);
    if (r->node_n > 1) {
        pthread_mutex_lock(&pool.mu);
        while (pool.running)
            pthread_cond_wait(&pool.done, &pool.mu);
        pthread_mutex_unlock(&pool.mu);
    }
}

/* The node's threads meeting at a reduction: the others post their
 * private copies and wait until the first has combined them into its own
 * (their copies die when they return); `gen` counts the reductions done. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    uint64_t gen;
    void *data[MAX_NODE_THREADS];
} gather = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

int omp_team_combine(void *data, void (*combine)(void *, void *))
{
    int n = omp_me.node_n;
    if (n <= 1)
        return 1;
    pthread_mutex_lock(&gather.mu);
    if (omp_me.local) {
        uint64_t gen = gather.gen;
        gather.data[omp_me.local] = data;
        gather.arrived++;
        pthread_cond_broadcast(&gather.cv);
        while (gather.gen == gen)
            pthread_cond_wait(&gather.cv, &gather.mu);
        pthread_mutex_unlock(&gather.mu);
        return 0;
    }
    while (gather.arrived < n - 1)
        pthread_cond_wait(&gather.cv, &gather.mu);
    pthread_mutex_unlock(&gather.mu);
    /* The others wait, so their copies stay put while they are read. */
    for (int i = 1; i < n; i++)
        combine(data, gather.data[i]);
    pthread_mutex_lock(&gather.mu);
    gather.arrived = 0;
    gather.gen++;
    pthread_cond_broadcast(&gather.cv);
    pthread_mutex_unlock(&gather.mu);
    return 1;
}
