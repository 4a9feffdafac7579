/* Exact home write detection, counted. Node 0 homes two pages: A is written
 * in every interval, B only before the loop; every other node reads both in
 * every interval. Node 0 prints its write notices and its home write faults
 * (write faults that made no twin) over the loop. With exact detection a
 * release announces only A (ROUNDS notices, no fault); under segv the
 * copies protect both pages again (hlrc_protect_sticky), so A's writes
 * fault, once a round, and B, never written, is not announced either. */
#include <stdio.h>

#include "tessera.h"

#define ROUNDS 20

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 0;
    volatile long *a = tsr_alloc_attr(2 * 4096, &attr), *b = a + 4096 / sizeof(long);
    if (tsr_node() == 0)
        a[0] = b[0] = 1;
    tsr_barrier();
    tsr_stats_reset();
    long wrong = 0;
    for (long i = 1; i <= ROUNDS; i++) {
        if (tsr_node() != 0)
            wrong += a[0] != i || b[0] != 1;
        tsr_barrier();
        if (tsr_node() == 0)
            a[0] = i + 1;
        tsr_barrier();
    }
    tsr_stats s;
    tsr_stats_get(&s);
    uint64_t notices = 0;
    tsr_counter_get("write_notices", &notices);
    if (tsr_node() == 0)
        printf("node 0: %llu write notices, %llu home write faults in %d rounds\n",
               (unsigned long long)notices,
               (unsigned long long)(s.write_faults - s.twins), ROUNDS);
    printf("node %d: %ld wrong values %s\n", tsr_node(), wrong, wrong ? "FAIL" : "PASS");
    tsr_finalize();
    return wrong != 0;
}
