/* producer_consumer: a writer that joins after the copyset is fixed. Nodes
 * 1 and 2 read a page node 0 manages; node 0 writes it, which fixes its
 * copyset ({0, 1, 2}) with no other writer to tell. Then node 1, in the
 * copyset but never told, writes it every other epoch and node 2 reads it.
 * Node 1 must learn the copyset from its first write's ack and from then
 * on update nodes 0 and 2 directly: no more fetches, two update messages
 * per write. Node 2 must read every value. */
/* tsr-test: munin -n 3,4 */
#include "munin_test.h"

#define ITERS 10
#define SETTLED 3

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node();
    volatile long *v = munin_alloc_at(4096, TSR_PRODUCER_CONSUMER, 0);
    if (me == 1 || me == 2)
        CHECK(v[0] == 0, "first read %ld", v[0]);
    tsr_barrier();
    if (me == 0)
        v[0] = 1;
    tsr_barrier();
    tsr_stats s0 = {0}, s1;
    uint64_t u0 = 0;
    for (int it = 0; it < ITERS; it++) {
        if (it == SETTLED) {
            tsr_stats_get(&s0);
            u0 = munin_counter("updates_sent");
        }
        if (me == 1)
            v[0] = 100 + it;
        tsr_barrier();
        if (me == 1 || me == 2)
            CHECK(v[0] == 100 + it, "iteration %d read %ld", it, v[0]);
        tsr_barrier();
    }
    tsr_stats_get(&s1);
    if (me == 1) {
        uint64_t updates = munin_counter("updates_sent") - u0;
        CHECK(s1.page_fetches == s0.page_fetches, "%llu fetches once settled",
              (unsigned long long)(s1.page_fetches - s0.page_fetches));
        CHECK(updates == 2 * (ITERS - SETTLED), "%llu update messages once settled, expected %d",
              (unsigned long long)updates, 2 * (ITERS - SETTLED));
    }
    return munin_finish("late_writer");
}
