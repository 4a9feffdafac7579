/*
 * hosts.h - the host list of a multi-host job (tsrun -H, --hostfile).
 */
#ifndef TSR_HOSTS_H
#define TSR_HOSTS_H

#include <stddef.h>

typedef struct host {
    char *name;  /* as given: a name, an address, or user@either */
    int slots;   /* nodes it runs */
} host;

typedef struct host_list {
    host *host;
    int count;
    int slots;   /* sum over the hosts */
} host_list;

/* Adds the hosts of "a,b:4,c" (":N" gives a host N slots; default 1).
 * Returns 0, or -1 with why naming the bad item. */
int hosts_parse_list(host_list *hl, const char *spec, char *why, size_t len);
/* Adds the hosts of an Open MPI hostfile: one "name [slots=N]
 * [max_slots=M]" a line, '#' starting a comment. Returns 0, or -1 with why
 * naming the file and line. */
int hosts_parse_file(host_list *hl, const char *path, char *why, size_t len);
/* The host that runs `node` when nodes fill the hosts' slots in order, or
 * NULL if node is beyond the last slot. */
const char *hosts_of_node(const host_list *hl, int node);

#endif
