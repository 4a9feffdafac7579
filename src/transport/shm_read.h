/*
 * shm_read.h - the shm backend's reading side (shm_read.c), and the two
 * things of shm.c's it uses: the rings and the bells.
 */
#ifndef TSR_SHM_READ_H
#define TSR_SHM_READ_H

#include "transport/ring.h"

/* Ring (src, dst) in the job's shared memory: node src writes it. */
ring_hdr *shm_ring(int src, int dst);
/* Wakes node n's comm thread if it sleeps. Any thread, async-signal-safe. */
void shm_bell(int n);

/* Sets up the streams of this host's peers (after shm_hosts_start). */
void shm_read_start(void);
void shm_read_stop(void);
/* The comm thread's turn over ring (src, this node): every whole message
 * in it is delivered. Returns 1 if there was anything. */
int shm_receive_from(int src);
/* Whether any ring to this node holds a message. */
int shm_rings_arrived(void);
/* backend.h's take_replies: a waiting thread takes the reply at the
 * front of peer's ring. Returns how many it took. */
int shm_take_replies(int peer);
/* Reads ring (src, this node) to its end: src closed its socket, and its
 * MSG_BYE may still be in the ring. */
void shm_drain_ring(int src);

#endif
