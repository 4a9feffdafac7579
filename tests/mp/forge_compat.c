/* The messages of TreadMarks' condition variables and of JIAJIA's message
 * passing and jia_wait, forged by an authenticated peer: node 1 sends node
 * 0 waits and signals on conditions out of range or managed elsewhere, a
 * wait with no id to wake it by, a signal neither one nor all, replies to
 * no request, a jia_send on a channel that does not exist or with a tag
 * wider than 32 bits, a jia_wait of another round and a release of jia_wait
 * not from node 0. Each must be rejected where it arrives
 * (messages_rejected), or the reply dropped (replies_dropped), exactly as
 * many as were sent; a well-formed jia_send among them reaches node 0's
 * jia_recv; and the job goes on: a count made under a lock ends exact. */
/* tsr-test: suite -n 2,4 */
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
    static const char junk[8] = "jia_msg";
    am_send(0, type, a0, a1, a2, junk, len);
    *(verdict == 'r' ? &rejected : &dropped) += 1;
}

/* Condition 4 is lock 1's first, managed by node 1; condition 0, lock 0's,
 * by node 0. */
static void forge_all(void)
{
    forge('r', MSG_TMK_COND_WAIT, CONDS, 1, 1, 0);   /* out of range */
    forge('r', MSG_TMK_COND_WAIT, 4, 1, 1, 0);       /* managed by node 1 */
    forge('r', MSG_TMK_COND_WAIT, 0, 1, 0, 0);       /* no id to wake it by */
    forge('r', MSG_TMK_COND_SIGNAL, 0, 2, 0, 0);     /* neither one nor all */
    forge('r', MSG_TMK_COND_SIGNAL, CONDS, 0, 0, 0); /* out of range */
    forge('r', MSG_TMK_COND_SIGNAL, 0, 0, 0, 8);     /* bytes on an empty type */
    forge('d', MSG_TMK_COND_QUEUED, 0, NOBODY, 0, 0);
    forge('d', MSG_TMK_COND_WAKE, 0, NOBODY, 0, 0);
    forge('r', MSG_JIA_MSG, 7, 4, 0, 8);             /* no channel 4 */
    forge('r', MSG_JIA_MSG, 1ull << 32, 0, 0, 8);    /* a tag of 33 bits */
    forge('r', MSG_JIA_WAIT, 5, 0, 0, 0);            /* not the round under way */
    forge('r', MSG_JIA_GO, 0, 0, 0, 0);              /* not from node 0 */
    am_send(0, MSG_JIA_MSG, 77, 0, 0, "a letter", 8); /* well formed: queued */
}

int main(int argc, char **argv)
{
    Tmk_startup(argc, argv);
    jia_msg_init();
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    long *count = tsr_alloc(PAGE_SIZE);
    int *sent = tsr_alloc(PAGE_SIZE);
    uint64_t rejected0 = counter("messages_rejected"), dropped0 = counter("replies_dropped");
    tsr_barrier();
    for (int i = 0; i < K; i++) {
        if (me == 1 && i == K / 2) {
            forge_all();
            sent[0] = rejected;
            sent[1] = dropped;
        }
        tsr_lock(2);
        (*count)++;
        tsr_unlock(2);
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
        bad = r != 0 || d != 0;
    }
    bad += *count != (long)K * n;
    printf("node %d: count %ld %s\n", me, *count, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
