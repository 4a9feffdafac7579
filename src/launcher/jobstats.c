/*
 * jobstats.c - the job's statistics table (jobstats.h). The nodes send
 * their counters over their tsrun connection rather than each printing
 * its own table, so that a person reads one table, nodes side by side,
 * whichever host each node ran on.
 */
#include "launcher/jobstats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/table.h"
#include "util/io.h"

static stats_table *table;
static int nodes;
/* Per node: counters taken, and whether a note of its was refused. */
static int *taken, *refused;

void jobstats_init(int n)
{
    nodes = n;
    table = stats_table_new(n, 0);
    taken = calloc((size_t)n, sizeof *taken);
    refused = calloc((size_t)n, sizeof *refused);
    if (!table || !taken || !refused) {
        fprintf(stderr, "tsrun: out of memory for the statistics of %d nodes\n", n);
        exit(1);
    }
}

void jobstats_take(int node, const boot_note *note)
{
    boot_stat s;
    memcpy(&s, note, sizeof s);
    if (refused[node])
        return;
    int named = memchr(s.name, 0, sizeof s.name) != NULL;
    if (named && s.kind <= BOOT_STAT_NS &&
        !stats_table_set(table, node, s.name, s.value, s.kind == BOOT_STAT_NS)) {
        taken[node]++;
        return;
    }
    /* The name is not printed: it may hold anything, escapes included. */
    refused[node] = 1;
    fprintf(stderr, "tsrun: node %d sent a statistics note with a bad kind (%u) or name; "
            "its later counters are left out of the table\n", node, s.kind);
}

void jobstats_print(void)
{
    int any = 0;
    for (int i = 0; i < nodes; i++)
        any |= taken[i] > 0;
    if (!any)
        return;
    for (int i = 0; i < nodes; i++)
        if (!taken[i])
            fprintf(stderr, "tsrun: node %d sent no statistics: its column reads 0\n", i);
    const char *mode = getenv("TSR_STATS");
    char *text = stats_table_format(table, mode && !strcmp(mode, "all"));
    if (!text) {
        fprintf(stderr, "tsrun: out of memory for the statistics table\n");
        return;
    }
    io_write_all(STDERR_FILENO, text, strlen(text));
    free(text);
}
