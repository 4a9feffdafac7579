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

/* A global variable that stays private to each node when the program's
 * globals are shared (TSR_SHARE_GLOBALS=1, docs/GLOBALS.md):
 * `static TSR_PRIVATE int calls;`. Thread-local storage lies outside the
 * program's .data and .bss, and the program has one thread per node. */
#define TSR_PRIVATE __thread

/* Written once at file scope in one source file of a program
 * (`TSR_SHARE_GLOBALS;`), shares the program's globals as
 * TSR_SHARE_GLOBALS=1 in the environment would: the choice travels with the
 * program. The runtime looks for this symbol, weakly. */
#define TSR_SHARE_GLOBALS const int tsr_share_globals_opt_in = 1

/* Number of lock ids: tsr_lock(id) accepts 0 <= id < TSR_MAX_LOCKS.
 * Room for a lock per cell box of SPLASH-3's WATER-SPATIAL at 32,768
 * molecules (4,096 and its other locks) and four times that; each costs
 * each node about 150 bytes (docs/API.md, "Limits"). */
#define TSR_MAX_LOCKS 16384
/* Number of pause flags: tsr_flag_*(id) accept 0 <= id < TSR_MAX_FLAGS. */
#define TSR_MAX_FLAGS 4096

/* ---- Start-up and shutdown ------------------------------------------------ */

/* Joins the job. Returns 0; on failure prints the cause and exits non-zero. */
TSR_API int tsr_init(int *argc, char ***argv);
/* Waits for every node (a barrier), prints statistics if asked, leaves. */
TSR_API void tsr_finalize(void);

TSR_API int tsr_node(void);  /* this node's id, 0 .. tsr_nodes()-1 */
TSR_API int tsr_nodes(void); /* number of nodes in the job */
/* The number of application threads this node is meant to run: TSR_THREADS
 * (default 1), for instance the cores of a host that runs one node
 * (docs/CLUSTER.md, "One node per host or one per core"). Tessera starts no
 * thread itself: the program starts them, and passes the count to
 * tsr_barrier_threads. Any thread may call it. */
TSR_API int tsr_threads(void);

/* ---- Shared memory -------------------------------------------------------- */

/* Where the homes (master copies) of an allocation's pages live. */
typedef enum {
    TSR_HOME_BLOCK = 0, /* contiguous runs of pages, one run per node in node order, the
                         * first (pages % nodes) runs one page longer (default) */
    TSR_HOME_CYCLIC,    /* round robin by `block_pages` pages (1 if 0), from `start_node` */
    TSR_HOME_NODE       /* every page at `home_node` */
} tsr_home_t;

/* Which coherence protocol keeps an allocation consistent. */
typedef enum {
    TSR_PROTO_HLRC = 0, /* home-based lazy release consistency */
    TSR_PROTO_MUNIN,    /* Munin's multiple protocols, chosen by `annot` (tessera_munin.h) */
    TSR_PROTO_LRC,      /* TreadMarks' homeless lazy release consistency (homes ignored) */
    TSR_PROTO_SCOPE,    /* the home-based protocol with JIAJIA's scope consistency: a lock
                         * brings the writes made under that lock, a barrier all writes */
    TSR_PROTO_JOB       /* the job's protocol, TSR_PROTO (hlrc unless set): TSR_ATTR_DEFAULT's,
                         * so that an allocation naming any other keeps it */
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
    int start_node;        /* TSR_HOME_CYCLIC: the node that homes the first block */
} tsr_attr;

#define TSR_ATTR_DEFAULT {TSR_HOME_BLOCK, 0, 0, TSR_PROTO_JOB, 0, 0, 0}

/* Collective: every node calls it with the same arguments in the same order
 * and gets the same address. Memory starts zeroed and page aligned. It
 * ends with a barrier, like every collective call. */
TSR_API void *tsr_alloc(size_t bytes);
TSR_API void *tsr_alloc_attr(size_t bytes, const tsr_attr *attr);
/* Collective; begins with a barrier. */
TSR_API void tsr_free(void *ptr);

