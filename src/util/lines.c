#include "util/lines.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void lines_init(line_relay *lr, int fd, int out, int node)
{
    lr->fd = fd;
    lr->out = out;
    lr->node = node;
    lr->len = 0;
}

/* Writes every whole line, and with flush_all (or a buffer full of one
 * line) the rest as a line of its own. */
static void emit(line_relay *lr, int flush_all)
{
    size_t start = 0;
    for (size_t i = 0; i < lr->len; i++) {
        if (lr->buf[i] != '\n')
            continue;
        dprintf(lr->out, "[%d] %.*s\n", lr->node, (int)(i - start), lr->buf + start);
        start = i + 1;
    }
    if (flush_all || (start == 0 && lr->len == sizeof lr->buf)) {
        if (start < lr->len)
            dprintf(lr->out, "[%d] %.*s\n", lr->node, (int)(lr->len - start), lr->buf + start);
        start = lr->len;
    }
    memmove(lr->buf, lr->buf + start, lr->len - start);
    lr->len -= start;
}

void lines_close(line_relay *lr)
{
    emit(lr, 1);
    close(lr->fd);
    lr->fd = -1;
}

void lines_read(line_relay *lr)
{
    ssize_t r = read(lr->fd, lr->buf + lr->len, sizeof lr->buf - lr->len);
    if (r > 0) {
        lr->len += (size_t)r;
        emit(lr, 0);
    } else if (!(r < 0 && errno == EINTR)) {
        lines_close(lr);
    }
}
