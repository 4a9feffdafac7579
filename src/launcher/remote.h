/*
 * remote.h - tsrun's multi-host part: nodes started on other hosts through
 * ssh (-H, --hostfile, --ssh) and where tsrun's standard input goes
 * (--stdin). Without hosts every call leaves tsrun as it was on one host.
 */
#ifndef TSR_REMOTE_H
#define TSR_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "launcher/hosts.h"

/* --stdin: every node shares tsrun's input (one host, the default there),
 * no node gets any, every node gets a copy; a node id >= 0 gets it alone. */
enum { STDIN_INHERIT = -1, STDIN_NONE = -2, STDIN_ALL = -3 };

/* Options. Each returns 0, or -1 with why saying what is wrong. */
int remote_add_hosts(const char *spec, char *why, size_t len);      /* -H */
int remote_add_hostfile(const char *path, char *why, size_t len);   /* --hostfile */
int remote_set_stdin(const char *who, char *why, size_t len);       /* --stdin */
void remote_set_ssh(const char *cmd);                                /* --ssh */
/* The hosts' slots: the job's size when -n is not given (0: no hosts). */
int remote_slots(void);
/* Once the options are read: checks them against the job's size and sets
 * *addr (network order) to the address tsrun listens on. */
int remote_setup(int nodes, uint32_t *addr, char *why, size_t len);
/* Pipes tsrun holds per node for its input (for the descriptor budget). */
int remote_pipes_per_node(void);
/* The host that runs node, or NULL for a node on this host. */
const char *remote_host(int node);

/* Starting node `node`: remote_stdin_pipe before fork (sets *child_end to
 * the read end of its input, or -1); in the child, remote_exec, which
 * execs ssh for a remote node and returns for a local one; in tsrun,
 * remote_started, which sends a remote node its secret. */
int remote_stdin_pipe(int node, int *child_end);
void remote_exec(int node, int child_end, char *const argv[]);
void remote_started(int node, int child_end, const char *secret);
/* After every node started: forks the process that copies tsrun's input
 * to the chosen nodes (it dies with tsrun; tsrun reaps it like any child).
 * Returns 0, or -1 if fork failed. */
int remote_feed_stdin(void);

/* " (on host NAME)" for a remote node, "" otherwise; written to buf. */
const char *remote_where(int node, char *buf, size_t len);
/* Describes a remote node whose ssh ended with 255, ssh's own failure:
 * before registering, ssh could not start it; after, the node or the link
 * died (ssh reports a remote signal so too). Returns 1 if it described
 * the exit, 0 to describe it as usual. */
int remote_describe(int node, int registered, int status, char *buf, size_t len);

#endif
