/*
 * layout.h - every node of a job checks at tsr_init that its address
 * layout is node 0's (docs/GLOBALS.md).
 *
 * Each node takes a fingerprint of the images it has loaded: the program,
 * its libraries and the vDSO, in load order, each with its load address and
 * an identity (its GNU build-id, or the size and time of its file). Every
 * other node sends its fingerprint to node 0 before it enters tsr_init's
 * barrier, so node 0 has compared every one before any node leaves
 * tsr_init; a difference stops the job naming the node and the image.
 * Under TSR_ASLR=keep addresses may differ and only the images are compared.
 */
#ifndef TSR_LAYOUT_H
#define TSR_LAYOUT_H

/* Takes this node's fingerprint; on node 0, registers the handler that
 * compares the others'. Before the transport starts. */
void layout_init(void);
/* Sends this node's fingerprint to node 0 (nothing on node 0). */
void layout_send(void);

#endif
