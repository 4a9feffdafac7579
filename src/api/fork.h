/* fork.h - fork/join and replicated sections (fork.c) as the rest of the
 * API layer sees them. */
#ifndef TSR_FORK_H
#define TSR_FORK_H

/* Sets the rule of the forks' notes; at tsr_init. */
void fork_init(void);
/* tsr_finalize's barrier: node 0's ends tsr_serve on the other nodes
 * (those that enter it later too), which then have passed it. */
void fork_finalize(void);
/* Node 0 ends tsr_serve on the other nodes before tsr_finalize
 * (TreadMarks' Tmk_sched_exit): a barrier, after which they go on with the
 * program. Collective: nodes not in tsr_serve call a barrier. */
void fork_end_serve(void);

#endif
