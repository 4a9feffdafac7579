/*
 * hosts.c - the hosts of a multi-host job: `tsrun -H a,b:4` or a hostfile
 * in Open MPI's syntax (`b slots=4`), and which host each node runs on.
 *
 * Nodes fill the hosts in order, each host taking as many nodes as it has
 * slots (Open MPI's --map-by slot), so that neighbouring node ids, which
 * exchange the most under block distributions, share a host.
 */
#include "launcher/hosts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS 4096

/* A host name goes to ssh as one argument: it may not look like an option,
 * and holds only what host names, user@ and IPv4 addresses are made of. */
static int name_ok(const char *s)
{
    if (!*s || *s == '-' || strlen(s) > 255)
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_@") ==
           strlen(s);
}

static int parse_slots(const char *s, int *slots)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > MAX_SLOTS)
        return -1;
    *slots = (int)v;
    return 0;
}

static int add_host(host_list *hl, const char *name, int slots, char *why, size_t len)
{
    if (!name_ok(name)) {
        snprintf(why, len, "'%s' is not a host name", name);
        return -1;
    }
    host *grown = realloc(hl->host, (size_t)(hl->count + 1) * sizeof *grown);
    if (grown) /* the old block is gone now, whatever follows */
        hl->host = grown;
    char *copy = grown ? strdup(name) : NULL;
    if (!copy) {
        snprintf(why, len, "out of memory for the host list");
        return -1;
    }
    hl->host[hl->count++] = (host){copy, slots};
    hl->slots += slots;
    return 0;
}

int hosts_parse_list(host_list *hl, const char *spec, char *why, size_t len)
{
    char *copy = strdup(spec), *save = NULL, *item;
    int rc = copy ? 0 : -1;
    if (!copy)
        snprintf(why, len, "out of memory for the host list");
    for (item = copy ? strtok_r(copy, ",", &save) : NULL; item && !rc;
         item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        int slots = 1;
        if (colon) {
            *colon = 0;
            if (parse_slots(colon + 1, &slots)) {
                snprintf(why, len, "-H: '%s' has no slot count from 1 to %d after ':'", item,
                         MAX_SLOTS);
                rc = -1;
                break;
            }
        }
        rc = add_host(hl, item, slots, why, len);
    }
    free(copy);
    if (!rc && !hl->count) {
        snprintf(why, len, "-H names no host");
        rc = -1;
    }
    return rc;
}

/* One hostfile line: "name [slots=N] [max_slots=M]"; max_slots, which only
 * bounds Open MPI's oversubscription, is accepted and ignored. */
static int parse_line(host_list *hl, char *line, const char *path, int lineno, char *why,
                      size_t len)
{
    char *save = NULL, *name = strtok_r(line, " \t\r\n", &save), *word;
    int slots = 1;
    if (!name)
        return 0;
    while ((word = strtok_r(NULL, " \t\r\n", &save))) {
        if (!strncmp(word, "slots=", 6) && !parse_slots(word + 6, &slots))
            continue;
        if (!strncmp(word, "max_slots=", 10))
            continue;
        snprintf(why, len, "%s:%d: '%s' is neither slots=N (1 to %d) nor max_slots=N", path,
                 lineno, word, MAX_SLOTS);
        return -1;
    }
    if (add_host(hl, name, slots, why, len)) {
        char what[160];
        snprintf(what, sizeof what, "%s", why);
        snprintf(why, len, "%s:%d: %s", path, lineno, what);
        return -1;
    }
    return 0;
}

int hosts_parse_file(host_list *hl, const char *path, char *why, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, len, "cannot read the hostfile %s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        rc = parse_line(hl, line, path, lineno, why, len);
    }
    fclose(f);
    if (!rc && !hl->count) {
        snprintf(why, len, "the hostfile %s names no host", path);
        rc = -1;
    }
    return rc;
}

const char *hosts_of_node(const host_list *hl, int node)
{
    for (int i = 0; i < hl->count; i++) {
        if (node < hl->host[i].slots)
            return hl->host[i].name;
        node -= hl->host[i].slots;
    }
    return NULL;
}
