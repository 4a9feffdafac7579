/*
 * fatal.h - last words for the signals that end a node by the program's own
 * doing (abort, a bad pointer, a bus error, an arithmetic error, an illegal
 * instruction): the node says which and where on its stderr, and tsrun
 * repeats it (log_last_words), before the signal ends the process as it
 * would have.
 */
#ifndef TSR_FATAL_H
#define TSR_FATAL_H

/* Installs the handler for each such signal whose disposition is still the
 * default: a handler the program installed first is left alone, and one it
 * installs later replaces this one. */
void fatal_signals_install(void);

#endif
