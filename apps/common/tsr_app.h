/*
 * tsr_app.h - what the Tessera versions of the apps share: memory homed on
 * the node that computes on it, so its writes never leave the node, the
 * --munin option, and the workers of a node's threads.
 *
 * An app that accepts --munin (its first argument) keeps its shared data
 * with Munin's protocols under the annotations of the Munin paper's
 * Section 4, rather than with the default home-based protocol, and reports
 * impl=tessera-munin.
 */
#ifndef TSR_TSR_APP_H
#define TSR_TSR_APP_H

#include <pthread.h>
#include <string.h>

#include "app.h"
#include "tessera_munin.h"

static int app_munin; /* --munin was given */

/* The impl of the RESULT line: the Makefile builds NAME_native with
 * -DAPP_NATIVE (tsr_native.c: pthreads, no Tessera). */
#ifdef APP_NATIVE
#define APP_IMPL "pthreads"
#else
#define APP_IMPL "tessera"
#endif

/* Takes --munin off the front of the arguments; returns the impl name for
 * the RESULT line. */
static inline const char *app_impl(int *argc, char ***argv)
{
    if (*argc < 2 || strcmp((*argv)[1], "--munin"))
        return APP_IMPL;
    app_munin = 1;
    (*argv)[1] = (*argv)[0];
    (*argv)++;
    (*argc)--;
    return "tessera-munin";
}

/* Collective: `bytes` of shared memory whose pages are all homed (with
 * --munin: owned) on `node`; with --munin kept under annotation `annot`. */
static inline void *app_alloc_home(size_t bytes, int node, tsr_annotation annot)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = node;
    if (app_munin) {
        attr.proto = TSR_PROTO_MUNIN;
        attr.annot = annot;
    }
    return tsr_alloc_attr(bytes, &attr);
}

/* Collective: rows [lo, hi) of `width` doubles in one allocation homed on
 * `node`, and row[lo .. hi) pointing at them. Every node makes the same
 * calls in the same order, so every node's row table is the same. */
static inline void app_alloc_rows(double **row, long lo, long hi, long width, int node,
                                  tsr_annotation annot)
{
    double *band = app_alloc_home((size_t)(hi - lo) * (size_t)width * sizeof *band, node, annot);
    for (long i = lo; i < hi; i++)
        row[i] = band + (i - lo) * width;
}

/* ---- Workers: several application threads per node -------------------------
 *
 * Each node runs app_threads workers, TSR_THREADS of them (tsr_threads(),
 * docs/API.md, "Threads"; every node the same count). Worker w of the job,
 * w = node * app_threads + thread, does what one node did when nodes ran
 * one thread: the work is split into app_workers() parts in node order, so
 * a node's workers hold neighbouring parts and their data can share the
 * node's homes. The same source, linked with apps/common/tsr_native.c
 * instead of Tessera, is the same program on plain pthreads (bench/thr_apps.sh). */

static int app_threads = 1;

/* tsr_init, then this node's thread count. */
static inline void app_init(int *argc, char ***argv)
{
    tsr_init(argc, argv);
    app_threads = tsr_threads();
}

static inline int app_workers(void)
{
    return tsr_nodes() * app_threads;
}

/* The node that runs worker w, which homes w's data. */
static inline int app_worker_node(int w)
{
    return w / app_threads;
}

/* Exits, saying why, when `rows` cannot give every worker a row. */
static inline void app_need_rows(const char *prog, long rows)
{
    if (rows >= app_workers())
        return;
    fprintf(stderr, "%s: need at least one row per worker (%ld rows, %d nodes x %d threads)\n",
            prog, rows, tsr_nodes(), app_threads);
    exit(2);
}

/* Worker w is its node's first thread, the one that times the run and
 * makes the node's collective calls. */
static inline int app_leads(int w)
{
    return w % app_threads == 0;
}

/* The timed part's seconds, as this node's first worker saw them. */
static double app_seconds;

/* Worker w's part of the timed run ends (after a barrier): the node's
 * first worker records it. */
static inline void app_stop_clock(int w, double start)
{
    if (app_leads(w))
        app_seconds = tsr_wtime() - start;
}

/* A barrier of every worker of the job: the node's threads combine and the
 * node sends one arrival (tsr_barrier when app_threads is 1). */
static void app_barrier(void)
{
    tsr_barrier_threads(app_threads);
}

typedef struct app_worker_arg {
    void (*fn)(int w);
    int w;
} app_worker_arg;

static void *app_worker_main(void *p)
{
    app_worker_arg *a = p;
    a->fn(a->w);
    return NULL;
}

/* Runs fn(w) for this node's workers, the calling thread being the first;
 * returns once all have returned. */
static inline void app_run_workers(void (*fn)(int w))
{
    int first = tsr_node() * app_threads;
    pthread_t *tid = app_calloc((size_t)app_threads, sizeof *tid);
    app_worker_arg *arg = app_calloc((size_t)app_threads, sizeof *arg);
    for (int t = 0; t < app_threads; t++)
        arg[t] = (app_worker_arg){fn, first + t};
    for (int t = 1; t < app_threads; t++)
        if (pthread_create(&tid[t], NULL, app_worker_main, &arg[t])) {
            fprintf(stderr, "cannot start application thread %d of %d\n", t, app_threads);
            exit(2);
        }
    fn(first);
    for (int t = 1; t < app_threads; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    free(arg);
}

#endif
