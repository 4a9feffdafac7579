/*
 * malloc.h - the protocol of memory a node allocates alone (malloc.c).
 */
#ifndef TSR_API_MALLOC_H
#define TSR_API_MALLOC_H

#include "tessera.h"

/* Collective, every node at the same point before its next lock or
 * barrier: tsr_malloc's pages never allocated before get `proto` from now
 * on. tsr_init chooses the default protocol (TSR_PROTO), Tmk_startup
 * TreadMarks'. */
void malloc_use_protocol(tsr_proto_t proto);

#endif
