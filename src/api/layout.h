/*
 * layout.h - every node of a job checks at tsr_init that its address
 * layout is node 0's (docs/GLOBALS.md).
 *
 * Each node takes a fingerprint of the images it has loaded: the program,
 * its libraries and the vDSO, in load order, each with its load address and
 * an identity (its GNU build-id, or the size and time of its file). Node 0
 * sends its fingerprint down the barrier tree (sync/tree.h), each node
 * passing it on to its children, and every node compares it with its own
 * before it enters tsr_init's barrier, so no node arrives there, with
 * frames that another setting might make unreadable, unless it agrees; a
 * difference stops the job naming the node and the image.
 * Under TSR_ASLR=keep addresses may differ and only the images are compared.
 */
#ifndef TSR_LAYOUT_H
#define TSR_LAYOUT_H

/* Takes this node's fingerprint and registers the handler that compares
 * node 0's with it. Before the transport starts. */
void layout_init(void);
/* Node 0 sends its fingerprint to its tree children; another node returns
 * once it has compared node 0's with its own and passed it on. */
void layout_check(void);

#endif
