/* fork.h - fork/join and replicated sections (fork.c) as the rest of the
 * API layer sees them. */
#ifndef TSR_FORK_H
#define TSR_FORK_H

/* Registers the fork messages; at tsr_init. */
void fork_init(void);
/* At tsr_finalize, before its barrier: node 0 releases the nodes in
 * tsr_serve (and any that enter it later). */
void fork_finish(void);

#endif
