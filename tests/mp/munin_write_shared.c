/* write_shared: every node writes interleaved bytes and words of the same
 * pages between barriers (false sharing, several writers); after each
 * barrier every node sees every write (updates, not invalidations: a node's
 * copy stays valid and is patched in place). Then a counter protected by a
 * lock, updated at lock release. Results are compared with the values a
 * sequential run computes. */
/* tsr-test: munin */
#include <stdint.h>

#include "munin_test.h"

#define BYTES (6 * 4096 + 100)

static uint8_t byte_value(int round, size_t i) { return (uint8_t)(round * 31 + i * 7 + 1); }

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    uint8_t *bytes = munin_alloc(BYTES, TSR_WRITE_SHARED);
    uint32_t *words = munin_alloc(BYTES, TSR_WRITE_SHARED);
    long *counter = munin_alloc(sizeof(long), TSR_WRITE_SHARED);
    for (int round = 0; round < 4; round++) {
        for (size_t i = (size_t)me; i < BYTES; i += (size_t)n)
            bytes[i] = byte_value(round, i);
        for (size_t i = (size_t)me; i < BYTES / 4; i += (size_t)n)
            words[i] = (uint32_t)(round * 1000003u + i);
        tsr_barrier();
        size_t wrong = 0;
        for (size_t i = 0; i < BYTES; i++)
            wrong += bytes[i] != byte_value(round, i);
        for (size_t i = 0; i < BYTES / 4; i++)
            wrong += words[i] != (uint32_t)(round * 1000003u + i);
        CHECK(wrong == 0, "round %d: %zu wrong values", round, wrong);
        tsr_barrier();
    }
    for (int i = 0; i < 50; i++) {
        tsr_lock(3);
        ++*counter;
        tsr_unlock(3);
    }
    tsr_barrier();
    CHECK(*counter == 50L * n, "counter %ld, sequential %ld", *counter, 50L * n);
    return munin_finish("write_shared");
}
