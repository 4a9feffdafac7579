/*
 * failmalloc.c - makes one allocation of one process fail, for
 * tests/sh/out_of_memory.sh (preloaded with LD_PRELOAD).
 *
 * FAILMALLOC_AT=N: the Nth call to malloc, calloc or realloc returns NULL
 * (ENOMEM), every other succeeds. FAILMALLOC_WHO: the process counted and
 * failed, "launcher" (tsrun, which has no TSR_NODE) or a node's number; a
 * node forked by tsrun starts from tsrun's count, as fork copies it.
 * FAILMALLOC_COUNT=1: the counted process reports its number of calls at
 * exit, on stderr, as "failmalloc: N calls".
 *
 * Only the allocation functions are counted: glibc's own __libc_* entry
 * points allocate, so nothing here allocates (getenv does not).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t count, size_t n);
extern void *__libc_realloc(void *p, size_t n);

static int armed = -1; /* unknown until the first call */
static long at, calls;

static int counted(void)
{
    const char *who = getenv("FAILMALLOC_WHO"), *node = getenv("TSR_NODE");
    if (!who)
        return 0;
    return node ? !strcmp(who, node) : !strcmp(who, "launcher");
}

static int this_call_fails(void)
{
    if (armed < 0) {
        const char *n = getenv("FAILMALLOC_AT");
        at = n ? atol(n) : 0;
        armed = counted();
    }
    if (!armed || __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) != at)
        return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n) { return this_call_fails() ? NULL : __libc_malloc(n); }
void *calloc(size_t count, size_t n) { return this_call_fails() ? NULL : __libc_calloc(count, n); }
void *realloc(void *p, size_t n) { return this_call_fails() ? NULL : __libc_realloc(p, n); }

__attribute__((destructor)) static void report(void)
{
    char line[64];
    if (armed > 0 && getenv("FAILMALLOC_COUNT")) {
        int len = snprintf(line, sizeof line, "failmalloc: %ld calls\n", calls);
        if (write(2, line, (size_t)len) < 0)
            return;
    }
}
