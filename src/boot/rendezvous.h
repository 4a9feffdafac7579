/*
 * rendezvous.h - a job without tsrun: rank and size from the launcher's
 * environment (srun, mpirun), peers met through a shared directory
 * (TSR_RENDEZVOUS; README, Running on a cluster).
 */
#ifndef TSR_RENDEZVOUS_H
#define TSR_RENDEZVOUS_H

#include <stddef.h>
#include <stdint.h>

#include "boot/boot_proto.h"

/* If a launcher that Tessera recognises started this process (Open MPI,
 * MPICH's Hydra, Slurm), sets *node and *nodes from its environment and
 * key to a name for the job's rendezvous directory, and returns 1; returns
 * 0 otherwise. Exits naming the variable when one holds a bad value. */
int rendezvous_detect(int *node, int *nodes, char *key, size_t len);
/* Publishes this node's endpoint (network order) in the job's directory,
 * waits up to TSR_CONNECT_TIMEOUT for every other node's and for the job
 * secret (which node 0 creates), and sets cfg.secret. Returns the table of
 * endpoints (malloc'd); exits naming the missing node on time-out. */
boot_endpoint *rendezvous_exchange(uint32_t addr, uint16_t port);
/* Node 0 removes the job's directory once the mesh is complete. */
void rendezvous_done(void);

#endif
