/*
 * shm.h - the shared memory that the shm backend's rings live in.
 *
 * tsrun makes it, before starting the nodes of a job on one host, as a
 * memfd: it has no name in any file system, and /proc/PID/fd opens it only
 * for a process allowed to trace a node (never another user's); each node
 * inherits the descriptor (TSR_SHM_FD), maps it and closes it.
 */
#ifndef TSR_SHM_H
#define TSR_SHM_H

#include <stddef.h>

/* Bytes of the rings of a job of `nodes` nodes. */
size_t shm_bytes(int nodes);
/* Makes the memfd for `nodes` nodes, close-on-exec (the child clears that
 * for its node). Returns the descriptor, or -1 with errno set. */
int shm_create(int nodes);
/* A job tsrun did not start on its host alone (shm_share.c): the rings of
 * `bytes` that this host's nodes share, made by the first of them. Returns
 * the descriptor; stops the node naming the cause if it cannot. */
int shm_host_rings(size_t bytes);

#endif
