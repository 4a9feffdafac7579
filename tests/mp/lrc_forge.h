/* lrc_forge.h - what the tests that forge the lazy protocol's diffs share
 * (forge_lrc_reply.c, forge_lrc_push.c): a word that node 1 writes and
 * node 0 then reads, asking node 1 for its diffs, which node 1 answers
 * with the test's own handler. */
#ifndef LRC_FORGE_H
#define LRC_FORGE_H

#include <stdint.h>

#include "counter.h"
#include "memory/region.h"
#include "tessera.h"
#include "transport/transport.h"

#define VALUE 0x1122334455667788L

/* One diff on the wire (lrc_diffs_decode): the intervals it covers, its
 * length, then its runs (coherence/diff.h): u16 offset, u16 length, the
 * bytes. */
struct wire_diff {
    uint32_t first, last, len;
    uint16_t offset, run;
    long bytes;
};

/* A diff of intervals first..last writing VALUE at `offset` of its page. */
static inline struct wire_diff wire_diff_of(uint32_t first, uint32_t last, uint16_t offset)
{
    return (struct wire_diff){first, last, 12, offset, 8, VALUE};
}

/* Collective: a word on a page of the lazy protocol, which node 1 has
 * written VALUE to when this returns; node 1 answers requests for its
 * diffs with `answer`. *rejected is this node's messages_rejected before. */
static inline volatile long *lrc_word_written(am_handler_fn answer, uint64_t *rejected)
{
    tsr_attr lazy = TSR_ATTR_DEFAULT;
    lazy.proto = TSR_PROTO_LRC;
    volatile long *word = tsr_alloc_attr(2 * PAGE_SIZE, &lazy);
    if (tsr_node() == 1)
        am_register(MSG_LRC_DIFF_REQ, answer);
    *rejected = counter("messages_rejected");
    tsr_barrier();
    if (tsr_node() == 1)
        *word = VALUE;
    tsr_barrier();
    return word;
}

#endif
