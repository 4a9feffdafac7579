/*
 * table.h - the statistics table a person reads: counters as rows, nodes
 * as columns, then their total. tsrun fills one with every node's counters
 * at the end of a job; a node started by another launcher fills one with
 * its own. Rows keep the order their first value arrived in, and a row
 * all of whose values are zero is left out unless every row is asked for.
 * The fault rows end in a note telling hardware faults (faults_taken) from
 * protocol actions (read_faults, write_faults: range checks' work too).
 */
#ifndef TSR_STATS_TABLE_H
#define TSR_STATS_TABLE_H

#include <stdint.h>

/* A counter name is at most this long (the longest today is 22). */
#define STATS_NAME_MAX 47

typedef struct stats_table stats_table;

/* A table for `nodes` columns, the first numbered `first`; NULL if out of
 * memory. */
stats_table *stats_table_new(int nodes, int first);
void stats_table_free(stats_table *t);
/* Sets node's value of a counter; `ns` says it is a wait in nanoseconds,
 * printed as seconds (such counters' names end in _s). Returns -1,
 * leaving the table as it was, if the name is empty, too long or not
 * [a-z0-9_], if the counter is known with the other unit, or if the table
 * is full. */
int stats_table_set(stats_table *t, int node, const char *name, uint64_t value, int ns);
/* The table as text, ending in a newline: a malloc'd string, or NULL if out
 * of memory. `all`: the rows whose values are all zero too. */
char *stats_table_format(const stats_table *t, int all);

#endif
