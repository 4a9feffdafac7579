#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/cpu.h"

int io_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int io_wait(int fd, short events, double deadline)
{
    for (;;) {
        /* Rounded up: a wait of 0.4 ms must not become a poll of 0 ms. */
        double left_ms = (deadline - now_s()) * 1000;
        if (left_ms <= 0)
            return 0;
        struct pollfd pfd = {fd, events, 0};
        int ready = poll(&pfd, 1, left_ms > 1e9 ? 1000000000 : (int)left_ms + 1);
        if (ready > 0)
            return 1;
        if (ready < 0 && errno != EINTR)
            return -1;
    }
}

int io_read_full(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        if (io_wait(fd, POLLIN, deadline) <= 0)
            return -1;
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void io_sleep(double seconds)
{
    struct timespec left = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&left, &left) && errno == EINTR)
        ;
}

int io_read_number(const char *path, unsigned long long *out)
{
    char buf[32];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf - 1)) < 0 && errno == EINTR)
        ;
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *end;
    errno = 0;
    *out = strtoull(buf, &end, 10);
    return end == buf || errno ? -1 : 0;
}
