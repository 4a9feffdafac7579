#include "boot/budget.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "boot/boot.h"
#include "boot/gate.h"
#include "util/io.h"

/* Descriptors one process of the job needs at most. tsrun: stdio, the
 * SIGCHLD pipe, its gate, per node the boot connection and its pipes (two
 * outputs with -p, an input with --stdin or hosts; more while a node is
 * forked). A node: stdio, a connection
 * per peer, its gate, the listener, tsrun, the memfd, the eventfd, a
 * statistics file. Both get a margin for what libc may open. */
static long per_process(int nodes, int pipes)
{
    long launcher = 3 + 2 + GATE_POLLFDS(TSRUN_GATE_CAP) + (long)nodes * (1 + pipes) + 6;
    long node = 3 + (nodes - 1) + GATE_POLLFDS(BOOT_GATE_CAP) + 5;
    return (launcher > node ? launcher : node) + 16;
}

static int fit_process_limit(int nodes, int pipes, long need, char *why, size_t len)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= (rlim_t)need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need) {
        snprintf(why, len, "-n %d%s needs about %ld file descriptors per process but the limit "
                 "is %llu (raise it with ulimit -n)",
                 nodes, pipes ? " with its pipes" : "", need, (unsigned long long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = (rlim_t)need;
    if (setrlimit(RLIMIT_NOFILE, &rl)) {
        snprintf(why, len, "cannot raise the file descriptor limit to %ld for -n %d: %s", need,
                 nodes, strerror(errno));
        return -1;
    }
    return 0;
}

/* The full mesh holds about N descriptors in each of N processes. */
static int fit_system(int nodes, long need, char *why, size_t len)
{
    unsigned long long max, total = (unsigned long long)nodes * (unsigned long long)need;
    if (io_read_number("/proc/sys/fs/file-max", &max) || total <= max)
        return 0;
    snprintf(why, len, "-n %d needs about %llu file descriptors in all but the system allows "
             "%llu (fs.file-max)", nodes, total, max);
    return -1;
}

int budget_fit(int nodes, int pipes, char *why, size_t len)
{
    long need = per_process(nodes, pipes);
    if (fit_process_limit(nodes, pipes, need, why, len) || fit_system(nodes, need, why, len))
        return -1;
    return 0;
}
