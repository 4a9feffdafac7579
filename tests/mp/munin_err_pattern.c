/* producer_consumer: once the sharing pattern is fixed, an access by a node
 * outside it is a runtime error (unless tsr_hint_phase_change came first).
 * With argument "phase" the program calls the hint and must succeed. */
/* tsr-test: munin phase */
#include <string.h>

#include "munin_test.h"

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), last = tsr_nodes() - 1;
    long *v = munin_alloc_at(4096, TSR_PRODUCER_CONSUMER, 0);
    for (int epoch = 0; epoch < 3; epoch++) { /* node 0 produces, node 1 consumes */
        if (me == 0)
            v[0] = epoch + 1;
        tsr_barrier();
        if (me == 1)
            CHECK(v[0] == epoch + 1, "consumer read %ld in epoch %d", v[0], epoch);
        tsr_barrier();
    }
    if (argc > 1 && !strcmp(argv[1], "phase"))
        tsr_hint_phase_change(v);
    if (me == last && last > 1)
        CHECK(v[0] == 3, "late reader read %ld", v[0]); /* outside the pattern */
    tsr_barrier();
    return munin_finish("pattern");
}
