/*
 * config.h - every TSR_* environment variable is read here and nowhere else;
 * docs/CONFIG.md lists them with their meaning and defaults.
 */
#ifndef TSR_CONFIG_H
#define TSR_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* Most nodes in a job. */
#define TSR_MAX_NODES 4096
/* Largest TSR_MEMORY: pages are numbered with 32 bits and UINT32_MAX means
 * "no page", so at most UINT32_MAX pages of 4 KiB (memory/region.c checks
 * that this agrees with PAGE_SIZE). */
#define TSR_MEMORY_MAX ((size_t)UINT32_MAX * 4096)

typedef enum { PROGRESS_HYBRID = 0, PROGRESS_SPIN, PROGRESS_BLOCK } progress_t;
typedef enum { DETECT_SEGV = 0, DETECT_UFFD, DETECT_AUTO } detect_t;
typedef enum { TRANSPORT_TCP = 0, TRANSPORT_SHM, TRANSPORT_AUTO, TRANSPORT_UDP, TRANSPORT_UCX } transport_t;
typedef enum { MULTICAST_TREE = 0, MULTICAST_IP, MULTICAST_OFF } multicast_t;
typedef enum { PROTO_HLRC = 0, PROTO_LRC, PROTO_SCOPE } job_proto_t;
typedef enum { STATS_OFF = 0, STATS_NONZERO, STATS_ALL } stats_t;

/* TSR_FAULTS: what the udp backend does to its datagrams on purpose. */
typedef struct tsr_faults {
    int on;                       /* TSR_FAULTS is set */
    double loss, dup, reorder;    /* probabilities per datagram */
    uint32_t delay_us;            /* a held datagram waits up to this */
    uint64_t seed;
} tsr_faults;

