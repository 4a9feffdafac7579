/*
 * aslr.h - one address layout per job (docs/GLOBALS.md).
 *
 * A program written for threads stores pointers to its globals, its code
 * and its libraries' functions in shared data; another node can follow such
 * a pointer only if the same thing lies at the same address there. So the
 * launcher starts every node with address-space randomisation disabled
 * for that job, unless TSR_ASLR=keep, and the nodes compare their layouts
 * at tsr_init (api/layout.c).
 */
#ifndef TSR_ASLR_H
#define TSR_ASLR_H

/* TSR_ASLR: 0 for `off` (the default), 1 for `keep`, -1 for any other value. */
int aslr_keep(void);
/* In a launcher's child about to exec a node: turns randomisation off for
 * that process (personality ADDR_NO_RANDOMIZE, inherited across exec)
 * unless TSR_ASLR=keep. Returns 0, or -1 with errno set. */
int aslr_prepare_exec(void);

/* In a node that srun or mpirun started (randomisation on, since no launcher
 * of ours turned it off): starts the program again, once, from the top,
 * with randomisation off, so that its layout is node 0's. Called first
 * thing in tsr_init, before the node does anything shared; what the
 * program did before tsr_init runs again. Returns only if it needs not or
 * cannot (the layout check then names what differs). */
void aslr_restart(char **argv);

#endif
