/*
 * log.h - how Tessera reports trouble. Every message names the node it comes
 * from, so the interleaved output of a job says who saw what.
 */
#ifndef TSR_LOG_H
#define TSR_LOG_H

#include <stdarg.h>

/* Exit status of a node stopped because another node failed. tsrun does not
 * rely on it: such a node tells tsrun over its boot connection first
 * (boot_stop), so a program's own exit(3) is reported as that node's. */
#define TSR_EXIT_PEER_FAILED 3

/* Sets the prefix ("tessera: node 3") used by the functions below. */
void log_set_node(int node);
/* Sets another prefix, e.g. "tsrun" for the launcher. */
void log_set_name(const char *name);
/* Prints "tessera: node N: <msg>" to stderr. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message and exits the process with status 1, at once: one
 * write(2) and _exit, no stdio (the program's unflushed output is lost). */
void log_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* As log_die, with the given status; safe from any thread (uses _exit after
 * one write(2) so that no lock a stopped thread holds can hang it). */
void log_die_status(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* Prints the message as log_warn does, as the reason this process is
 * about to end, and hands it (without the prefix) to the hook set by
 * log_on_last_words, which tells tsrun. Async-signal-safe as far as the
 * hook is. log_die and log_die_status call it, except with
 * TSR_EXIT_PEER_FAILED, whose reason is another node's. */
void log_last_words(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_on_last_words(void (*tell)(const char *why));
/* Verbose tracing, enabled by TSR_VERBOSE=1. */
extern int log_verbose;
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A rate limit for messages that outsiders can provoke (refused
 * connections): at most LOG_RATE_BURST lines per second; the lines held back
 * are counted, and the count is printed once the second is over. */
#define LOG_RATE_BURST 5
typedef struct log_rate {
    const char *what;      /* plural noun for the count, e.g. "refused connections" */
    double window_start;   /* now_s() at the start of the current second */
    int printed;           /* lines printed in it */
    long held;             /* lines held back in it */
} log_rate;
/* log_warn, unless the limit is reached. */
void log_rated(log_rate *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the count of held-back lines once their second is over. Returns
 * the seconds until it should be called again, or -1 if nothing is held. */
double log_rate_flush(log_rate *r);
/* Prints the count of held-back lines now (their source is closing). */
void log_rate_end(log_rate *r);

#endif
