/*
 * collective.h - the signature of a collective call. Every node must make
 * the same collective calls (tsr_alloc*, tsr_free, tsr_barrier, and those
 * inside tsr_init, tsr_finalize, tsr_fork, tsr_join and tsr_replicate_*)
 * in the same order with the same arguments; each call ends or begins with one barrier, whose arrival
 * carries the call's signature. The barrier's manager compares them, so a
 * mismatch stops the job at the call where the nodes part ways, instead of
 * leaving allocations at different addresses or a barrier waiting forever.
 * The barrier's epoch is the call's sequence number.
 */
#ifndef TSR_COLLECTIVE_H
#define TSR_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "tessera.h"

typedef enum {
    COLL_INIT,
    COLL_BARRIER,
    COLL_ALLOC,
    COLL_FREE,
    COLL_FINALIZE,
    COLL_GA_ALLOC,   /* tsr_ga_alloc: arg the segment size, attr its engine and cache shape */
    COLL_GA_FREE,    /* tsr_ga_free: arg the segment size */
    COLL_GA_BARRIER, /* tsr_ga_barrier */
    COLL_FORK,      /* arg: 1 from a replicated section, 0 from node 0 alone */
    COLL_JOIN,
    COLL_REPLICATE, /* arg: 1 tsr_replicate_begin, 0 tsr_replicate_end */
    COLL_SERVE,     /* tsr_serve's arrival: matches node 0's fork, tsr_finalize or end of serving */
} coll_kind;

/* On the wire, at the end of MSG_BARRIER_ARRIVE's payload. */
typedef struct coll_sig {
    uint64_t kind; /* coll_kind; COLL_ALLOC: the cyclic block length above bit 32 */
    uint64_t arg;  /* COLL_ALLOC: bytes asked for; COLL_FREE: the address */
    uint64_t attr; /* COLL_ALLOC: the tsr_attr fields that matter, packed
                    * (collective.c), so that a mismatch names the field */
} coll_sig;

/* The signature of a call; attr only for COLL_ALLOC (NULL otherwise). */
coll_sig coll_sig_of(coll_kind kind, uint64_t arg, const tsr_attr *attr);
/* The call as its caller wrote it, e.g. "tsr_alloc(4096)", into buf. */
const char *coll_describe(const coll_sig *s, char *buf, size_t len);
/* At the barrier manager: node a and node b made different calls at call
 * number `call`. Stops the whole job naming both. */
void coll_mismatch(uint64_t call, int a, const coll_sig *sa, int b, const coll_sig *sb)
    __attribute__((noreturn));

#endif
