/*
 * budget.h - what a job of N nodes needs from the system, checked by tsrun
 * before it starts anything, so that a job too large for this machine is
 * refused in one line rather than failing node after node.
 */
#ifndef TSR_BUDGET_H
#define TSR_BUDGET_H

#include <stddef.h>

/* Registrations that may wait at tsrun's port to show the secret. */
#define TSRUN_GATE_CAP 64

/* Makes the descriptor limit (which the nodes inherit from tsrun) fit a job
 * of `nodes` nodes, tsrun holding `pipes` pipes to each (two for -p, one
 * for its input): raises the soft limit up to the hard one if needed. Also
 * checks that the full mesh fits the system's fs.file-max. Returns 0, or -1
 * with why saying what is short. */
int budget_fit(int nodes, int pipes, char *why, size_t len);

#endif