/* Not collective: this node alone allocates `bytes` of shared memory, as
 * TreadMarks' Tmk_malloc does; no other node takes part or waits. It is
 * kept by the default protocol (TSR_PROTO: the home-based one, homed at
 * this node, or TreadMarks'); a page keeps the protocol of its first
 * allocation when it is freed and reused (a Munin object's pages do not:
 * see tsr_malloc_attr). (Tmk_malloc's memory is TreadMarks'.)
 * Like malloc, the memory is not zeroed (fresh memory reads as zero, reused
 * memory keeps what was there) and is 16-byte aligned; requests of 2 KiB or
 * less are packed together into pages, larger ones get whole pages.
 * Another node may use it once the pointer has reached it through a
 * synchronization: written into shared memory before a tsr_unlock or
 * tsr_barrier that the other node's tsr_lock or tsr_barrier follows (or
 * sent with Tmk_distribute). Its first access there learns the pages from
 * this node. It comes from this node's arena, a share of the top
 * TSR_MALLOC_MEMORY bytes of the region (docs/CONFIG.md); stops the job
 * when the arena is full. */
TSR_API void *tsr_malloc(size_t bytes);
/* Not collective either: tsr_malloc with the protocol of attr->proto
 * (placement fields ignored: the pages are homed, or managed, at this node).
 *   TSR_PROTO_MUNIN: an object of whole pages of its own, with attr's
 *     annotation (tessera_munin.h), managed here; other nodes learn the
 *     annotation at their first access, hint or tsr_reduce on it.
 *   TSR_PROTO_JOB: tsr_malloc's protocol (TSR_PROTO's, or Tmk_startup's).
 *   TSR_PROTO_HLRC: the home-based protocol, even when TSR_PROTO is lrc.
 *   TSR_PROTO_SCOPE: the home-based protocol under scope consistency.
 *   TSR_PROTO_LRC: only in a job whose own allocations are TreadMarks'
 *     already (TSR_PROTO=lrc, or Tmk_startup), since its locks and
 *     barriers must carry its timestamps on every node. */
TSR_API void *tsr_malloc_attr(size_t bytes, const tsr_attr *attr);
/* Frees memory from tsr_malloc or tsr_malloc_attr. Only the node that
 * allocated it may free it, and only once no node uses it any more; the
 * memory is reused by that node's later allocations. Freeing a Munin object
 * waits until every node has forgotten its pages (one message to each
 * node and back); an object bound to a lock (tsr_hint_lock_data) cannot be
 * freed. NULL is ignored. */
TSR_API void tsr_free_local(void *ptr);

/* ---- Synchronization ------------------------------------------------------ */

/* Locks are held by threads: any thread may take one, and mutual exclusion
 * holds among all threads of all nodes; a lock released by a thread goes
 * to a waiting thread of the same node without a message (docs/API.md,
 * "Threads"). tsr_barrier is called by one thread per node. */
TSR_API void tsr_lock(int id);
TSR_API void tsr_unlock(int id);
/* Takes lock `id` if it is free, without waiting: 1 if the calling thread
 * now holds it (as after tsr_lock), 0 if a thread of some node holds it or
 * waits for it. One round trip to the lock's manager, which never queues a
 * try; a failed try orders no memory. */
TSR_API int tsr_trylock(int id);
TSR_API void tsr_barrier(void);
/* A barrier of every thread of the job, as ArgoDSM's
 * argo::barrier(threadcount): each of `threads` threads of every node calls
 * it, all with the same count; the node's threads combine and the node
 * sends one arrival. Any thread may call it; with threads = 1 it is
 * tsr_barrier. */
TSR_API void tsr_barrier_threads(int threads);

/* ---- Fork/join and replicated sections (docs/OMPNOW.md) ------------------- */

/* Fork/join as TreadMarks and OpenMP run parallel sections. Node 0 runs the
 * program; the other nodes call tsr_serve() after tsr_init and wait there.
 * tsr_fork(fn, arg) on node 0 runs fn(arg) on every node, node 0 included
 * (fn must be a function of the program: it is named by its place in the
 * binary, the same on every node; arg is passed as it is, so it should be
 * a value or point into shared memory). Node 0's writes before the fork
 * are seen by fn everywhere. tsr_join() on node 0 returns once every node
 * has finished fn, whose writes node 0 then sees; the servers go back to
 * waiting. Forks do not nest. tsr_serve() returns when node 0 calls
 * tsr_finalize; the server then calls tsr_finalize too. These calls, and
 * the replicated sections below, are made once per node, by the thread
 * that called tsr_init: from another thread they stop the program naming
 * the call (fn may start threads of its own). */
TSR_API void tsr_fork(void (*fn)(void *arg), void *arg);
TSR_API void tsr_join(void);
TSR_API void tsr_serve(void);

