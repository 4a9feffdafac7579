/*
 * ga_pattern.h - the access streams of the Themis paper's microbenchmarks
 * (Section 3.2), shared by the Tessera version (ga_micro.c) and the
 * OpenSHMEM one (shmem/ga_micro_shmem.c) so both make the same accesses.
 *
 * Every node holds an array of ELEMS elements; a node makes 2 * p * ELEMS
 * accesses, each a synchronous read or (one time in four) an asynchronous
 * write, following one of three patterns: sequential (every element of
 * every node's array in turn, twice), random, or wander (a random walk:
 * 20% the same element, 60% a neighbouring element, 20% the same element
 * of a neighbouring node).
 */
#ifndef GA_PATTERN_H
#define GA_PATTERN_H

#include <stdint.h>

#define ELEMS 1024

enum { PAT_SEQUENTIAL, PAT_RANDOM, PAT_WANDER, PAT_COUNT };
static const char *const pattern_names[PAT_COUNT] = {"sequential", "random", "wander"};

typedef struct access {
    int node;
    uint32_t elem;
    int write;
} access;

typedef struct stream {
    int pattern, nodes;
    uint64_t rng, step;
    int node;
    uint32_t elem;
} stream;

static inline uint64_t pat_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline stream stream_start(int pattern, int nodes, int me)
{
    stream s = {pattern, nodes, 0x5eed0000u + (uint64_t)me, 0, 0, 0};
    s.node = (int)(pat_rand(&s.rng) % (uint64_t)nodes);
    s.elem = (uint32_t)(pat_rand(&s.rng) % ELEMS);
    return s;
}

static inline uint64_t stream_length(int nodes) { return 2ull * (uint64_t)nodes * ELEMS; }

static inline access stream_next(stream *s)
{
    access a;
    uint64_t r = pat_rand(&s->rng);
    switch (s->pattern) {
    case PAT_SEQUENTIAL:
        a.node = (int)(s->step / ELEMS % (uint64_t)s->nodes);
        a.elem = (uint32_t)(s->step % ELEMS);
        break;
    case PAT_RANDOM:
        a.node = (int)(r % (uint64_t)s->nodes);
        a.elem = (uint32_t)(r >> 20) % ELEMS;
        break;
    default:
        if (r % 10 >= 2 && r % 10 < 8)
            s->elem = (s->elem + ((r >> 8) & 1 ? 1 : ELEMS - 1)) % ELEMS;
        else if (r % 10 >= 8)
            s->node = (s->node + ((r >> 8) & 1 ? 1 : s->nodes - 1)) % s->nodes;
        a.node = s->node;
        a.elem = s->elem;
    }
    a.write = (r >> 40) % 4 == 0;
    s->step++;
    return a;
}

#endif
