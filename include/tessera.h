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

/* The library is built with -fvisibility=hidden: only what is marked TSR_API
 * is exported, so no internal name can collide with a program's own. */
#if defined(__GNUC__)
#define TSR_API __attribute__((visibility("default")))
#else
#define TSR_API
#endif

/* Number of lock ids: tsr_lock(id) accepts 0 <= id < TSR_MAX_LOCKS. */
#define TSR_MAX_LOCKS 4096

/* ---- Start-up and shutdown ------------------------------------------------ */

/* Joins the job. Returns 0; on failure prints the cause and exits non-zero. */
TSR_API int tsr_init(int *argc, char ***argv);
/* Waits for every node (a barrier), prints statistics if asked, leaves. */
TSR_API void tsr_finalize(void);

TSR_API int tsr_node(void);  /* this node's id, 0 .. tsr_nodes()-1 */
TSR_API int tsr_nodes(void); /* number of nodes in the job */

/* ---- Shared memory -------------------------------------------------------- */

/* Where the homes (master copies) of an allocation's pages live. */
typedef enum {
    TSR_HOME_BLOCK = 0, /* contiguous runs of pages, one run per node (default) */
    TSR_HOME_CYCLIC,    /* round robin by `block_pages` pages (1 if 0), from `start_node` */
    TSR_HOME_NODE       /* every page at `home_node` */
} tsr_home_t;

/* Which coherence protocol keeps an allocation consistent. */
typedef enum {
    TSR_PROTO_HLRC = 0, /* home-based lazy release consistency (JIAJIA) */
    TSR_PROTO_MUNIN     /* Munin's multiple protocols, chosen by `annot` */
} tsr_proto_t;

/* Munin's sharing annotations (Carter, Bennett, Zwaenepoel, SOSP 1991,
 * Section 2.3.2). Each stands for one row of the paper's Table 1, i.e. one
 * setting of the TSR_MUNIN_* parameters below (tsr_munin_params). */
typedef enum {
    TSR_CONVENTIONAL = 0,  /* single writer, write-invalidate, sequentially consistent */
    TSR_READ_ONLY,         /* replicated on demand; a write stops the job */
    TSR_MIGRATORY,         /* one copy, moved with read+write access to each accessor */
    TSR_WRITE_SHARED,      /* replicated, several writers, diffs sent to copies at release */
    TSR_PRODUCER_CONSUMER, /* write_shared whose copy holders are fixed after the first updates */
    TSR_REDUCTION,         /* fixed owner; changed only through tsr_reduce_* */
    TSR_RESULT,            /* several writers whose diffs go only to the owner */
    TSR_ANNOT_PARAMS       /* no annotation: use tsr_attr.munin_params as given */
} tsr_annotation;

/* The eight protocol parameters of Section 2.3.1, one bit each. */
#define TSR_MUNIN_INVALIDATE 0x01u   /* I:  invalidate copies (else update them) */
#define TSR_MUNIN_REPLICAS 0x02u     /* R:  more than one copy may exist */
#define TSR_MUNIN_DELAYED 0x04u      /* D:  changes may wait for the release */
#define TSR_MUNIN_FIXED_OWNER 0x08u  /* FO: ownership never moves */
#define TSR_MUNIN_MULTI_WRITER 0x10u /* M:  concurrent writers allowed */
#define TSR_MUNIN_STABLE 0x20u       /* S:  the set of sharers never changes */
#define TSR_MUNIN_FLUSH_OWNER 0x40u  /* Fl: changes go to the owner only, then the copy is dropped */
#define TSR_MUNIN_WRITABLE 0x80u     /* W:  the object may be written */

typedef struct tsr_attr {
    tsr_home_t home;       /* placement of page homes (Munin: page owners) */
    size_t block_pages;    /* TSR_HOME_CYCLIC: pages per round-robin block */
    int home_node;         /* TSR_HOME_NODE: the node that homes every page */
    tsr_proto_t proto;     /* coherence protocol */
    tsr_annotation annot;  /* TSR_PROTO_MUNIN: the sharing annotation */
    unsigned munin_params; /* TSR_PROTO_MUNIN with TSR_ANNOT_PARAMS: TSR_MUNIN_* bits */
    int start_node;        /* TSR_HOME_CYCLIC: the node that homes the first block */
} tsr_attr;

#define TSR_ATTR_DEFAULT {TSR_HOME_BLOCK, 0, 0, TSR_PROTO_HLRC, TSR_CONVENTIONAL, 0, 0}

/* The parameter bits of an annotation: its row of Table 1 (a "-" there is 0). */
TSR_API unsigned tsr_munin_params(tsr_annotation annot);

