/* Themis, local order: each node issues a random mix of synchronous and
 * asynchronous reads and writes of 8 to 64 bits to its own slice of every
 * node's segment (a few lines, so addresses repeat and lines collide), and
 * checks every read against a shadow of what it wrote: a node's read after
 * its own write of an address returns that write. Then, after a barrier,
 * each owner replays every writer's stream and checks its segment: of two
 * writes to one address by one node, the second is the one left. */
/* tsr-test: ga */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_test.h"
#include "tessera_ga.h"

#define SLICE 256
#define OPS 3000

typedef struct op {
    int node, kind;
    unsigned width;
    size_t off;
    uint64_t v1, v2;
} op;

static op next_op(uint64_t *rng, int nodes)
{
    op o;
    o.node = (int)(ga_rand(rng) % (uint64_t)nodes);
    o.width = 1u << (ga_rand(rng) % 4);
    o.off = ga_rand(rng) % (SLICE / o.width) * o.width;
    o.kind = (int)(ga_rand(rng) % 8);
    o.v1 = ga_rand(rng) & ga_width_mask(o.width);
    o.v2 = ga_rand(rng) & ga_width_mask(o.width);
    return o;
}

static void write_at(tsr_ga *ga, int node, size_t off, unsigned width, uint64_t v, int sync)
{
    switch (width) {
    case 1: (sync ? tsr_ga_write8 : tsr_ga_write8_async)(ga, node, off, (uint8_t)v); break;
    case 2: (sync ? tsr_ga_write16 : tsr_ga_write16_async)(ga, node, off, (uint16_t)v); break;
    case 4: (sync ? tsr_ga_write32 : tsr_ga_write32_async)(ga, node, off, (uint32_t)v); break;
    default: (sync ? tsr_ga_write64 : tsr_ga_write64_async)(ga, node, off, v);
    }
}

static uint64_t read_at(tsr_ga *ga, int node, size_t off, unsigned width, int async)
{
    if (!async) {
        switch (width) {
        case 1: return tsr_ga_read8(ga, node, off);
        case 2: return tsr_ga_read16(ga, node, off);
        case 4: return tsr_ga_read32(ga, node, off);
        default: return tsr_ga_read64(ga, node, off);
        }
    }
    tsr_ga_signal sig;
    tsr_ga_signal_init(&sig);
    uint8_t r8;
    uint16_t r16;
    uint32_t r32;
    uint64_t r64;
    switch (width) {
    case 1: tsr_ga_read8_async(ga, node, off, &r8, &sig); break;
    case 2: tsr_ga_read16_async(ga, node, off, &r16, &sig); break;
    case 4: tsr_ga_read32_async(ga, node, off, &r32, &sig); break;
    default: tsr_ga_read64_async(ga, node, off, &r64, &sig);
    }
    tsr_ga_signal_wait(&sig);
    return width == 1 ? r8 : width == 2 ? r16 : width == 4 ? r32 : r64;
}

static uint64_t shadow_get(const uint8_t *s, unsigned width)
{
    uint64_t v = 0;
    memcpy(&v, s, width);
    return v;
}

/* Applies o to a shadow of the slices this writer owns on each node;
 * returns the value a read in it must see (or -1 if o has no read). */
static int64_t apply(uint8_t (*shadow)[SLICE], const op *o)
{
    uint8_t *at = shadow[o->node] + o->off;
    switch (o->kind) {
    case 0: case 1: case 2: case 3: memcpy(at, &o->v1, o->width); return -1;
    case 4: memcpy(at, &o->v2, o->width); return -1;
    case 7: memcpy(at, &o->v1, o->width); return (int64_t)o->v1;
    default: return -1;
    }
}

static void check(long *bad, int i, const op *o, uint64_t seen, uint64_t want)
{
    if (seen == want)
        return;
    if (++*bad <= 5)
        fprintf(stderr, "node %d: access %d (kind %d) read %llx at node %d offset %zu (%u bytes), "
                "not %llx\n", tsr_node(), i, o->kind, (unsigned long long)seen, o->node, o->off,
                o->width, (unsigned long long)want);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    tsr_ga *ga = tsr_ga_alloc((size_t)n * SLICE, NULL);
    uint8_t shadow[64][SLICE];
    memset(shadow, 0, sizeof shadow);
    uint64_t rng = 1000 + (uint64_t)me;
    long bad = 0;
    for (int i = 0; i < OPS; i++) {
        op o = next_op(&rng, n);
        size_t off = (size_t)me * SLICE + o.off;
        uint64_t seen;
        switch (o.kind) {
        case 0: case 1: case 2: case 3:
            write_at(ga, o.node, off, o.width, o.v1, o.kind == 3);
            break;
        case 4:
            write_at(ga, o.node, off, o.width, o.v1, 0);
            write_at(ga, o.node, off, o.width, o.v2, 0);
            break;
        case 5: case 6:
            seen = read_at(ga, o.node, off, o.width, o.kind == 6);
            check(&bad, i, &o, seen, shadow_get(shadow[o.node] + o.off, o.width));
            break;
        case 7:
            write_at(ga, o.node, off, o.width, o.v1, 0);
            seen = read_at(ga, o.node, off, o.width, 0);
            check(&bad, i, &o, seen, o.v1);
            break;
        }
        apply(shadow, &o);
    }
    long own_order_bad = bad;
    tsr_ga_barrier();
    /* Replay every writer's stream: what it left in this node's segment. */
    const uint8_t *mine = tsr_ga_local(ga);
    for (int w = 0; w < n; w++) {
        uint8_t (*expect)[SLICE] = calloc((size_t)n, SLICE);
        uint64_t wrng = 1000 + (uint64_t)w;
        for (int i = 0; i < OPS; i++) {
            op o = next_op(&wrng, n);
            apply(expect, &o);
        }
        bad += memcmp(mine + (size_t)w * SLICE, expect[me], SLICE) != 0;
        free(expect);
    }
    printf("node %d: %ld reads of own writes wrong, %ld slices left wrong %s\n", me,
           own_order_bad, bad - own_order_bad, bad ? "FAIL" : "PASS");
    tsr_ga_free(ga);
    tsr_finalize();
    return bad != 0;
}
