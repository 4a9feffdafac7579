/*
 * boot.h - the node side of start-up: register with tsrun, learn every
 * node's endpoint, connect the full TCP mesh with the job secret (or,
 * under TSR_CONNECT=demand, leave each connection to the transport, which
 * opens it when it first sends to that peer: tcp_dial.h).
 */
#ifndef TSR_BOOT_H
#define TSR_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "boot/gate.h"

/* Connections to a node's peer port that may wait to show the secret. */
#define BOOT_GATE_CAP 16

typedef struct tsr_boot {
    int *peer_fd;  /* one per node; -1 for this node */
    int *host;     /* per node: the lowest-numbered node that peers reach at
                      the same address, which is on the same host */
    int listen_fd; /* kept open: later connections are refused and logged */
    int launcher_fd; /* connection to tsrun; -1 when run alone */
    gate gate;     /* the peer port's gate; after start-up every connection is a
                      stranger's (or, on demand, a peer's), and the comm thread
                      keeps the gate in its poll set to judge them */
    int on_demand; /* no mesh at start-up: peers connect when they first send */
    boot_endpoint *ep; /* on demand: every node's endpoint; NULL otherwise */
    /* On demand: the transport's judge of a peer's connection whose hello
     * (secret, node id) boot checked; takes fd (NULL) or says why not. */
    const char *(*peer_hello)(int node, int fd);
} tsr_boot;

extern tsr_boot boot;

/* Parses TSR_BOOT's "a.b.c.d:port": returns the IPv4 address and sets
 * *port, both in network order; exits with a message naming TSR_BOOT when
 * s is not of that form. */
uint32_t boot_parse_addr(const char *s, uint16_t *port);
/* Fills `boot`; exits with a message naming the cause on failure. */
void boot_start(void);
/* Stops this node because node `failed` failed (-1: the job as a whole),
 * `cause` saying how, e.g. "was killed by signal 9", and `reporter` (or -1)
 * having said so. tsrun is told first (BOOT_STOP), so that it reports the
 * failed node and not this one; then the message, and exit with
 * TSR_EXIT_PEER_FAILED. */
void boot_stop(int failed, const char *cause, int reporter) __attribute__((noreturn));
/* The same for a node this one found unresponsive (heartbeats): tsrun,
 * told so (BOOT_HUNG), stops the job at once rather than wait for the
 * node's own exit, which a hung node never makes. */
void boot_stop_hung(int failed, const char *cause) __attribute__((noreturn));
/* Reads what tsrun says once the job runs: BOOT_ABORT names a failed node
 * (returned, with tsrun's reason in why) or none (-1: a time-out); -1 with
 * why "lost contact with tsrun" means tsrun itself is gone. */
int boot_launcher_news(char *why, size_t len);
/* Under srun or mpirun: whether the launcher's process that started this
 * node (its parent) has ended, and why in `why`; the comm thread asks with
 * each heartbeat tick, so the node ends with its launcher. */
int boot_launcher_gone(char *why, size_t len);

/* tsr_init's last barrier is passed: every node has started. */
void boot_started(void);
/* Whether some host runs two nodes of the job (boot.host). */
int boot_hosts_shared(void);
/* On demand, both ends of a connection between peers: fills this node's
 * hello; writes the acceptor's acknowledgement on fd (0, or -1 if the
 * peer is gone); checks the one read back from `node` (1 if it is one). */
void boot_mesh_hello(boot_hello *h);
int boot_mesh_ack(int fd);
int boot_mesh_ack_ok(const boot_note *ack, int node);

/* Sends this node's counters to tsrun, which prints the job's one table
 * (TSR_STATS). Returns 0 if there is no tsrun to send them to: the node
 * prints its own table then. */
int boot_send_stats(void);
/* Tells tsrun this node finished tsr_finalize. */
void boot_fin(void);

#endif