/* Collective: every node calls it with the same arguments in the same order
 * and gets the same address. Memory starts zeroed and page aligned. It
 * ends with a barrier, like every collective call. */
TSR_API void *tsr_alloc(size_t bytes);
TSR_API void *tsr_alloc_attr(size_t bytes, const tsr_attr *attr);
/* Collective; begins with a barrier. */
TSR_API void tsr_free(void *ptr);

/* Not collective: this node alone allocates `bytes` of shared memory, as
 * TreadMarks' Tmk_malloc does; no other node takes part or waits. Its home
 * is this node and it is kept by the home-based protocol (TSR_PROTO_HLRC).
 * Like malloc, the memory is not zeroed (fresh memory reads as zero, reused
 * memory keeps what was there) and is 16-byte aligned; requests of 2 KiB or
 * less are packed together into pages, larger ones get whole pages.
 * Another node may use it once the pointer has reached it through a
 * synchronization: written into shared memory before a tsr_unlock or
 * tsr_barrier that the other node's tsr_lock or tsr_barrier follows (or
 * sent with Tmk_distribute). Its first access there learns the pages from
 * their home. It comes from this node's arena, a share of the top
 * TSR_MALLOC_MEMORY bytes of the region (docs/CONFIG.md); stops the job
 * when the arena is full. */
TSR_API void *tsr_malloc(size_t bytes);
/* Frees memory from tsr_malloc. Only the node that allocated it may free
 * it, and only once no node uses it any more; the memory is reused by that
 * node's later tsr_malloc calls. NULL is ignored. */
TSR_API void tsr_free_local(void *ptr);

/* ---- Synchronization ------------------------------------------------------ */

TSR_API void tsr_lock(int id);
TSR_API void tsr_unlock(int id);
TSR_API void tsr_barrier(void);

/* ---- Munin: reductions and hints ------------------------------------------ */

/* Fetch_and_Phi on a TSR_REDUCTION object: the operation is performed at
 * the object's owner, atomically, and returns the value before it. */
typedef enum { TSR_OP_ADD, TSR_OP_MIN, TSR_OP_MAX, TSR_OP_SWAP } tsr_op;
TSR_API int64_t tsr_reduce_i64(int64_t *addr, tsr_op op, int64_t value);
TSR_API double tsr_reduce_f64(double *addr, tsr_op op, double value);

/* Hints (Section 2.4). `ptr` is any address inside a Munin allocation, which
 * is the object they apply to. Collective ones (every node calls them in
 * the same order, like tsr_alloc) are marked so. */
/* Collective, before the object is first written: the object travels with
 * lock `lock` - each grant carries its value, so the critical section does
 * not miss on it. See docs/MUNIN.md for the rules. */
TSR_API void tsr_hint_lock_data(int lock, void *ptr);
/* Collective: forget who shares the object (producer_consumer's stable
 * pattern is learned anew from the next updates). */
TSR_API void tsr_hint_phase_change(void *ptr);
/* Collective: keep the object consistent with another annotation from now on. */
TSR_API void tsr_hint_change_annotation(void *ptr, tsr_annotation annot);
/* Drops this node's copy, after sending its pending changes. */
TSR_API void tsr_hint_invalidate(void *ptr);
/* Sends this node's buffered changes to the object now. */
TSR_API void tsr_hint_flush(void *ptr);
/* A miss on any page of the object fetches all of it in one exchange. */
TSR_API void tsr_hint_single_object(void *ptr);
/* Fetches a copy of the whole object now, ahead of its use. */
TSR_API void tsr_hint_preacquire(void *ptr);

/* Wall-clock seconds since an arbitrary fixed point. */
TSR_API double tsr_wtime(void);

/* ---- Statistics ----------------------------------------------------------- */

/* Counters of this node since start or the last tsr_stats_reset(). The same
 * names appear in the TSR_STATS table and in the TSR_STATS_JSON objects,
 * which are taken after tsr_finalize's barrier: summed over the nodes,
 * messages sent then equal messages received. tsr_stats_reset() is not
 * collective: it zeroes this node's counters alone, at once. */
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
    uint64_t write_notices;
    uint64_t release_pages;
    uint64_t lock_acquires;
    uint64_t remote_lock_acquires;
    uint64_t barriers;
    uint64_t updates_sent;
    uint64_t updates_applied;
    uint64_t reductions;
    double barrier_wait_s;
    double lock_wait_s;
    double fault_wait_s;
} tsr_stats;

TSR_API void tsr_stats_get(tsr_stats *out);
TSR_API void tsr_stats_reset(void);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_H */
