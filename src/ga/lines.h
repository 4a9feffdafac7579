/*
 * lines.h - the line descriptors OrderCache and OrderNoCache share
 * (Section 2.2 of the Themis paper): a direct-mapped table indexed by the
 * low bits of the node number above the low bits of the line number, whose
 * descriptors keep the tag (the high bits of both), byte masks of the valid
 * and dirty bytes, and the line's outstanding write and reads. The lines'
 * bytes sit in an array of their own, apart from the descriptors.
 *
 * The rule both engines keep: a line never has two writes in flight (a
 * second write-back waits for the first one's acknowledgement), a write
 * never leaves while a read of the line is in flight, and a read never
 * leaves while a write of the same line is in flight. So no message of
 * this node can overtake another that touches the same bytes, whatever
 * order the network delivers them in.
 */
#ifndef TSR_GA_LINES_H
#define TSR_GA_LINES_H

#include <pthread.h>

#include "ga/ga.h"

typedef struct ga_desc {
    uint64_t tag;              /* high bits of the node and line numbers */
    uint64_t write_tag;        /* the tag of the write in flight */
    uint8_t valid, dirty;      /* byte masks of the line */
    _Atomic uint8_t writing;   /* a write of the line is in flight */
    _Atomic uint16_t reading;  /* reads of the line in flight */
} ga_desc;

typedef struct ga_lines {
    pthread_mutex_t lock; /* the descriptors and lines; never held while waiting */
    int node_bits, addr_bits;
    uint32_t count;
    ga_desc *desc;
    uint8_t (*line)[GA_LINE]; /* NULL for OrderNoCache, which keeps no bytes */
} ga_lines;

/* Where (node, offset) falls: its descriptor's index and its tag. */
typedef struct ga_where {
    uint32_t index;
    uint64_t tag;
    uint64_t line_off; /* the line's offset in the segment */
    unsigned at;       /* the access's first byte in the line */
    uint8_t mask;      /* the access's bytes in the line */
} ga_where;

void lines_create(tsr_ga *ga, const tsr_ga_attr *attr, int keep_bytes);
void lines_destroy(tsr_ga *ga);
ga_where lines_where(const ga_lines *L, int node, uint64_t off, unsigned width);
/* The node of the line a descriptor holds. */
int lines_node(const ga_lines *L, uint32_t index, uint64_t tag);
uint64_t lines_offset(const ga_lines *L, uint32_t index, uint64_t tag);

/* Whether a write of the line may leave now / a read of `tag` may. */
int lines_may_write(const ga_desc *d);
int lines_may_read(const ga_desc *d, uint64_t tag);
/* Called with the lock held, when the line cannot go yet: drops the lock,
 * waits for the line's messages in flight, takes it again. */
void lines_stall(ga_lines *L, ga_desc *d);

/* With the lock held: sends a write of the line (its bytes under `mask`,
 * or len bytes at off for OrderNoCache) and marks it in flight. sync: op
 * is the caller's, to wait on; else one is allocated and freed on reply. */
void lines_send_write(tsr_ga *ga, uint32_t index, int node, uint64_t off, const void *bytes,
                      uint32_t len, uint8_t mask, ga_op *sync);
/* With the lock held: sends a read for op, marking the line read. */
void lines_send_read(tsr_ga *ga, ga_op *op, uint32_t index, uint64_t off, uint32_t len);
/* In a read's done callback, with the lock held. */
void lines_read_done(ga_lines *L, const ga_op *op);

/* Waits until no request of this node to the allocation is in flight. */
void lines_drain(tsr_ga *ga);

#endif
