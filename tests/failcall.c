/*
 * failcall.c - makes one call of one process fail, as an exhausted
 * machine would, for tests/sh/failed_calls.sh (preloaded with LD_PRELOAD).
 *
 * FAILCALL_OF: the calls counted, "malloc" (malloc, calloc, realloc:
 * NULL, ENOMEM) or "sys" (the system calls that take memory, descriptors
 * or addresses: mmap, mprotect, madvise and ioctl fail with ENOMEM;
 * socket, pipe2, eventfd, memfd_create, open and dup with EMFILE;
 * ftruncate with ENOSPC; bind and listen with EADDRINUSE). FAILCALL_AT=N:
 * the Nth counted call fails, every other goes ahead. FAILCALL_WHO: the
 * process counted, "launcher" (tsrun, which has no TSR_NODE) or a node's
 * number; a node forked by tsrun starts from tsrun's count, as fork
 * copies it. FAILCALL_COUNT=1: the counted process reports its number of
 * calls at exit, on stderr, as "failcall: N calls".
 *
 * glibc's own __libc_* entry points allocate, so the allocation functions
 * allocate nothing here; the system calls are found with dlsym, which may
 * allocate, and getenv does not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t count, size_t n);
extern void *__libc_realloc(void *p, size_t n);

static int armed = -1; /* unknown until the first call */
static long at, calls;

static int counted(const char *family)
{
    const char *who = getenv("FAILCALL_WHO"), *node = getenv("TSR_NODE"),
               *of = getenv("FAILCALL_OF");
    if (!who || !of || strcmp(of, family))
        return 0;
    return node ? !strcmp(who, node) : !strcmp(who, "launcher");
}

/* Whether this call of `family` fails; if so, errno is err. */
static int fails(const char *family, int err)
{
    if (armed < 0) {
        const char *n = getenv("FAILCALL_AT");
        at = n ? atol(n) : 0;
        armed = counted("malloc") ? 'm' : counted("sys") ? 's' : 0;
    }
    if (armed != family[0] || __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) != at)
        return 0;
    errno = err;
    return 1;
}

void *malloc(size_t n) { return fails("malloc", ENOMEM) ? NULL : __libc_malloc(n); }
void *calloc(size_t k, size_t n) { return fails("malloc", ENOMEM) ? NULL : __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { return fails("malloc", ENOMEM) ? NULL : __libc_realloc(p, n); }

/* name(params), failing as `bad` with errno err, else the C library's. */
#define FAILABLE(type, name, params, args, bad, err)                          \
    type name params                                                         \
    {                                                                        \
        static __typeof__(name) *real;                                       \
        if (!real)                                                           \
            real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name);              \
        return fails("sys", err) ? bad : real args;                          \
    }

FAILABLE(void *, mmap, (void *a, size_t n, int p, int f, int fd, off_t o), (a, n, p, f, fd, o),
         MAP_FAILED, ENOMEM)
FAILABLE(int, mprotect, (void *a, size_t n, int p), (a, n, p), -1, ENOMEM)
FAILABLE(int, madvise, (void *a, size_t n, int advice), (a, n, advice), -1, ENOMEM)
FAILABLE(int, socket, (int d, int t, int p), (d, t, p), -1, EMFILE)
FAILABLE(int, pipe2, (int fd[2], int f), (fd, f), -1, EMFILE)
FAILABLE(int, eventfd, (unsigned v, int f), (v, f), -1, EMFILE)
FAILABLE(int, memfd_create, (const char *n, unsigned f), (n, f), -1, EMFILE)
FAILABLE(int, dup, (int fd), (fd), -1, EMFILE)
FAILABLE(int, ftruncate, (int fd, off_t len), (fd, len), -1, ENOSPC)
FAILABLE(int, bind, (int fd, const struct sockaddr *a, socklen_t l), (fd, a, l), -1, EADDRINUSE)
FAILABLE(int, listen, (int fd, int backlog), (fd, backlog), -1, EADDRINUSE)

/* The two whose last argument is optional: passed on as one word. */
int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = va_arg(ap, mode_t);
    va_end(ap);
    if (!real)
        real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    return fails("sys", EMFILE) ? -1 : real(path, flags, mode);
}

int ioctl(int fd, unsigned long request, ...)
{
    static int (*real)(int, unsigned long, ...);
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (!real)
        real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    return fails("sys", ENOMEM) ? -1 : real(fd, request, arg);
}

__attribute__((destructor)) static void report(void)
{
    char line[64];
    if (armed > 0 && getenv("FAILCALL_COUNT")) {
        int len = snprintf(line, sizeof line, "failcall: %ld calls\n", calls);
        if (write(2, line, (size_t)len) < 0)
            return;
    }
}
