/* Answers of the lazy protocol (TSR_PROTO_LRC) in a replicated section
 * with multicast (3 nodes or more) that must not end the fault: node 1
 * writes a word of a page, and in a replicated section node 0 reads it,
 * so node 0 asks node 1 for its diffs. Node 1 answers with its own
 * handler: an empty reply (which once meant "on its way, by multicast":
 * a request is now always answered with the diffs, so it is rejected),
 * then a multicast of a later interval's diff than the one asked for
 * (kept, but it holds nothing the fault asked), then the true diff as the
 * reply. Node 0 must reject the first, keep its request open, and read
 * the word. */
/* tsr-test: lrc -n 3 */
#include <stdio.h>

#include "lrc_forge.h"
#include "transport/transport.h" /* links the runtime's insides (Makefile) */

static void push(int to, uint32_t page, uint64_t section, uint32_t interval)
{
    struct wire_diff d = wire_diff_of(interval, interval, 0);
    am_send(to, MSG_LRC_DIFF_PUSH, page, section, 1, &d, sizeof d);
}

/* Node 1's answer to node 0's request for its diffs of a page. */
static void on_diff_req(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t page = (uint32_t)h->arg[0], asked = (uint32_t)h->arg[2];
    uint64_t section = h->arg[0] >> 32;
    struct wire_diff d = wire_diff_of(asked, asked, 0);
    am_send(src, MSG_LRC_DIFF_REP, page, h->arg[1], 0, NULL, 0);  /* "on its way" */
    push(src, page, section, asked + 1);                         /* a later interval's diff */
    am_send(src, MSG_LRC_DIFF_REP, page, h->arg[1], 1, &d, sizeof d); /* the true diff */
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    uint64_t rejected0;
    volatile long *word = lrc_word_written(on_diff_req, &rejected0);
    tsr_replicate_begin();
    long got = me == 0 ? *word : VALUE;
    tsr_replicate_end();
    if (me == 0) {
        uint64_t r = counter("messages_rejected") - rejected0;
        bad = got != VALUE || r != 1;
        printf("node 0: read %#lx (want %#lx), %llu answers rejected (want 1) %s\n", got,
               VALUE, (unsigned long long)r, bad ? "FAIL" : "PASS");
    }
    tsr_barrier();
    tsr_finalize();
    return bad != 0;
}
