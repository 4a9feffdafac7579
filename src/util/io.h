/* io.h - whole-buffer reads and writes on descriptors, for the bootstrap,
 * the launcher and the statistics files. */
#ifndef TSR_IO_H
#define TSR_IO_H

#include <stddef.h>

/* Writes all of buf; a socket whose peer is gone gives -1, not SIGPIPE.
 * Returns 0 or -1. */
int io_write_all(int fd, const void *buf, size_t len);
/* Reads exactly len bytes before `deadline` (now_s() clock). Returns 0, or
 * -1 on end of file, error or time-out. */
int io_read_full(int fd, void *buf, size_t len, double deadline);

#endif
