/*
 * Named counters (tsr_counter_*): Munin registers updates_sent,
 * updates_applied and reductions; they are read by name, listed by index,
 * reset by tsr_stats_reset, and count what the protocol did. After a
 * reset, each node performs ROUNDS + 1 reductions at node 0 (the last one
 * reads the sum), so node 0 reports (ROUNDS + 1) * nodes of them at exit:
 * tests/sh/munin_counters.sh checks that in the table and the JSON.
 */
#include <string.h>

#include "munin_test.h"

#define ROUNDS 5

static int listed(const char *name)
{
    for (int i = 0; i < tsr_counter_count(); i++)
        if (!strcmp(tsr_counter_name(i), name))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    int64_t *sum = munin_alloc_at(sizeof *sum, TSR_REDUCTION, 0);

    CHECK(tsr_counter_count() >= 3, "%d named counters", tsr_counter_count());
    CHECK(listed("updates_sent") && listed("updates_applied") && listed("reductions"),
          "Munin's counters are not all listed");
    CHECK(tsr_counter_name(-1) == NULL && tsr_counter_name(tsr_counter_count()) == NULL,
          "a name for an index out of range");
    uint64_t v = 7;
    CHECK(tsr_counter_get("no_such_counter", &v) == -1 && v == 7, "an unknown name was found");

    tsr_reduce_i64(sum, TSR_OP_ADD, 1);
    tsr_barrier();
    CHECK(munin_counter("reductions") == (me == 0 ? (uint64_t)n : 0),
          "%llu reductions performed here before the reset",
          (unsigned long long)munin_counter("reductions"));
    tsr_barrier();
    tsr_stats_reset();
    CHECK(munin_counter("reductions") == 0, "reductions not reset");
    tsr_barrier();

    for (int i = 0; i < ROUNDS; i++)
        tsr_reduce_i64(sum, TSR_OP_ADD, 1);
    tsr_barrier();
    CHECK(munin_counter("reductions") == (me == 0 ? (uint64_t)(ROUNDS * n) : 0),
          "%llu reductions performed here", (unsigned long long)munin_counter("reductions"));
    /* Node 0 reads its count before any node's reading reduction counts. */
    tsr_barrier();
    CHECK(tsr_reduce_i64(sum, TSR_OP_ADD, 0) == (ROUNDS + 1) * n, "the sum is wrong");
    tsr_barrier();
    return munin_finish("munin_counters");
}
