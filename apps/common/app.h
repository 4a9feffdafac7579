/*
 * app.h - what every application under apps/ shares, whatever it runs on
 * (sequential C, Tessera or MPI): argument parsing, a clock, and the one
 * RESULT line that the benchmark harness and the tests read.
 *
 *   RESULT app=sor impl=tessera nodes=4 size=1024x1024x50 seconds=1.234567 verified=PASS
 *
 * followed by a human-readable "PASS"/"FAIL" line. Exit status is 0 on PASS
 * and 1 on FAIL, so a failed check fails the test that ran it.
 *
 * In the applications with an MPI version, the loops that do the
 * arithmetic (the kernels) are not inline in the header but in
 * APP_kernels.c, which app.mk compiles into every version, so that the
 * sequential, Tessera and MPI programs run the same machine code and a
 * comparison measures what differs between them.
 * Inlined into each program's main, gcc allocated registers differently
 * in each: in Tessera's LU it kept the interior update's pointer on the
 * stack, a load and a store every iteration, and LU's compute phases ran
 * about a quarter slower than MPI's on an Intel host.
 */
#ifndef TSR_APP_H
#define TSR_APP_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double app_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* argv[i] as a positive integer, or `dflt` when absent; exits with a message
 * naming the argument when it is not a positive integer. */
static inline long app_arg(int argc, char **argv, int i, const char *name, long dflt)
{
    if (i >= argc)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(argv[i], &end, 10);
    if (errno || *end || v <= 0) {
        fprintf(stderr, "%s: %s must be a positive integer, got '%s'\n", argv[0], name, argv[i]);
        exit(2);
    }
    return v;
}

/* calloc that exits with a message: an app can do nothing without its
 * memory. A zero count (an empty band) still gives a valid pointer. */
static inline void *app_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        perror("calloc");
        exit(2);
    }
    return p;
}

/* `count` pointers into one zeroed array of count * stride doubles: the rows
 * of a matrix, or the blocks of a blocked one. Freed by app_table_free. */
static inline double **app_table(long count, long stride)
{
    double **t = app_calloc((size_t)count, sizeof *t);
    double *data = app_calloc((size_t)count * (size_t)stride, sizeof *data);
    for (long i = 0; i < count; i++)
        t[i] = data + i * stride;
    return t;
}

static inline void app_table_free(double **t)
{
    free(t[0]);
    free(t);
}

/* splitmix64 of an index: a fixed pseudo-random value, so that any node can
 * generate any part of an input without shared generator state. */
static inline uint64_t app_mix64(uint64_t i)
{
    uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* app_mix64 as a double in [0, 1). */
static inline double app_unit(uint64_t i) { return (double)(app_mix64(i) >> 11) * 0x1.0p-53; }

/* Prints the RESULT line and the verdict; returns the exit status. */
static inline int app_report(const char *app, const char *impl, int nodes, const char *size,
                             double seconds, int ok)
{
    printf("RESULT app=%s impl=%s nodes=%d size=%s seconds=%.6f verified=%s\n", app, impl, nodes,
           size, seconds, ok ? "PASS" : "FAIL");
    printf("%s: %s\n", app, ok ? "PASS" : "FAIL");
    fflush(stdout);
    return ok ? 0 : 1;
}

#endif
