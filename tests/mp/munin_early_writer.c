/* A producer_consumer page whose writer writes and releases it in the next
 * barrier epoch before its manager has judged the last one (an early
 * writer, munin_freeze.c). Node 1 manages the page; node 0 writes it just
 * after the second barrier, releasing at once with a lock, while node 1
 * still invalidates, at that barrier's end, SPREAD pages of the home-based
 * protocol that node 0 wrote before it, one call each: node 0's diff can
 * reach node 1 before node 1 judges the epoch the barrier ended. In the
 * same epoch node 2 reads the page and node 1 writes it, which fixes its
 * copyset at the third barrier; then node 0 writes it again. Judged with
 * the epoch before, the early writer was cleared with that epoch's
 * writers and left out of the copyset, having dropped its copy: its write
 * stopped the job with "access outside the stable sharing pattern" (about
 * one run in six, on a loaded 2-core machine: the order is the machine's).
 * Every node must end with both writes. */
/* tsr-test: munin -n 3 */
#include "munin_test.h"

#define PAGE 4096    /* the runtime's page (memory/region.h) */
#define SPREAD 16000 /* pages node 1 invalidates before it judges the first epoch */

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node();
    volatile long *page = munin_alloc_at(PAGE, TSR_PRODUCER_CONSUMER, 1);
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_HLRC;
    a.home = TSR_HOME_NODE;
    a.home_node = 0;
    char *spread = tsr_alloc_attr((size_t)2 * SPREAD * PAGE, &a);
    tsr_barrier();
    if (me == 0) /* every other page: one invalidation call each at node 1 */
        for (long i = 0; i < SPREAD; i++)
            spread[2 * i * PAGE] = 1;
    tsr_barrier();
    if (me == 0) {
        page[0] = 1;
        tsr_lock(0);
        tsr_unlock(0);
    } else if (me == 1) {
        page[1] = 2;
    } else {
        CHECK(page[0] == 1 || page[0] == 0, "node 2 read %ld before node 0's write", page[0]);
    }
    tsr_barrier();
    if (me == 0)
        page[0] = 3;
    tsr_barrier();
    CHECK(page[0] == 3 && page[1] == 2, "node %d reads %ld and %ld, not 3 and 2", me, page[0],
          page[1]);
    return munin_finish("munin_early_writer");
}
