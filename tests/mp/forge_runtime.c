/* Forged messages of the runtime's own services, from an authenticated
 * peer: node 1 sends node 0 a heartbeat that carries bytes, a second
 * address layout (an empty one, which node 0 once compared with its own
 * and ended the job over), a clear of a pause flag out of range, a fork
 * server's announcement that carries bytes, an acknowledgement of a
 * Themis write nobody made, a clock question with bytes and a clock
 * answer to no question (transport/clock.c). Node 0 must reject each
 * (messages_rejected), or drop a reply to nothing (replies_dropped),
 * exactly as many as were sent, and the job must go on: a count both
 * nodes keep under a lock ends exact. */
/* tsr-test: suite -n 2,3 */
#include <stdio.h>

#include "tessera.h"
#include "transport/transport.h"
#include "counter.h"

#define K 20

static int rejected, dropped;

static void forge(int verdict, int type, uint64_t a0, uint64_t a1, size_t len)
{
    static const char junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    am_send(0, type, a0, a1, 0, junk, len);
    *(verdict == 'r' ? &rejected : &dropped) += 1;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    long *count = tsr_alloc(sizeof(long));
    int *sent = tsr_alloc(2 * sizeof(int));
    uint64_t rejected0 = counter("messages_rejected"), dropped0 = counter("replies_dropped");
    tsr_barrier();
    for (int i = 0; i < K; i++) {
        if (me == 1 && i == K / 2) {
            forge('r', MSG_HEARTBEAT, 0, 0, 8);   /* bytes on an empty type */
            forge('r', MSG_LAYOUT, 0, 0, 0);      /* a second layout, of no images */
            forge('r', MSG_FLAG_CLEAR, 5000, 0, 0); /* a flag out of range */
            forge('r', MSG_FORK, 0, 1, 8);        /* a fork not from node 0 */
            forge('d', MSG_GA_PUT_ACK, 0, 0, 0);  /* request id 0 is never issued */
            forge('r', MSG_CLOCK_ASK, 0, 0, 8);   /* bytes on an empty type */
            forge('d', MSG_CLOCK, 0, 0, 0);       /* a clock for a question never asked */
            sent[0] = rejected;
            sent[1] = dropped;
        }
        tsr_lock(1);
        (*count)++;
        tsr_unlock(1);
    }
    tsr_barrier(); /* each forgery came before its sender's barrier message */
    if (me == 0) {
        uint64_t r = counter("messages_rejected") - rejected0;
        uint64_t d = counter("replies_dropped") - dropped0;
        bad = r != (uint64_t)sent[0] || d != (uint64_t)sent[1] || !sent[0];
        printf("node 0: %llu rejected (want %d), %llu dropped (want %d)\n",
               (unsigned long long)r, sent[0], (unsigned long long)d, sent[1]);
    }
    bad += *count != (long)K * n;
    printf("node %d: count %ld %s\n", me, *count, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
