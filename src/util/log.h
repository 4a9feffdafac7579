/*
 * log.h - how Tessera reports trouble. Every message names the node it comes
 * from, so the interleaved output of a job says who saw what.
 */
#ifndef TSR_LOG_H
#define TSR_LOG_H

#include <stdarg.h>

/* Exit status of a node stopped because another node failed. */
#define TSR_EXIT_PEER_FAILED 3

/* Sets the prefix ("tessera: node 3") used by the functions below. */
void log_set_node(int node);
/* Prints "tessera: node N: <msg>" to stderr. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message and exits the process with status 1. */
void log_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* As log_die, with the given status; safe from any thread (uses _exit after
 * one write(2) so that no lock a stopped thread holds can hang it). */
void log_die_status(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* Verbose tracing, enabled by TSR_VERBOSE=1. */
extern int log_verbose;
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
