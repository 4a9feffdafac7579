/* thr.h - the threaded tests' team: thr_team(n, fn) runs fn(i, n) on n
 * threads of this node, i = 0..n-1, the calling thread being thread 0, and
 * returns once all have returned. */
#ifndef TEST_THR_H
#define TEST_THR_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

#define THR_MAX 8

typedef void (*thr_fn)(int i, int n);

typedef struct thr_arg {
    thr_fn fn;
    int i, n;
} thr_arg;

static void *thr_main(void *p)
{
    thr_arg *a = p;
    a->fn(a->i, a->n);
    return NULL;
}

static inline void thr_team(int n, thr_fn fn)
{
    pthread_t t[THR_MAX];
    thr_arg a[THR_MAX];
    if (n < 1 || n > THR_MAX) {
        printf("thr_team: %d threads, at most %d\n", n, THR_MAX);
        exit(1);
    }
    for (int i = 0; i < n; i++)
        a[i] = (thr_arg){fn, i, n};
    for (int i = 1; i < n; i++)
        if (pthread_create(&t[i], NULL, thr_main, &a[i])) {
            printf("thr_team: cannot start thread %d\n", i);
            exit(1);
        }
    fn(0, n);
    for (int i = 1; i < n; i++)
        pthread_join(t[i], NULL);
}

/* Runs teams of 2, then 4, threads of fn, each followed by tsr_barrier;
 * errors[i] is thread i's count, zeroed before each team. Returns the
 * counts summed over both teams. */
static inline int thr_teams_2_4(thr_fn fn, int *errors)
{
    int bad = 0;
    for (int n = 2; n <= 4; n += 2) {
        for (int i = 0; i < n; i++)
            errors[i] = 0;
        thr_team(n, fn);
        for (int i = 0; i < n; i++)
            bad += errors[i];
        tsr_barrier();
    }
    return bad;
}

#endif