/* Replicated sequential sections (OpenMP/NOW): between
 * tsr_replicate_begin() and tsr_replicate_end(), both collective, every
 * node runs the same sequential code, and its writes to shared memory stay
 * on the node that made them (every node makes them), so no node has to
 * fetch them after the section. The code must write the same values on
 * every node (no tsr_node()-dependent writes to shared memory). Inside, a
 * tsr_fork() made by every node ends the section and starts fn(arg) on all,
 * and the tsr_join() after it begins the next section. tsr_alloc is
 * allowed (every node makes the same call); tsr_malloc is refused.
 * Input and output run on every node: guard them with tsr_node() == 0
 * where they must happen once. */
TSR_API void tsr_replicate_begin(void);
TSR_API void tsr_replicate_end(void);
TSR_API int tsr_replicated(void); /* 1 inside a replicated section */

/* Pause flags (PARMACS' PAUSE family): a node signals others without a
 * barrier. tsr_flag_set(id) raises flag id as a release: whoever returns
 * from tsr_flag_wait(id) after it (an acquire) sees every write the setter
 * made before the set. tsr_flag_wait returns at once if the flag is up.
 * tsr_flag_clear(id) lowers it and returns once it is down, so a set made
 * after it (by any node that learnt of the clear) is not undone; sets and
 * clears by one node take effect in the order made. Flags start down.
 * Any thread may call them: a set or a wait is a release or an acquire
 * for the calling thread, and the node's threads that wait for one flag
 * at once share one request and all return once it is up. */
TSR_API void tsr_flag_set(int id);
TSR_API void tsr_flag_clear(int id);
TSR_API void tsr_flag_wait(int id);

/* Wall-clock seconds since an arbitrary fixed point. */
TSR_API double tsr_wtime(void);

/* ---- Consistency checks (CAS-DSM; docs/CAS.md) ----------------------------
 * What the compiler pass of tsrcc inserts before loop nests, and what a
 * program may write by hand: make the pages of a range consistent for
 * reading, or for reading and writing, now, as faults on them would, so
 * that the accesses that follow take no fault. Protocols that can bring the
 * pages in one exchange per home do (the home-based one). Pages that are
 * already consistent cost one byte load each. Bytes outside the shared
 * memory are ignored, and a later acquire may invalidate the pages again:
 * the accesses then fault as usual, so a check never changes a result.
 * The _step forms cover count blocks of n bytes, step bytes apart (a column
 * of a row-major array). A range that wraps the address space stops the
 * program naming the call. Any thread may make a check. */
TSR_API void tsr_range_read(const void *p, size_t n);
TSR_API void tsr_range_write(void *p, size_t n);
TSR_API void tsr_range_read_step(const void *p, size_t n, size_t step, size_t count);
TSR_API void tsr_range_write_step(void *p, size_t n, size_t step, size_t count);

/* Polling (CAS-DSM's cvm_probe): delivers, on this thread, the messages
 * that wait for this node while its communication thread sleeps, so that
 * a node that computes answers its peers' requests without waiting for
 * that thread to wake. At most one look every TSR_POLL_US microseconds;
 * cheap otherwise (one clock read). What tsrcc -tsr-poll calls before
 * every 16th run of an inner loop. A no-op before tsr_init and after
 * tsr_finalize. */
TSR_API void tsr_poll(void);

/* ---- Statistics ----------------------------------------------------------- */

/* Counters of this node since start or the last tsr_stats_reset(), those
 * every protocol has. The same names appear in the TSR_STATS table and in
 * the TSR_STATS_JSON objects, which are taken after tsr_finalize's barrier:
 * summed over the nodes, messages sent then equal messages received.
 * tsr_stats_reset() is not collective: it zeroes this node's counters
 * alone, at once. */
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

/* Reads only counters: any thread may call it, at any time (a monitoring
 * thread, a profiler), unlike the rest of the API. */
TSR_API void tsr_stats_get(tsr_stats *out);
/* Zeroes tsr_stats and the named counters. */
TSR_API void tsr_stats_reset(void);

/* Named counters: those of one protocol only (Munin's updates_sent, for
 * one; docs/CONFIG.md lists them), so that this header does not grow with
 * every protocol. They count from the same point as tsr_stats, and follow
 * its counters in the table and the JSON. */
TSR_API int tsr_counter_count(void);         /* how many there are */
TSR_API const char *tsr_counter_name(int i); /* the i-th, 0 <= i < tsr_counter_count(); else NULL */
/* Stores the counter's value in *value and returns 0; returns -1 (and
 * leaves *value alone) when no counter has that name. */
TSR_API int tsr_counter_get(const char *name, uint64_t *value);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_H */
