/*
 * eintr.c - makes system calls fail with EINTR and stream transfers come
 * up short, as signals and full buffers may, for tests/sh/eintr.sh
 * (preloaded with LD_PRELOAD).
 *
 * EINTR_PER_MILLE=P: each call of the functions below fails with EINTR,
 * doing nothing, with probability P/1000. SHORT_PER_MILLE=S: a read,
 * write, recv, send or sendmsg on a stream socket that does go ahead moves
 * fewer bytes than asked (at least one), with probability S/1000;
 * datagram sockets, pipes and eventfds are left whole, since they would
 * lose bytes or refuse.
 *
 * A signal interrupts only blocking calls, and only in a thread that has
 * it unblocked; this interrupts any call in any thread, the runtime's comm
 * thread included, so that every loop around these calls is tried.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static unsigned eintr_per_mille, short_per_mille;
static __thread uint64_t rng;

static unsigned per_mille(const char *name)
{
    const char *v = getenv(name);
    return v ? (unsigned)atoi(v) : 0;
}

/* The programs that only carry a job to its nodes: tsrun's ssh stand-in
 * (tests/loopback_ssh) runs under bash, env and sh, and inherits the
 * preload. A shell gives up on a script whose read was interrupted
 * ("Interrupted system call", exit 126), which is the shell's way, not a
 * loop of Tessera's; a real ssh would not pass the preload on anyway. */
static int carrier(void)
{
    static const char *const names[] = {"bash", "sh", "dash", "env", "timeout"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(program_invocation_short_name, names[i]))
            return 1;
    return 0;
}

__attribute__((constructor)) static void setup(void)
{
    if (carrier())
        return;
    eintr_per_mille = per_mille("EINTR_PER_MILLE");
    short_per_mille = per_mille("SHORT_PER_MILLE");
}

/* xorshift, seeded per thread from its address and the process id */
static unsigned draw(void)
{
    if (!rng)
        rng = (uint64_t)(uintptr_t)&rng ^ (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % 1000);
}

static int interrupted(void)
{
    if (!eintr_per_mille || draw() >= eintr_per_mille)
        return 0;
    errno = EINTR;
    return 1;
}

/* How many of n bytes a transfer on fd moves this time. */
static size_t cut(int fd, size_t n)
{
    int type;
    socklen_t len = sizeof type;
    if (n < 2 || !short_per_mille || draw() >= short_per_mille ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_STREAM)
        return n;
    return 1 + draw() % (n - 1);
}

/* name(params) that fails with EINTR before it calls the C library's
 * name(args). */
#define INTERRUPTIBLE(type, name, params, args)                              \
    type name params                                                        \
    {                                                                       \
        static __typeof__(name) *real;                                      \
        if (!real)                                                          \
            real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name);             \
        return interrupted() ? -1 : real args;                              \
    }

INTERRUPTIBLE(ssize_t, read, (int fd, void *b, size_t n), (fd, b, cut(fd, n)))
INTERRUPTIBLE(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, cut(fd, n)))
INTERRUPTIBLE(ssize_t, recv, (int fd, void *b, size_t n, int f), (fd, b, cut(fd, n), f))
INTERRUPTIBLE(ssize_t, send, (int fd, const void *b, size_t n, int f), (fd, b, cut(fd, n), f))
INTERRUPTIBLE(ssize_t, recvmsg, (int fd, struct msghdr *m, int f), (fd, m, f))
INTERRUPTIBLE(ssize_t, readv, (int fd, const struct iovec *v, int k), (fd, v, k))
INTERRUPTIBLE(ssize_t, writev, (int fd, const struct iovec *v, int k), (fd, v, k))
INTERRUPTIBLE(int, poll, (struct pollfd *p, nfds_t n, int t), (p, n, t))
INTERRUPTIBLE(int, ppoll, (struct pollfd *p, nfds_t n, const struct timespec *t,
                           const sigset_t *m), (p, n, t, m))
INTERRUPTIBLE(int, accept, (int fd, struct sockaddr *a, socklen_t *l), (fd, a, l))
INTERRUPTIBLE(int, accept4, (int fd, struct sockaddr *a, socklen_t *l, int f), (fd, a, l, f))

/* sendmsg on a stream socket may also send a first part of its vector. */
ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    static __typeof__(sendmsg) *real;
    if (!real)
        real = (__typeof__(sendmsg) *)dlsym(RTLD_NEXT, "sendmsg");
    if (interrupted())
        return -1;
    size_t total = 0, k, i;
    for (i = 0; i < m->msg_iovlen; i++)
        total += m->msg_iov[i].iov_len;
    if ((k = cut(fd, total)) == total || m->msg_iovlen > 64)
        return real(fd, m, flags);
    struct iovec part[64];
    struct msghdr h = *m;
    for (i = 0; k; i++) {
        part[i] = m->msg_iov[i];
        part[i].iov_len = part[i].iov_len < k ? part[i].iov_len : k;
        k -= part[i].iov_len;
    }
    h.msg_iov = part;
    h.msg_iovlen = i;
    return real(fd, &h, flags);
}

/* An interrupted sleep says that all of it is left. */
int nanosleep(const struct timespec *req, struct timespec *rem)
{
    static __typeof__(nanosleep) *real;
    if (!real)
        real = (__typeof__(nanosleep) *)dlsym(RTLD_NEXT, "nanosleep");
    if (!interrupted())
        return real(req, rem);
    if (rem)
        *rem = *req;
    return -1;
}