typedef struct tsr_config {
    int node, nodes;          /* TSR_NODE, TSR_NODES (set by tsrun) */
    const char *boot;         /* TSR_BOOT host:port of tsrun, NULL alone */
    const char *secret;       /* TSR_SECRET, hex */
    const char *addr;         /* TSR_ADDR: listen on this address of the host */
    const char *iface;        /* TSR_IFACE: listen on this interface's address */
    const char *rendezvous;   /* TSR_RENDEZVOUS: directory where srun/mpirun jobs meet */
    char job_key[128];        /* started by srun/mpirun: the job's name there, else "" */
    size_t memory;            /* TSR_MEMORY: size of the shared address space */
    uintptr_t base;           /* TSR_BASE: its address on every node */
    progress_t progress;      /* TSR_PROGRESS: hybrid | spin | block */
    unsigned spin_us;         /* TSR_SPIN_US: how long hybrid spins */
    unsigned poll_us;         /* TSR_POLL_US: least time between two looks of tsr_poll */
    stats_t stats;            /* TSR_STATS=0 | 1 (the counters not zero) | all: table at exit */
    const char *stats_json;   /* TSR_STATS_JSON: file to append JSON to */
    const char *trace;        /* TSR_TRACE: the job's timeline, NULL: none (docs/TRACE.md) */
    size_t trace_bytes;       /* TSR_TRACE_BYTES: each thread's trace buffer */
    int cache_only;           /* TSR_WRITE_DETECT=cache-only (default) | all */
    detect_t detect;          /* TSR_DETECT: segv | uffd | auto */
    double connect_timeout_s; /* TSR_CONNECT_TIMEOUT */
    int connect_on_demand;    /* TSR_CONNECT=start | demand (default): when tcp links open */
    uint32_t fetch_ahead;     /* TSR_FETCH_AHEAD: most pages one fetch brings */
    int home_migrate;         /* TSR_HOME_MIGRATE=off | on (default): move a page's home
                                 to its only writer at a barrier (hlrc_migrate.c) */
    int prefetch;             /* TSR_PREFETCH=off | notices (default): fetch at a barrier
                                 the pages its notices invalidated */
    int fetch_direct;         /* TSR_FETCH=message | direct (default): copy from a
                               * home on this host (memory/peers.c) */
    int diff_put;             /* TSR_DIFF_PUT=message | onesided (default): write a
                               * release's diffs into their home's memory over ucx
                               * (coherence/hlrc/hlrc_onesided.c) */
    unsigned stall_warn_s;    /* TSR_STALL_WARN: report a wait this long (0: never) */
    unsigned stall_abort_s;   /* TSR_STALL_ABORT: stop the job after it (0: never) */
    int threads;              /* TSR_THREADS: application threads per node (tsr_threads) */
    size_t malloc_memory;     /* TSR_MALLOC_MEMORY: top of the region kept for tsr_malloc */
    transport_t transport;    /* TSR_TRANSPORT: tcp | shm | auto | udp | ucx */
    tsr_faults faults;        /* TSR_FAULTS (udp only) */
    multicast_t multicast;    /* TSR_MULTICAST: tree | ip | off (docs/OMPNOW.md) */
    unsigned heartbeat_s;     /* TSR_HEARTBEAT: silence that fails a peer (0: never) */
    int shm_fd;               /* TSR_SHM_FD: tsrun's rings (shm.c), -1 without */
    job_proto_t proto;        /* TSR_PROTO=hlrc (default) | lrc | scope: what
                               * TSR_PROTO_JOB means (api/tessera.c) */
    int handoff_via_manager;  /* TSR_LOCK_HANDOFF=direct (default) | manager (ablation) */
    size_t lrc_gc_bytes;      /* TSR_LRC_GC_BYTES: LRC's interval and diff memory bound */
    size_t send_queue;        /* TSR_SEND_QUEUE: bytes queued to one peer before senders wait */
    int aslr_keep;            /* TSR_ASLR=keep: nodes may have different address layouts */
    int share_globals;        /* TSR_SHARE_GLOBALS=1: the program's globals are shared */
    int ga_engine;            /* TSR_GA_ENGINE: a tsr_ga_engine (tessera_ga.h), never the default */
    int ga_cache_node_bits;   /* TSR_GA_CACHE_NODE_BITS: OrderCache index bits from the node */
    int ga_cache_addr_bits;   /* TSR_GA_CACHE_ADDR_BITS: OrderCache index bits from the line */
} tsr_config;

extern tsr_config cfg;

/* The settings every node of a job must share, or the job goes wrong
 * (hangs, crashes, or stores pointers that mean another thing on another
 * node). At tsr_init node 0 compares each node's with its own and stops
 * the job naming the variable (api/layout.c). */
enum {
    SHARED_MEMORY, SHARED_BASE, SHARED_MALLOC_MEMORY, SHARED_PROTO, SHARED_SHARE_GLOBALS,
    SHARED_MULTICAST, SHARED_HEARTBEAT, CONFIG_SHARED
};
/* This node's values of the shared settings, as numbers. */
void config_shared(uint64_t value[CONFIG_SHARED]);
/* Setting i's variable, and `value` as that variable spells it, in buf. */
const char *config_shared_name(int i);
const char *config_shared_text(int i, uint64_t value, char *buf, size_t len);

/* How a process that tsrun did not start learns its place in a job that
 * srun or mpirun started: the boot layer's rendezvous_detect, which
 * tsr_init hands over (this layer, below boot, cannot call it). Returns 1
 * having set node, nodes and the job's key, or 0 for a process alone. */
typedef int config_probe(int *node, int *nodes, char *key, size_t len);
void config_set_probe(config_probe *probe);
/* Reads the environment into cfg; exits with a message on a bad value.
 * Without TSR_BOOT or a probe that recognizes a launcher, the process is a
 * job of one node. */
void config_load(void);
/* Parses "16G", "512M", "4096", "64k", "16GiB", "0x100000": returns 0, or
 * -1 if s is not such a size or the size does not fit in size_t. */
int config_parse_size(const char *s, size_t *out);

#endif
