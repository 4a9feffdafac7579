/*
 * tessera.h - the public API of Tessera, a software distributed shared memory.
 *
 * A program written against this header runs as N node processes (started by
 * `tsrun -n N prog`) that share one memory under release consistency: a
 * data-race-free program (one whose conflicting accesses are ordered by
 * tsr_lock/tsr_unlock or tsr_barrier) sees the same values it would on a real
 * shared-memory machine. Started without tsrun, a program is a one-node job.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_VERSION_MAJOR 0
#define TSR_VERSION_MINOR 1

/* Number of lock ids: tsr_lock(id) accepts 0 <= id < TSR_MAX_LOCKS. */
#define TSR_MAX_LOCKS 4096

/* ---- Start-up and shutdown ------------------------------------------------ */

/* Joins the job. Returns 0; on failure prints the cause and exits non-zero. */
int tsr_init(int *argc, char ***argv);
/* Waits for every node (a barrier), prints statistics if asked, leaves. */
void tsr_finalize(void);

int tsr_node(void);  /* this node's id, 0 .. tsr_nodes()-1 */
int tsr_nodes(void); /* number of nodes in the job */

/* ---- Shared memory -------------------------------------------------------- */

/* Where the homes (master copies) of an allocation's pages live. */
typedef enum {
    TSR_HOME_BLOCK = 0, /* contiguous runs of pages, one run per node (default) */
    TSR_HOME_CYCLIC,    /* round robin by `block_pages` pages (1 if 0) */
    TSR_HOME_NODE       /* every page at `home_node` */
} tsr_home_t;

/* Which coherence protocol keeps an allocation consistent. */
typedef enum {
    TSR_PROTO_HLRC = 0, /* home-based lazy release consistency (JIAJIA) */
    TSR_PROTO_MUNIN     /* Munin's multiple protocols, chosen by `annot` (tessera_munin.h) */
} tsr_proto_t;

/* How an allocation is placed and kept coherent. The last two fields are
 * Munin's (tessera_munin.h), kept here because the protocol is chosen at
 * tsr_alloc_attr, the call every protocol shares; other protocols ignore
 * them. */
typedef struct tsr_attr {
    tsr_home_t home;       /* placement of page homes (Munin: page owners) */
    size_t block_pages;    /* TSR_HOME_CYCLIC: pages per round-robin block */
    int home_node;         /* TSR_HOME_NODE: the node that homes every page */
    tsr_proto_t proto;     /* coherence protocol */
    int annot;             /* TSR_PROTO_MUNIN: a tsr_annotation (default TSR_CONVENTIONAL) */
    unsigned munin_params; /* TSR_PROTO_MUNIN with TSR_ANNOT_PARAMS: TSR_MUNIN_* bits */
} tsr_attr;

#define TSR_ATTR_DEFAULT {TSR_HOME_BLOCK, 0, 0, TSR_PROTO_HLRC, 0, 0}

/* Collective: every node calls it with the same arguments in the same order
 * and gets the same address. Memory starts zeroed and page aligned. It
 * ends with a barrier, like every collective call. */
void *tsr_alloc(size_t bytes);
void *tsr_alloc_attr(size_t bytes, const tsr_attr *attr);
/* Collective; begins with a barrier. */
void tsr_free(void *ptr);

/* ---- Synchronization ------------------------------------------------------ */

void tsr_lock(int id);
void tsr_unlock(int id);
void tsr_barrier(void);

/* Wall-clock seconds since an arbitrary fixed point. */
double tsr_wtime(void);

/* ---- Statistics ----------------------------------------------------------- */

/* Counters of this node since start or the last tsr_stats_reset(), those
 * every protocol has. The same names appear in the TSR_STATS table and in
 * the TSR_STATS_JSON objects. */
typedef struct tsr_stats {
    uint64_t messages_sent;
    uint64_t bytes_sent;
    uint64_t messages_received;
    uint64_t bytes_received;
    uint64_t read_faults;
    uint64_t write_faults;
    uint64_t page_fetches;
    uint64_t twins;
    uint64_t diffs_created;
    uint64_t diffs_applied;
    uint64_t diff_bytes;
    uint64_t invalidations;
    uint64_t lock_acquires;
    uint64_t remote_lock_acquires;
    uint64_t barriers;
    double barrier_wait_s;
    double lock_wait_s;
    double fault_wait_s;
} tsr_stats;

void tsr_stats_get(tsr_stats *out);
/* Zeroes tsr_stats and the named counters. */
void tsr_stats_reset(void);

/* Named counters: those of one protocol only (Munin's updates_sent, for
 * one; docs/CONFIG.md lists them), so that this header does not grow with
 * every protocol. They count from the same point as tsr_stats, and follow
 * its counters in the table and the JSON. */
int tsr_counter_count(void);         /* how many there are */
const char *tsr_counter_name(int i); /* the i-th, 0 <= i < tsr_counter_count(); else NULL */
/* Stores the counter's value in *value and returns 0; returns -1 (and
 * leaves *value alone) when no counter has that name. */
int tsr_counter_get(const char *name, uint64_t *value);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_H */
