/* Themis' messages, forged by an authenticated peer: node 1 sends node 0
 * reads and writes of segments that do not exist, bytes past a segment's
 * end, empty writes, masks on writes that are not aligned lines, numbers
 * for an engine without them, numbers already served, too far ahead or
 * repeating one queued, and a reply to no request. Node 0 must reject (or,
 * for the reply, drop) exactly as many as were sent, and its segments must
 * hold only the true writes. */
/* tsr-test: ga -n 2 */
#include <stdio.h>

#include "tessera_ga.h"
#include "transport/transport.h"
#include "counter.h"

#define NOBODY 0x7fff0000ull /* a request id no node ever issued */
#define REJECTED 10          /* the forgeries below that node 0 must reject */

static int rejected, dropped;

static void forge(int verdict, int type, uint64_t off, uint64_t a2, size_t len)
{
    static const uint8_t junk[16] = {0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef};
    am_send(0, type, off, type == MSG_GA_GET_REP ? NOBODY : 0, a2, junk, len);
    *(verdict == 'r' ? &rejected : &dropped) += 1;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node();
    tsr_ga_attr seq_attr = TSR_GA_ATTR_DEFAULT, cache_attr = TSR_GA_ATTR_DEFAULT;
    seq_attr.engine = TSR_GA_SEQUENCER;
    cache_attr.engine = TSR_GA_ORDER_CACHE;
    /* Before the allocations' barriers: node 1 may forge as soon as they return. */
    uint64_t rejected0 = counter("messages_rejected"), dropped0 = counter("replies_dropped");
    tsr_ga *seq = tsr_ga_alloc(64, &seq_attr), *cache = tsr_ga_alloc(64, &cache_attr);
    uint64_t s = 0, c = 1, len8 = 8ull << 16, n1 = 1ull << 32, n3 = 3ull << 32;
    if (me == 1) {
        tsr_ga_write64(seq, 0, 0, 42); /* the true write, number 1 */
        tsr_ga_write64(cache, 0, 8, 43);
        forge('r', MSG_GA_GET, 0, 9 | len8, 0);               /* no such allocation */
        forge('r', MSG_GA_GET, 60, c | len8, 0);              /* past the segment's end */
        forge('r', MSG_GA_PUT, 1ull << 60, c, 8);             /* far past it */
        forge('r', MSG_GA_PUT, 0, c, 0);                      /* no bytes */
        forge('r', MSG_GA_PUT, 4, c | 0xffull << 16, 8);      /* mask, not a line */
        forge('r', MSG_GA_PUT, 0, c | 0x0full << 16, 4);      /* mask, 4 bytes */
        forge('r', MSG_GA_PUT, 0, c | n3, 8);                 /* numbered, no Sequencer */
        forge('r', MSG_GA_PUT, 0, s | n1, 8);                 /* number 1 served already */
        forge('r', MSG_GA_PUT, 0, s | 0x80000000ull << 32, 8); /* too far ahead */
        forge('r', MSG_GA_GET, 0, s | len8 | n3, 0);          /* queued: 2 is next, 3 early */
        rejected--;                                           /* ...so that one is kept */
        forge('r', MSG_GA_PUT, 0, s | n3, 8);                 /* repeats queued number 3 */
        forge('d', MSG_GA_GET_REP, 0, 0, 8);                  /* a reply to no request */
    }
    tsr_barrier();
    long bad = 0;
    if (me == 0) {
        uint64_t r = counter("messages_rejected") - rejected0;
        uint64_t d = counter("replies_dropped") - dropped0;
        const uint64_t *sv = tsr_ga_local(seq), *cv = tsr_ga_local(cache);
        bad += r != (uint64_t)REJECTED || d != 1 || sv[0] != 42 || cv[1] != 43 || cv[0] != 0;
        printf("node 0: %llu forgeries rejected, %llu dropped (%d and 1 sent); "
               "values %llu %llu %s\n",
               (unsigned long long)r, (unsigned long long)d, REJECTED, (unsigned long long)sv[0],
               (unsigned long long)cv[1], bad ? "FAIL" : "PASS");
    } else {
        printf("node 1: sent %d forgeries to be rejected, %d to be dropped PASS\n", rejected,
               dropped);
    }
    tsr_finalize();
    return bad != 0;
}
