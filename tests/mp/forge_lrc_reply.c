/* Replies of the lazy protocol (TSR_PROTO_LRC) that the node asked gets
 * wrong: node 1 writes a word of a page, and node 0 reads it after a
 * barrier, so node 0 asks node 1 for its diffs. Node 1 answers with its
 * own handler: diffs of another page, a diff whose run ends past the page,
 * a diff of a later interval than the one asked for, and no diff at all
 * (each of which node 0 once took: the first as this page's diffs, the
 * others to stop the job when it applied them), then the true diff. Node
 * 0 must reject the first four, keep its request open for the last, and
 * read the word node 1 wrote. */
/* tsr-test: lrc -n 2 */
#include <stdio.h>

#include "lrc_forge.h"
#include "transport/transport.h" /* links the runtime's insides (Makefile) */

static void reply(int to, uint32_t page, uint64_t id, uint64_t lo_hi, uint16_t offset)
{
    struct wire_diff d = wire_diff_of((uint32_t)(lo_hi >> 32), (uint32_t)lo_hi, offset);
    am_send(to, MSG_LRC_DIFF_REP, page, id, 1, &d, sizeof d);
}

/* The interval after the last one asked for. */
static uint64_t later(uint64_t lo_hi)
{
    uint64_t next = (uint32_t)lo_hi + 1;
    return next << 32 | next;
}

/* Node 1's answer to a request for its diffs of `page`. */
static void on_diff_req(int src, const tsr_msg_hdr *h, void *payload)
{
    uint32_t page = (uint32_t)h->arg[0];
    reply(src, page + 1, h->arg[1], h->arg[2], 0);    /* diffs of another page */
    reply(src, page, h->arg[1], h->arg[2], 4092);     /* a run past the page */
    reply(src, page, h->arg[1], later(h->arg[2]), 0); /* another interval's */
    am_send(src, MSG_LRC_DIFF_REP, page, h->arg[1], 0, NULL, 0); /* none */
    reply(src, page, h->arg[1], h->arg[2], 0);        /* the true diff */
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    uint64_t rejected0;
    volatile long *word = lrc_word_written(on_diff_req, &rejected0);
    if (me == 0) {
        long got = *word;
        uint64_t r = counter("messages_rejected") - rejected0;
        bad = got != VALUE || r != 4;
        printf("node 0: read %#lx (want %#lx), %llu replies rejected (want 4) %s\n", got, VALUE,
               (unsigned long long)r, bad ? "FAIL" : "PASS");
    }
    tsr_barrier();
    tsr_finalize();
    return bad != 0;
}
