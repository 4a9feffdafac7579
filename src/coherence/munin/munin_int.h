/*
 * munin_int.h - what the files of Munin's protocol share among themselves:
 * the page directory, the manager's pending actions, and each file's entry
 * points. Only src/coherence/munin*.c include it; munin.h is the narrower
 * interface the public API (munin_api.c) uses.
 *
 *   munin.c          the page directory, the protocol table, shared helpers
 *   munin_fault.c    faults and requests to the manager (requester's side)
 *   munin_manager.c  the manager: copies, single-writer ownership, deferral
 *   munin_update.c   the delayed update queue, updates and their relaying
 *   munin_freeze.c   producer_consumer's copysets freezing at barriers
 *   munin_reduce.c   Fetch_and_Phi at a reduction object's owner
 *   munin_lockdata.c objects bound to locks (tsr_hint_lock_data)
 *   munin_object.c   objects: set-up, annotation changes, returns of copies
 *   munin_malloc.c   objects one node allocates alone: adoption, freeing
 */
#ifndef TSR_MUNIN_INT_H
#define TSR_MUNIN_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "coherence/munin/munin.h"
#include "coherence/outbox.h"
#include "coherence/payload.h"
#include "memory/region.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"

/* This node's access to a page; the protection of the application view follows it. */
enum { A_NONE, A_READ, A_WRITE /* twinned, queued */, A_OWNED /* writable, no twin */ };

enum {
    F_QUEUED = 1,  /* on the DUQ */
    F_FROZEN = 2,  /* stable copyset fixed (manager) or known (writer) */
    F_UPDATED = 4, /* manager: updated during this epoch */
    F_SINGLE = 8,  /* a miss fetches the whole object */
    F_BOUND = 16,  /* travels with a lock (tsr_hint_lock_data) */
    F_BUSY = 32,   /* manager: an ownership transaction is under way */
    F_TELL = 64,   /* manager: copyset fixed, its writers not told yet */
    F_MREAD = 128, /* manager: its application read the page since the last update */
};

/* Grant flags (MSG_MU_GRANT arg0 bits 56..63). */
enum { G_DATA = 1, G_REFUSED = 2 };
/* Update entry flags (outbox flags). U_DROPPED: the writer of a stable page
 * whose copyset is still being learned has dropped its copy (it holds one
 * again only if it fetches it: munin_freeze.c). */
enum { U_FORWARD = 1, U_DROPPED = 2 };
/* MSG_MU_INVAL modes. */
enum { INV_DROP, INV_DOWNGRADE };

typedef struct mu_page {
    _Atomic uint64_t cs;      /* manager: nodes with a copy; writer: the frozen copyset */
    _Atomic uint64_t early;   /* manager: nodes that joined cs in the next epoch */
    _Atomic uint64_t writers; /* manager: nodes whose diffs it forwarded this epoch;
                               * once a copyset is fixed, those of its last epoch */
    uint32_t first, npages;   /* the object (allocation) */
    _Atomic uint8_t access;
    _Atomic uint8_t flags;
    uint8_t params, annot, mech;
    int16_t owner;            /* manager, ownership protocols: holder of the master copy */
    uint16_t lock;            /* F_BOUND: the lock */
    uint8_t quiet_epochs;     /* manager, stable pages: update epochs that reached nobody */
    atomic_flag busy;         /* twin and diff against an incoming update */
} mu_page;

extern mu_page *mu;

static inline uint64_t bit(int node) { return (uint64_t)1 << node; }
static inline int home(uint32_t p) { return region.meta[p].home; }
static inline int is_home(uint32_t p) { return home(p) == cfg.node; }
static inline int access_of(uint32_t p) { return atomic_load(&mu[p].access); }
static inline int has_flag(uint32_t p, int f) { return (atomic_load(&mu[p].flags) & f) != 0; }
static inline void set_flag(uint32_t p, int f) { atomic_fetch_or(&mu[p].flags, (uint8_t)f); }
static inline void clear_flag(uint32_t p, int f) { atomic_fetch_and(&mu[p].flags, (uint8_t)~f); }
/* A producer_consumer-like page (S set): its copyset is learned, then fixed. */
static inline int is_stable(uint32_t p) { return (mu[p].params & TSR_MUNIN_STABLE) != 0; }

/* The per-page spin lock that orders a twin or a diff against an incoming
 * update (never held by application code, so the fault path may take it). */
static inline void page_lock(uint32_t p)
{
    while (atomic_flag_test_and_set_explicit(&mu[p].busy, memory_order_acquire))
        cpu_relax();
}
static inline void page_unlock(uint32_t p)
{
    atomic_flag_clear_explicit(&mu[p].busy, memory_order_release);
}

/* Sets this node's access to pages [p, p+n) and their protection. */
void mu_set_access(uint32_t p, uint32_t n, int access);
/* Stops the job over an access that breaks the page's annotation. */
void mu_die_on(uint32_t p, const char *what);
/* 1 if pages [p, p+n) are in the region, kept by Munin and managed by
 * `manager` (-1: by any node). A message naming pages is checked so before
 * it is obeyed. */
int mu_managed_by(uint64_t p, uint64_t n, int manager);

