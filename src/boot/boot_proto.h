/*
 * boot_proto.h - the wire format between tsrun and the nodes it starts, and
 * between nodes while they build the mesh. Shared by src/launcher/tsrun.c
 * and src/boot/boot.c.
 *
 *  node -> tsrun   BOOT_HELLO   I am node k, here is my secret and my port
 *  tsrun -> node   BOOT_TABLE   every node's address and port
 *  node -> node    MESH_HELLO   (lower id accepts; on demand, whoever is
 *                               first sent to) I am node k, my secret
 *  node -> node    MESH_ACK     accepted
 *  node -> tsrun   BOOT_FIN     I finished tsr_finalize; my exit is expected
 *  tsrun -> node   BOOT_ABORT   node k failed (why); stop now
 *  node -> tsrun   BOOT_STOP    I stop because node k failed (why): my exit
 *                               is a consequence, not a failure of my own
 *  node -> tsrun   BOOT_HUNG    the same, node k having stopped responding
 *                               (heartbeats): it will say nothing better of
 *                               itself, so stop the job and kill it now
 *  node -> tsrun   BOOT_DIED    I am ending for a reason of my own (why, as
 *                               printed on my stderr): repeat it with my exit
 *  node -> tsrun   BOOT_STAT    one of my counters (TSR_STATS), before BOOT_FIN
 */
#ifndef TSR_BOOT_PROTO_H
#define TSR_BOOT_PROTO_H

#include <stdint.h>

#define BOOT_MAGIC 0x31525354u /* "TSR1" */
#define BOOT_SECRET_LEN 32     /* hex characters */

enum {
    BOOT_HELLO = 1,
    BOOT_TABLE,
    BOOT_FIN,
    BOOT_ABORT,
    MESH_HELLO,
    MESH_ACK,
    BOOT_STOP,
    BOOT_HUNG,
    BOOT_DIED,
    BOOT_STAT
};

/* A reason, NUL included: a note of 1 KiB. Reasons are relayed whole up to
 * this (the longest the runtime writes, a Munin annotation error with two
 * addresses, is under 200 bytes); a program's own longer text is cut. */
#define BOOT_REASON_LEN 1012

typedef struct boot_hello {
    uint32_t magic, type;
    uint32_t node;
    int32_t pid;
    uint32_t addr; /* IPv4, network order */
    uint16_t port; /* network order */
    uint16_t pad;
    char secret[BOOT_SECRET_LEN];
} boot_hello;

/* Whether two job secrets are equal, comparing every byte whatever the
 * first difference: the time taken tells a stranger nothing about the
 * secret. Both ends of the boot protocol (nodes, tsrun) use it. */
static inline int boot_secret_equal(const char *a, const char *b)
{
    unsigned char diff = 0;
    for (int i = 0; i < BOOT_SECRET_LEN; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

typedef struct boot_endpoint {
    uint32_t addr;
    uint16_t port;
    uint16_t pad;
} boot_endpoint;

/* Table header; `nodes` boot_endpoint follow. */
typedef struct boot_table {
    uint32_t magic, type;
    uint32_t nodes;
    uint32_t pad;
} boot_table;

/* BOOT_ABORT about the whole job (a time-out), not about one node. */
#define BOOT_NO_NODE UINT32_MAX

typedef struct boot_note {
    uint32_t magic, type;
    uint32_t node;        /* BOOT_ABORT, BOOT_STOP, BOOT_HUNG: the failed node or BOOT_NO_NODE;
                             MESH_ACK: the acceptor; BOOT_DIED: the sender */
    char reason[BOOT_REASON_LEN]; /* BOOT_ABORT, BOOT_STOP, BOOT_HUNG, BOOT_DIED: why,
                                     NUL-terminated */
} boot_note;

/* BOOT_STAT: one counter, the size of a note, so that tsrun reads both
 * alike. tsrun checks every field (launcher/jobstats.c): the kind, and a
 * name of [a-z0-9_] ended within its field, of a unit that agrees with the
 * other nodes'; it keeps at most a table's rows of names. */
enum { BOOT_STAT_COUNT = 0, BOOT_STAT_NS = 1 };
typedef struct boot_stat {
    uint32_t magic, type;
    uint32_t kind;        /* BOOT_STAT_COUNT, or BOOT_STAT_NS: a wait in nanoseconds */
    char name[52];        /* NUL-terminated */
    uint64_t value;
    char pad[sizeof(boot_note) - 72];
} boot_stat;
_Static_assert(sizeof(boot_stat) == sizeof(boot_note), "a BOOT_STAT is read as a note");

#endif
