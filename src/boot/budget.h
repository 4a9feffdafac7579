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

/* Descriptors one node of a job of `nodes` nodes needs: with its tcp links
 * on demand (`on_demand`), those every node opens whatever the program
 * does (heartbeat ring, barrier tree: at most 13), else the mesh's N - 1. */
long budget_node(int nodes, int on_demand);
/* Makes the descriptor limit (which the nodes inherit from tsrun) fit a job
 * of `nodes` nodes, tsrun holding `pipes` pipes to each (two for -p, one
 * for its input): refuses a hard limit below what tsrun and a node need,
 * and raises the soft limit toward the mesh's need, as far as the hard one
 * allows. Also checks that tsrun and the nodes (budget_node) fit the
 * system's fs.file-max. Returns 0, or -1 with why saying what is short. */
int budget_fit(int nodes, int pipes, int on_demand, char *why, size_t len);

#endif
