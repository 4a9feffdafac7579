/* Helpers of the Themis tests (tests/mp/ga_*.c): a deterministic random
 * stream, so that a node can replay what another node did. */
#ifndef GA_TEST_H
#define GA_TEST_H

#include <stdint.h>

static inline uint64_t ga_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t ga_width_mask(unsigned width)
{
    return width == 8 ? UINT64_MAX : (1ull << (8 * width)) - 1;
}

#endif