/* A requester's wait for the manager's answers (application thread). */
typedef struct mu_reply {
    waiter w;
    _Atomic uint32_t refused; /* 1 + a page the manager refused */
    uint64_t value;           /* reductions: the old value */
} mu_reply;

/* A manager action waiting for acks: the app thread's release, or a
 * continuation run by the comm thread when the last ack arrives. */
typedef struct mu_ctx {
    waiter w;
    void (*done)(struct mu_ctx *);
    int src;        /* who asked */
    uint64_t reply; /* and its reply handle */
    uint64_t value; /* reduction: the old value */
    uint32_t page;
    int want, had_copy;
    outbox told; /* update acks: fixed copysets for the writer (munin_freeze.c) */
} mu_ctx;

mu_ctx *mu_ctx_new(void (*done)(mu_ctx *), int src, uint64_t reply);
/* One ack arrived for c. */
void mu_ctx_ack(mu_ctx *c);
/* Runs a continuation now if nothing is pending, else once the acks are in. */
void mu_ctx_start(mu_ctx *c, uint32_t pending);
/* Sends a message; one to this node runs `self_handler` at once instead. */
void mu_deliver(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *payload,
                size_t len, am_handler_fn self_handler);

/* munin_fault.c */
void mu_fault_init(void);
void mu_fault(uint32_t p, int is_write);
void mu_on_grant(int src, const tsr_msg_hdr *h, void *payload);

/* munin_manager.c */
void mu_manager_init(void);
/* Held while the manager grants a copy, and while its own release reads the
 * copyset: the grant of a copy then goes out before any update of it. */
extern pthread_mutex_t mu_cs_mutex;

/* munin_update.c */
void mu_update_init(void);
void mu_enqueue(uint32_t p);
void mu_twin_and_queue(uint32_t p);
/* Sends the diffs in o to dest; ack_ctx NULL: counted by the barrier, no ack. */
void mu_send_update(int dest, outbox *o, mu_ctx *ack_ctx);
/* Flushes the queued pages of [lo, hi) (sent: see tsr_protocol.flush). */
void mu_flush_range(uint32_t lo, uint32_t hi, uint32_t *sent);
void mu_flush(uint32_t *sent);

/* munin_freeze.c */
void mu_freeze_init(void);
void mu_barrier_done(void);
/* A barrier arrival: sends the copysets fixed at the last barrier to their
 * writers, counted in sent[]. */
void mu_freeze_tell(uint32_t *sent);
/* Whether a request made in barrier epoch `epoch` (coh_epoch at the
 * requester) comes from a node that left a barrier whose end this manager
 * has not processed yet: 1; 0 if from the current epoch; -1 if from
 * neither (a bad message). */
int mu_join_early(uint64_t epoch);
/* The manager got a diff of p from src, which dropped its copy (U_DROPPED):
 * src leaves the copyset, or, if it is fixed already, learns it in `told`
 * (the update's ack). */
void mu_writer_dropped(int src, uint32_t p, outbox *told);
/* Installs the copysets of an ack's or MSG_MU_FROZEN's entries, from the
 * pages' manager src; -1, changing nothing, if one is not that. */
int mu_learn_copysets(int src, const tsr_msg_hdr *h, const void *payload);

/* munin_reduce.c */
void mu_reduce_init(void);

/* munin_lockdata.c */
void mu_bound_fault(uint32_t p, int is_write);
/* The synchronization hooks (tsr_protocol). */
void mu_lock_release(int lock, pbuf *out);
int mu_lock_merge(int lock, int node, const void *p, size_t len);
int mu_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out);
int mu_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out);
int mu_payload_check(payload_kind kind, int lock, const void *p, size_t len);
int mu_lock_acquire(int lock, const void *p, size_t len);
void mu_lock_peek(int lock, pbuf *out);
int mu_lock_peeked(int lock, const void *p, size_t len);
void mu_bound_forget(uint32_t first);

/* munin_object.c: the live objects, in allocation order (application thread). */
typedef struct mu_object {
    uint32_t first, n;
} mu_object;
extern mu_object *mu_objects;
extern uint32_t mu_nobjects;
void mu_map(uint32_t first, uint32_t n, const tsr_attr *attr);
void mu_unmap(uint32_t first, uint32_t n);
/* tsr_protocol's adopt_run, at the manager of an object one node
 * allocated alone (tsr_malloc_attr): the object, and its annotation and
 * parameters as one word. */
void mu_adopt_run(uint32_t page, uint32_t *first, uint32_t *n, uint16_t *info);
/* tsr_protocol's adopt: another node's object of pages [first, first+n),
 * met here for the first time, set up as its manager's with no copy here.
 * Returns -1 if the word is no valid annotation. Comm thread. */
int mu_adopt(uint32_t first, uint32_t n, uint16_t info);
/* Removes the object starting at `first` from list (and its tag from tags). */
void mu_objects_remove(mu_object *list, uint16_t *tags, uint32_t *count, uint32_t first);

/* munin_malloc.c */
void mu_malloc_init(void);
/* Application thread: if ptr lies in another node's object not met here
 * yet, adopts it (a hint or Fetch_and_Phi may come before any fault). */
void mu_learn(const void *ptr);
/* tsr_protocol's free_local: every node forgets the object. */
int mu_free_local(uint32_t first, uint32_t n);

#endif
