/*
 * app_omp.h - what the applications' OpenMP forms (NAME_omp.c) share; they
 * are built with -fopenmp only (clang-16 -fopenmp, or tsrcc -fopenmp).
 */
#ifndef APP_OMP_H
#define APP_OMP_H

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* The iterations [*lo, *hi) of first .. end-1 that a static schedule gives
 * the calling thread (empty: *lo >= *hi); every thread of the team calls it.
 * Every static loop over the same iterations gives the thread the same
 * ones, so a thread can allocate and initialise the data its later loops
 * update (first touch: under Tessera, homed on its node). */
static inline void app_omp_block(long first, long end, long *lo, long *hi)
{
    long l = end, h = first;
#pragma omp for schedule(static)
    for (long i = first; i < end; i++) {
        l = i < l ? i : l;
        h = i + 1;
    }
    *lo = l;
    *hi = h;
}

/* `bytes` in whole pages of their own, starting on a page, as programs pad
 * against false sharing of cache lines: under Tessera a page is the unit
 * of sharing, and a block that starts mid-page shares its first and last
 * pages with its neighbours (malloc's blocks carry a header). Not zeroed. */
static inline void *app_omp_pages(size_t bytes)
{
    void *block;
    if (posix_memalign(&block, 4096, (bytes + 4095) / 4096 * 4096)) {
        perror("posix_memalign");
        exit(2);
    }
    return block;
}

#endif
