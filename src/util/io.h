/* io.h - blocking I/O on descriptors for the bootstrap, the launcher and the
 * statistics files: whole-buffer reads and writes, waits with deadlines.
 *
 * A signal handler installed without SA_RESTART (a profiler's interval
 * timer, say) makes blocking calls fail with EINTR; each function here
 * retries, and a wait with a deadline recomputes what is left of it. */
#ifndef TSR_IO_H
#define TSR_IO_H

#include <stddef.h>

/* Writes all of buf; a socket whose peer is gone gives -1, not SIGPIPE.
 * Returns 0 or -1. Async-signal-safe. */
int io_write_all(int fd, const void *buf, size_t len);
/* Reads exactly len bytes before `deadline` (now_s() clock). Returns 0, or
 * -1 on end of file, error or time-out. */
int io_read_full(int fd, void *buf, size_t len, double deadline);
/* Waits until fd has one of `events` (poll(2) bits) or `deadline` passes.
 * Returns 1 when ready, 0 at the deadline, -1 on error. */
int io_wait(int fd, short events, double deadline);
/* Sleeps for `seconds`, however many signals arrive meanwhile. */
void io_sleep(double seconds);
/* Reads the decimal number a small file starts with (a /proc/sys value)
 * in one read(2) into the stack: stdio would allocate its buffer, and
 * under memory pressure fall back to reading byte by byte, which procfs
 * answers with a number cut short. Returns 0, or -1 if there is none. */
int io_read_number(const char *path, unsigned long long *out);

#endif
