/*
 * thread.h - the runtime's own threads (the comm thread, the userfaultfd
 * handler), started the one way they must be.
 */
#ifndef TSR_THREAD_H
#define TSR_THREAD_H

#include <pthread.h>

/* Starts fn on a new thread with every signal blocked, so that it never
 * runs the application's signal handlers, and stops the node naming
 * `what` (and the limits that usually cause it) if it cannot start. */
void thread_start(pthread_t *thread, void *(*fn)(void *), const char *what);

#endif
