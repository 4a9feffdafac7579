/* Themis, the Sequencer's dispatch queue: node 1 sends node 0 numbered
 * writes by hand, out of order (3, 2, 1 to one word, then 5, 4 to another),
 * over the ordered transport so that the arrival order is known. Node 0
 * must queue the early ones (3, 2 and 5: ga_out_of_order counts 3) and
 * apply all in number order, leaving the values of writes 3 and 5; each
 * must be answered once (node 1 drops the 5 replies: it sent no request
 * ids). Before the UDP backend reorders for real, this is the test that
 * exercises the queue. */
/* tsr-test: ga_seq -n 2 */
#include <stdio.h>
#include <unistd.h>

#include "tessera_ga.h"
#include "transport/transport.h"
#include "counter.h"

/* A write numbered seq into allocation 0 of node 0, with no request id. */
static void numbered_write(uint32_t seq, uint64_t off, uint64_t value)
{
    am_send(0, MSG_GA_PUT, off, 0, (uint64_t)seq << 32, &value, 8);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node();
    tsr_ga_attr attr = TSR_GA_ATTR_DEFAULT;
    attr.engine = TSR_GA_SEQUENCER;
    /* Before the allocation's barrier: node 1 may send as soon as it returns. */
    uint64_t early0 = counter("ga_out_of_order"), dropped0 = counter("replies_dropped");
    tsr_ga *ga = tsr_ga_alloc(16, &attr); /* the job's first allocation: id 0 */
    if (me == 1) {
        numbered_write(3, 0, 0xc3);
        numbered_write(2, 0, 0xb2);
        numbered_write(1, 0, 0xa1);
        numbered_write(5, 8, 0xe5);
        numbered_write(4, 8, 0xd4);
    }
    tsr_ga_barrier();
    long bad = 0;
    if (me == 0) {
        const uint64_t *v = tsr_ga_local(ga);
        uint64_t early = counter("ga_out_of_order") - early0, peak = counter("ga_queue_peak");
        bad = v[0] != 0xc3 || v[1] != 0xe5 || early != 3 || peak < 2;
        printf("node 0: words %llx %llx (c3 e5), %llu early (3), queue peak %llu %s\n",
               (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)early,
               (unsigned long long)peak, bad ? "FAIL" : "PASS");
    }
    if (me == 1) {
        /* The replies travel unordered: they may come after the barrier. */
        uint64_t dropped;
        double give_up = tsr_wtime() + 20;
        while ((dropped = counter("replies_dropped") - dropped0) < 5 && tsr_wtime() < give_up)
            usleep(1000);
        bad = dropped != 5;
        printf("node 1: %llu replies to no request dropped (5) %s\n", (unsigned long long)dropped,
               bad ? "FAIL" : "PASS");
    }
    tsr_finalize();
    return bad != 0;
}
