/*
 * jobstats.h - the job's one statistics table: tsrun gathers each node's
 * counters (BOOT_STAT notes, sent at tsr_finalize when TSR_STATS is set)
 * and prints them once every node has exited.
 */
#ifndef TSR_LAUNCHER_JOBSTATS_H
#define TSR_LAUNCHER_JOBSTATS_H

#include "boot/boot_proto.h"

/* Before the first note: the job's size. Exits if out of memory. */
void jobstats_init(int nodes);
/* Takes node's BOOT_STAT note, checking every field; a bad one is named
 * and leaves that node out of the table. */
void jobstats_take(int node, const boot_note *note);
/* Prints the table to stderr if any node sent counters: every counter with
 * TSR_STATS=all, else those not zero. A node that sent none (it failed
 * first) is named instead. */
void jobstats_print(void);

#endif
