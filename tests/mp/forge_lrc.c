/* TreadMarks' messages (TSR_PROTO_LRC and tmk.h), forged by an
 * authenticated peer. Node 1 sends node 0: requests for diffs of a page
 * that is not the lazy protocol's (a Munin object's) and of no intervals,
 * and a distribution to a global node 0 does not have (each of which once
 * ended the job); a request for diffs of a page node 0 never wrote (once
 * answered with none, which would leave a true requester waiting for
 * ever); replies to no request; an ask for a collection round
 * that carries bytes; the messages of a round that only node 0 sends, or
 * that join no round; the messages of TreadMarks' condition variables and
 * of JIAJIA's message passing and jia_wait, broken (a condition out of
 * range or managed elsewhere, a wait with no id to wake it by, a signal
 * neither one nor all, a channel or a tag that does not exist, a jia_wait
 * of another round, a release of jia_wait not from node 0) or replying to
 * nothing. Node 0 sends node 1 the merge of a round it did not join. Each
 * must be rejected where it arrives (messages_rejected), or the reply
 * dropped (replies_dropped), exactly as many as were sent, and the job
 * must go on: pages both nodes write under a lock end exact, and a
 * well-formed jia_send among the forgeries reaches node 0's jia_recv. */
/* tsr-test: lrc -n 2,4 */
#include <stdio.h>
#include <string.h>

#include "api/compat.h"
#include "jia.h"
#include "memory/region.h"
#include "tessera.h"
#include "tmk.h"
#include "transport/transport.h"
#include "counter.h"

#define K 20
#define NOBODY 0x7fff0000ull /* a request id no node ever issued */
#define CONDS ((uint64_t)TMK_NLOCKS * TMK_NCONDS)

static int rejected, dropped;

static void forge(int verdict, int type, uint64_t a0, uint64_t a1, uint64_t a2, size_t len)
{
    static const char junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    am_send(!tsr_node(), type, a0, a1, a2, junk, len);
    *(verdict == 'r' ? &rejected : &dropped) += 1;
}

static void forge_all(uint32_t lazy, uint32_t unwritten, uint32_t munin)
{
    forge('r', MSG_LRC_DIFF_REQ, munin, 0, 1ull << 32 | 1, 0); /* not the lazy protocol's */
    forge('r', MSG_LRC_DIFF_REQ, lazy, 0, 0, 0);               /* interval 0 is nobody's */
    forge('r', MSG_LRC_DIFF_REQ, lazy, 0, 5ull << 32 | 3, 0);  /* intervals 5 to 3 */
    forge('r', MSG_LRC_DIFF_REQ, unwritten, 0, 1ull << 32 | 1, 0); /* a page node 0 never wrote */
    forge('d', MSG_LRC_DIFF_REP, lazy, NOBODY, 0, 0);          /* a reply to no request */
    forge('r', MSG_LRC_GC_ASK, 0, 0, 0, 8);                    /* bytes on an empty type */
    forge('r', MSG_LRC_GC_START, 1, 0, 0, 0);                  /* not from node 0 */
    forge('r', MSG_LRC_GC_JOIN, 1ull << 31, 0, 0, 0);          /* a round not under way */
    forge('r', MSG_LRC_GC_GO, 1, 0, 0, 0);                     /* not from node 0 */
    forge('r', MSG_LRC_GC_END, 1, 0, 0, 0);                    /* not from node 0 */
    forge('r', MSG_DISTRIBUTE, 9999, 0, 0, 8);                 /* no such loaded image */
    forge('d', MSG_DISTRIBUTE_ACK, 0, NOBODY, 0, 0);           /* an ack of nothing sent */
    /* Condition 0 is lock 0's first, managed by node 0; 4, lock 1's, by node 1. */
    forge('r', MSG_TMK_COND_WAIT, CONDS, 1, 1, 0);             /* out of range */
    forge('r', MSG_TMK_COND_WAIT, 4, 1, 1, 0);                 /* managed by node 1 */
    forge('r', MSG_TMK_COND_WAIT, 0, 1, 0, 0);                 /* no id to wake it by */
    forge('r', MSG_TMK_COND_SIGNAL, 0, 2, 0, 0);               /* neither one nor all */
    forge('r', MSG_TMK_COND_SIGNAL, 0, 0, 0, 8);               /* bytes on an empty type */
    forge('d', MSG_TMK_COND_QUEUED, 0, NOBODY, 0, 0);
    forge('d', MSG_TMK_COND_WAKE, 0, NOBODY, 0, 0);
    forge('r', MSG_JIA_MSG, 7, 4, 0, 8);                       /* no channel 4 */
    forge('r', MSG_JIA_MSG, 1ull << 32, 0, 0, 8);              /* a tag of 33 bits */
    forge('r', MSG_JIA_WAIT, 5, 0, 0, 0);                      /* not the round under way */
    forge('r', MSG_JIA_GO, 0, 0, 0, 0);                        /* not from node 0 */
    am_send(0, MSG_JIA_MSG, 77, 0, 0, "a letter", 8);          /* well formed: queued */
}

int main(int argc, char **argv)
{
    Tmk_startup(argc, argv);
    jia_msg_init(); /* JIAJIA's messages, which jia_init would register */
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    tsr_attr lazy = TSR_ATTR_DEFAULT, munin = TSR_ATTR_DEFAULT;
    lazy.proto = TSR_PROTO_LRC;
    munin.proto = TSR_PROTO_MUNIN;
    long *count = tsr_alloc_attr(PAGE_SIZE, &lazy), *slots = tsr_alloc_attr(PAGE_SIZE, &lazy);
    int *sent = tsr_alloc_attr(PAGE_SIZE, &lazy);
    char *object = tsr_alloc_attr(PAGE_SIZE, &munin);
    uint64_t rejected0 = counter("messages_rejected"), dropped0 = counter("replies_dropped");
    tsr_barrier();
    for (int i = 0; i < K; i++) {
        if (me == 1 && i == K / 2) {
            forge_all(page_of(count), page_of(sent), page_of(object));
            sent[0] = rejected;
            sent[1] = dropped;
        }
        if (me == 0 && i == K / 2)
            forge('r', MSG_LRC_GC_GO, 1ull << 31, 0, 0, 0); /* a round node 1 did not join */
        tsr_lock(2);
        (*count)++;
        tsr_unlock(2);
        slots[me] += i;
    }
    tsr_barrier(); /* each forgery came before its sender's barrier message */
    uint64_t r = counter("messages_rejected") - rejected0;
    uint64_t d = counter("replies_dropped") - dropped0;
    if (me == 0) {
        char letter[16] = {0};
        int got = jia_recv(letter, sizeof letter, 1, 77);
        bad = r != (uint64_t)sent[0] || d != (uint64_t)sent[1] || !sent[0] || got != 8 ||
              strcmp(letter, "a letter");
        printf("node 0: %llu rejected (want %d), %llu dropped (want %d), received \"%s\"\n",
               (unsigned long long)r, sent[0], (unsigned long long)d, sent[1], letter);
    } else {
        bad = r != (me == 1) || d != 0;
    }
    for (int j = 0; j < n; j++)
        bad += slots[j] != K * (K - 1) / 2;
    bad += *count != (long)K * n;
    printf("node %d: count %ld %s\n", me, *count, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
