/*
 * munin.h - Munin's multiple consistency protocols (munin*.c, listed in
 * munin_int.h), as the public hints and reductions (munin_api.c) see them.
 *
 * An object is an allocation; its pages are the units of transfer, and each
 * page is an object of its own for sharing purposes (its copyset), as in
 * Munin, where variables larger than a page are split into page-sized
 * objects. The eight parameter bits select one of six mechanisms; each
 * annotation of Table 1 is one setting of the bits.
 */
#ifndef TSR_MUNIN_H
#define TSR_MUNIN_H

#include <stdatomic.h>
#include <stdint.h>

#include "tessera_munin.h"

#define MUNIN_MAX_NODES 64 /* copysets are bitmaps, as in the prototype */

typedef enum {
    MECH_READ_ONLY,    /* !W: replicate on demand, writes are errors */
    MECH_MIGRATORY,    /* !R: one copy, moved with write access */
    MECH_UPDATE,       /* R D M !Fl !I: twins, diffs to every copy (S: fixed copyset) */
    MECH_RESULT,       /* R D M Fl: twins, diffs to the owner, copy dropped */
    MECH_REDUCTION,    /* R FO !D !M: Fetch_and_Phi at the owner */
    MECH_CONVENTIONAL, /* R I !D !M !FO: single writer, write-invalidate */
} munin_mech;

/* The mechanism for a parameter setting; -1 with *why set for settings no
 * mechanism implements. */
int munin_mech_of(unsigned params, const char **why);
const char *munin_annot_name(int annot);

/* Per allocation containing ptr: its first page and length, or dies with a
 * message naming `fn` when ptr is not in Munin memory. */
void munin_object(const char *fn, const void *ptr, uint32_t *first, uint32_t *n);

/* The annotation and parameters a page's object has now. */
void munin_attrs(uint32_t page, int *annot, unsigned *params);

/* Operations on an object [first, first+n), run by the application thread. */
void munin_fetch(uint32_t first, uint32_t n);    /* copies of every missing page */
void munin_flush_object(uint32_t first, uint32_t n);
void munin_drop(uint32_t first, uint32_t n);     /* give up this node's copies */
void munin_set_single(uint32_t first, uint32_t n);
/* Collective parts of change_annotation / phase_change (see munin_api.c). */
void munin_reset(uint32_t first, uint32_t n, int annot, unsigned params);
void munin_bind(uint32_t first, uint32_t n, int lock);
/* At the lock's manager: keeps the bound objects' current bytes for the
 * lock's next grant (this node's access to them ends). */
void munin_lock_keep(int lock);
/* Fetch_and_Phi: returns the old value's bits. */
uint64_t munin_reduce(void *addr, tsr_op op, int is_double, uint64_t operand);

#endif
