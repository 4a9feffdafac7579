#include "util/io.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
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

int io_read_full(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        int ms = (int)((deadline - now_s()) * 1000);
        struct pollfd pfd = {fd, POLLIN, 0};
        if (ms <= 0 || poll(&pfd, 1, ms) <= 0)
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
