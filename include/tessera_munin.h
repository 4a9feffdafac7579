/*
 * tessera_munin.h - Munin's multiple consistency protocols (Carter, Bennett
 * and Zwaenepoel, SOSP 1991): the sharing annotations, their parameters,
 * Fetch_and_Phi on reduction objects, and the hints. docs/MUNIN.md says
 * what each does here.
 *
 * An allocation uses Munin when it is made with tsr_alloc_attr and
 * attr.proto = TSR_PROTO_MUNIN; attr.annot is then one of the annotations
 * below (attr.munin_params holds the parameter bits for TSR_ANNOT_PARAMS).
 * Those two fields stay in tessera.h's tsr_attr because a protocol is
 * chosen per allocation, at the call every protocol shares.
 */
#ifndef TESSERA_MUNIN_H
#define TESSERA_MUNIN_H

#include <stdint.h>

#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Munin's sharing annotations (Section 2.3.2). Each stands for one row of
 * the paper's Table 1, i.e. one setting of the TSR_MUNIN_* parameters below
 * (tsr_munin_params). */
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

/* The parameter bits of an annotation: its row of Table 1 (a "-" there is 0). */
TSR_API unsigned tsr_munin_params(tsr_annotation annot);

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

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_MUNIN_H */
