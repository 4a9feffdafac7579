/*
 * pmi.h - the job's name from MPICH's Hydra (PMI-1 over PMI_FD), for the
 * rendezvous directory of a job started by MPICH's mpirun.
 */
#ifndef TSR_PMI_H
#define TSR_PMI_H

#include <stddef.h>

/* Asks the process manager on PMI_FD for the job's key-value space name
 * and finishes with PMI. Returns 0 with the name in `name`, or -1 when
 * there is no PMI_FD or the conversation fails. */
int pmi_job_name(char *name, size_t len);

#endif
