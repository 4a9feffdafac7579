/* Many nodes write interleaved bytes, then interleaved 32-bit words, of the
 * same pages between barriers (false sharing at byte granularity: two nodes
 * write different bytes of one word). Every write must survive, and every
 * node must see all of them after the barrier. Several rounds, so that the
 * pages are twinned, diffed, invalidated and refetched repeatedly. */
/* tsr-test: suite */
#include <stdint.h>
#include <stdio.h>

#include "tessera.h"

#define PAGES 8
#define BYTES (PAGES * 4096)

static uint8_t byte_value(int round, size_t i) { return (uint8_t)(round * 31 + i * 7 + 1); }

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    uint8_t *bytes = tsr_alloc(BYTES);
    uint32_t *words = tsr_alloc(BYTES);
    int bad = 0;
    for (int round = 0; round < 4; round++) {
        for (size_t i = (size_t)me; i < BYTES; i += (size_t)n)
            bytes[i] = byte_value(round, i);
        for (size_t i = (size_t)me; i < BYTES / 4; i += (size_t)n)
            words[i] = (uint32_t)(round * 1000003u + i);
        tsr_barrier();
        for (size_t i = 0; i < BYTES; i++)
            bad += bytes[i] != byte_value(round, i);
        for (size_t i = 0; i < BYTES / 4; i++)
            bad += words[i] != (uint32_t)(round * 1000003u + i);
        tsr_barrier();
    }
    printf("node %d: %d wrong values %s\n", me, bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
