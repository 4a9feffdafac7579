/* Themis, global consistency at barriers: in each round every node writes
 * a new value into its slice of every node's segment (asynchronously, a
 * different width each round), and after tsr_ga_barrier every node reads
 * every slice of every segment, synchronously and asynchronously. A value
 * still buffered in a writer's cache, or a stale line kept in a reader's
 * cache from the round before, shows as a wrong value. */
/* tsr-test: ga */
#include <stdio.h>

#include "ga_test.h"
#include "tessera_ga.h"

/* Every segment fits the default cache (64 lines a node), so a stale line
 * would stay there to be read. */
#define SLICE 64
#define ROUNDS 16

static uint64_t value(int round, int writer, int node, size_t i, unsigned width)
{
    uint64_t s = (uint64_t)round << 40 ^ (uint64_t)writer << 32 ^ (uint64_t)node << 24 ^ i;
    return ga_rand(&s) & ga_width_mask(width);
}

static void write_round(tsr_ga *ga, int round, int me, int n, unsigned width)
{
    for (int node = 0; node < n; node++)
        for (size_t i = 0; i < SLICE / width; i++) {
            size_t off = (size_t)me * SLICE + i * width;
            uint64_t v = value(round, me, node, i, width);
            switch (width) {
            case 1: tsr_ga_write8_async(ga, node, off, (uint8_t)v); break;
            case 2: tsr_ga_write16_async(ga, node, off, (uint16_t)v); break;
            case 4: tsr_ga_write32_async(ga, node, off, (uint32_t)v); break;
            default: tsr_ga_write64_async(ga, node, off, v);
            }
        }
}

/* Reads every slice: even slices word by word synchronously, odd ones with
 * asynchronous reads waited for together. */
static long check_round(tsr_ga *ga, int round, int n, unsigned width)
{
    long bad = 0;
    static uint32_t got[SLICE / 4];
    for (int node = 0; node < n; node++)
        for (int w = 0; w < n; w++) {
            tsr_ga_signal sig;
            tsr_ga_signal_init(&sig);
            for (size_t i = 0; i < SLICE / 4; i++) {
                size_t off = (size_t)w * SLICE + i * 4;
                if (w % 2)
                    tsr_ga_read32_async(ga, node, off, &got[i], &sig);
                else
                    got[i] = tsr_ga_read32(ga, node, off);
            }
            tsr_ga_signal_wait(&sig);
            for (size_t i = 0; i < SLICE / 4; i++) {
                uint64_t want = 0;
                for (unsigned b = 0; b < 4; b += width < 4 ? width : 4) {
                    size_t k = (i * 4 + b) / width;
                    uint64_t v = value(round, w, node, k, width);
                    if (width <= 4)
                        want |= v << (8 * b);
                    else
                        want = (uint32_t)(v >> (8 * ((i * 4) % 8)));
                }
                bad += got[i] != (uint32_t)want;
            }
        }
    return bad;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    tsr_ga *ga = tsr_ga_alloc((size_t)n * SLICE, NULL);
    long bad = 0;
    for (int round = 0; round < ROUNDS; round++) {
        unsigned width = 1u << (round % 4);
        write_round(ga, round, me, n, width);
        tsr_ga_barrier();
        long wrong = check_round(ga, round, n, width);
        if (wrong)
            fprintf(stderr, "node %d: round %d (%u-byte writes): %ld words wrong\n", me, round,
                    width, wrong);
        bad += wrong;
        tsr_ga_barrier();
    }
    printf("node %d: %ld words wrong after barriers %s\n", me, bad, bad ? "FAIL" : "PASS");
    tsr_ga_free(ga);
    tsr_finalize();
    return bad != 0;
}
