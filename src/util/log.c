#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cpu.h"
#include "util/io.h"

static char prefix[48] = "tessera";
int log_verbose;

void log_set_node(int node)
{
    snprintf(prefix, sizeof prefix, "tessera: node %d", node);
}

void log_set_name(const char *name)
{
    snprintf(prefix, sizeof prefix, "%s", name);
}

/* Room for a line: a reason relayed from another node (up to a boot note's
 * 1 KiB) with what this node adds around it. */
#define LINE_MAX_BYTES 2048

static void (*last_words_hook)(const char *why);

void log_on_last_words(void (*tell)(const char *why)) { last_words_hook = tell; }

/* Formats into one buffer and writes it at once (io_write_all: one write(2)
 * unless the pipe is full, retried after a signal): messages from several
 * threads and nodes do not interleave mid-line, and no stdio lock is taken
 * (a dying comm thread must not wait on the application's stdout). With
 * `last`, the message is also this process's last words (log_last_words). */
static void emit_as(int last, const char *fmt, va_list ap)
{
    char buf[LINE_MAX_BYTES];
    int at = snprintf(buf, sizeof buf, "%s: ", prefix);
    int n = at + vsnprintf(buf + at, sizeof buf - (size_t)at - 1, fmt, ap);
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n] = '\n';
    io_write_all(STDERR_FILENO, buf, (size_t)n + 1);
    buf[n] = 0;
    if (last && last_words_hook)
        last_words_hook(buf + at);
}

static void emit(const char *fmt, va_list ap) { emit_as(0, fmt, ap); }

void log_last_words(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_as(1, fmt, ap);
    va_end(ap);
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void log_debug(const char *fmt, ...)
{
    if (!log_verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

/* No stdio on the way out, not even fflush: log_die is called from the
 * fault handler and the comm thread as well as the application thread, and
 * a stdio lock may be held by the thread that the fault interrupted or by
 * another one for good (fflush then waited forever: sh/misuse_deadlock),
 * or the stream be half-updated. The program's buffered output is flushed
 * by exit() on its ordinary exits; stopped by an error, the node loses
 * what the program had not flushed, as abort() does. */
static __attribute__((noreturn)) void die(int status, const char *fmt, va_list ap)
{
    emit_as(status != TSR_EXIT_PEER_FAILED, fmt, ap);
    _exit(status);
}

void log_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    die(1, fmt, ap);
}

void log_die_status(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    die(status, fmt, ap);
}

static void rate_new_window(log_rate *r, double t)
{
    if (r->held)
        log_warn("%ld more %s in the last second (not shown)", r->held, r->what);
    r->window_start = t;
    r->printed = 0;
    r->held = 0;
}

double log_rate_flush(log_rate *r)
{
    double t = now_s();
    if (t - r->window_start < 1.0)
        return r->held ? r->window_start + 1.0 - t : -1;
    rate_new_window(r, t);
    return -1;
}

void log_rate_end(log_rate *r)
{
    rate_new_window(r, now_s());
}

void log_rated(log_rate *r, const char *fmt, ...)
{
    log_rate_flush(r);
    if (r->printed == LOG_RATE_BURST) {
        r->held++;
        return;
    }
    r->printed++;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}
