/*
 * chain.h - the program's own SIGSEGV handler, kept behind the runtime's.
 *
 * The library defines sigaction() and signal(): a program linked with it
 * calls these rather than the C library's. Once the runtime's handler is
 * installed, a SIGSEGV disposition the program sets is recorded instead of
 * installed, and the runtime's handler hands it every fault that is not on
 * shared memory. Without this, a handler installed after tsr_init would
 * take over every coherence fault. Other signals pass straight through.
 * SIGBUS is not intercepted: the runtime does not use it.
 */
#ifndef TSR_CHAIN_H
#define TSR_CHAIN_H

#include <signal.h>

/* Installs `handler` for SIGSEGV; the disposition it replaces becomes the
 * program's, as does any the program sets later. */
void chain_install(void (*handler)(int, siginfo_t *, void *));
/* Runs the program's SIGSEGV disposition for a fault that is not the
 * runtime's. Async-signal-safe. */
void chain_pass_on(int sig, siginfo_t *info, void *uctx);

#endif
