/* A multicast of the lazy protocol's diffs (TSR_PROTO_LRC, replicated
 * sections with multicast, 3 nodes or more) that does not hold what the
 * fault waiting for it asked: node 1 writes a word of a page, and in a
 * replicated section node 0 reads it, so node 0 asks node 1 for its
 * diffs. Node 1 answers with its own handler: "on its way" (an empty
 * reply: the diffs come by multicast), then diffs of a later interval
 * than the one asked for, as the multicast (which node 0 once handed to
 * its fault, which then stopped the job), then the true diff. Node 0 must
 * reject the second, keep waiting for the third, and read the word. */
/* tsr-test: lrc -n 3 */
#include <stdio.h>

#include "counter.h"
#include "memory/region.h"
#include "tessera.h"
#include "transport/transport.h"

#define VALUE 0x1122334455667788L

/* One diff on the wire (lrc_diffs_decode), as in forge_lrc_reply.c. */
struct wire_diff {
    uint32_t first, last, len;
    uint16_t offset, run;
    long bytes;
};

static void push(int to, uint32_t page, uint64_t section, uint32_t interval)
{
    struct wire_diff d = {interval, interval, 12, 0, 8, VALUE};
    am_send(to, MSG_LRC_DIFF_PUSH, page, section, 1, &d, sizeof d);
}

/* Node 1's answer to node 0's request for its diffs of a page. */
static void on_diff_req(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t page = (uint32_t)h->arg[0], asked = (uint32_t)h->arg[2];
    uint64_t section = h->arg[0] >> 32;
    am_send(src, MSG_LRC_DIFF_REP, page, h->arg[1], 0, NULL, 0); /* on its way */
    push(src, page, section, asked + 1); /* a later interval's diff */
    push(src, page, section, asked);     /* the true diff */
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    tsr_attr lazy = TSR_ATTR_DEFAULT;
    lazy.proto = TSR_PROTO_LRC;
    volatile long *word = tsr_alloc_attr(2 * PAGE_SIZE, &lazy);
    if (me == 1)
        am_register(MSG_LRC_DIFF_REQ, on_diff_req);
    uint64_t rejected0 = counter("messages_rejected");
    tsr_barrier();
    if (me == 1)
        *word = VALUE;
    tsr_barrier();
    tsr_replicate_begin();
    long got = me == 0 ? *word : VALUE;
    tsr_replicate_end();
    if (me == 0) {
        uint64_t r = counter("messages_rejected") - rejected0;
        bad = got != VALUE || r != 1;
        printf("node 0: read %#lx (want %#lx), %llu multicasts rejected (want 1) %s\n", got,
               VALUE, (unsigned long long)r, bad ? "FAIL" : "PASS");
    }
    tsr_barrier();
    tsr_finalize();
    return bad != 0;
}
