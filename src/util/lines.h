/*
 * lines.h - relays a pipe to stdout or stderr line by line, each line
 * prefixed with "[node] " (tsrun -p). Lines are written whole, so the
 * output of many nodes interleaves only between lines.
 */
#ifndef TSR_LINES_H
#define TSR_LINES_H

#include <stddef.h>

typedef struct line_relay {
    int fd;        /* read end of the node's pipe, -1 once closed */
    int out;       /* where the lines go: 1 or 2 */
    int node;      /* the prefix */
    size_t len;
    char buf[8192];
} line_relay;

/* Sets up a relay from fd (-1: none) to out. */
void lines_init(line_relay *lr, int fd, int out, int node);
/* Reads what the pipe holds and writes every whole line; at end of file,
 * writes the rest and closes the pipe. Call when fd is readable. */
void lines_read(line_relay *lr);
/* Writes what is buffered, even a partial line, and closes the pipe. */
void lines_close(line_relay *lr);

#endif
