#include "boot/budget.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "boot/boot.h"
#include "boot/gate.h"
#include "util/io.h"

/* Links every node opens on demand whatever the program does: its two
 * heartbeat watchers and the two nodes it watches (transport/heartbeat.c),
 * its barrier-tree parent and at most 8 children (sync/tree.h). */
#define DEMAND_LINKS (4 + 1 + 8)

/* Descriptors tsrun needs: stdio, the SIGCHLD pipe, its gate, per node the
 * boot connection and its pipes (two outputs with -p, an input with
 * --stdin or hosts; more while a node is forked), a margin for libc. */
static long launcher_need(int nodes, int pipes)
{
    return 3 + 2 + GATE_POLLFDS(TSRUN_GATE_CAP) + (long)nodes * (1 + pipes) + 6 + 16;
}

/* Descriptors a node needs holding `peers` connections: stdio, its gate,
 * the listener, tsrun, the memfd, the eventfd, a statistics file, a margin
 * for libc. */
static long node_need(int peers)
{
    return 3 + peers + GATE_POLLFDS(BOOT_GATE_CAP) + 5 + 16;
}

static long most(long a, long b) { return a > b ? a : b; }

/* Refuses a hard limit below `need`; raises the soft one toward `want`
 * (the mesh's: a node on demand may still come to talk to every peer, and
 * a higher limit costs nothing), as far as the hard one allows. */
static int fit_process_limit(int nodes, int pipes, long need, long want, char *why, size_t len)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= (rlim_t)want)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need) {
        snprintf(why, len, "-n %d%s needs about %ld file descriptors per process but the limit "
                 "is %llu (raise it with ulimit -n)",
                 nodes, pipes ? " with its pipes" : "", need, (unsigned long long)rl.rlim_max);
        return -1;
    }
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (rlim_t)want)
        rl.rlim_cur = (rlim_t)want;
    else
        rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl)) {
        snprintf(why, len, "cannot raise the file descriptor limit to %ld for -n %d: %s", need,
                 nodes, strerror(errno));
        return -1;
    }
    return 0;
}

/* tsrun and its N nodes, each holding `node` descriptors. */
static int fit_system(int nodes, long launcher, long node, char *why, size_t len)
{
    unsigned long long max, total = (unsigned long long)launcher +
                                    (unsigned long long)nodes * (unsigned long long)node;
    if (io_read_number("/proc/sys/fs/file-max", &max) || total <= max)
        return 0;
    snprintf(why, len, "-n %d needs about %llu file descriptors in all but the system allows "
             "%llu (fs.file-max)", nodes, total, max);
    return -1;
}

long budget_node(int nodes, int on_demand)
{
    int peers = nodes - 1;
    if (on_demand && peers > DEMAND_LINKS)
        peers = DEMAND_LINKS;
    return node_need(peers);
}

int budget_fit(int nodes, int pipes, int on_demand, char *why, size_t len)
{
    long launcher = launcher_need(nodes, pipes), mesh = node_need(nodes - 1);
    long need = most(launcher, budget_node(nodes, on_demand));
    if (fit_process_limit(nodes, pipes, need, most(launcher, mesh), why, len) ||
        fit_system(nodes, launcher, budget_node(nodes, on_demand), why, len))
        return -1;
    return 0;
}
