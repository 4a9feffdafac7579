/* Munin objects that one node allocates alone (tsr_malloc_attr): the
 * maker allocates one object of each annotation and publishes the pointers
 * through a barrier; every other node learns each object at its first
 * access (or hint, or Fetch_and_Phi) and uses it as a collective Munin
 * allocation would be used:
 *   write_shared       interleaved writes by every node, seen by all
 *   conventional       a counter under a lock
 *   migratory          a counter under another lock
 *   reduction          Fetch_and_Phi sums, the first call made before any
 *                      access to the object
 *   producer_consumer  the maker writes, the others read, round after round
 *   result             each node writes its slot; the maker reads them all
 * Then the maker frees two objects and allocates again: the pages come back
 * (same address) under another annotation, and then as home-based memory
 * (tsr_malloc), and every node sees the new objects' values, not its copies
 * of the old ones. */
/* tsr-test: munin */
#include <stdint.h>

#include "munin_test.h"

#define SHARED_BYTES (3 * 4096 + 100)
#define ROUNDS 4

typedef struct objects {
    uint8_t *shared;
    long *conventional, *migratory;
    int64_t *sum;
    long *produced;
    long *results;
} objects;

static void *munin_malloc(size_t bytes, tsr_annotation annot)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = annot;
    return tsr_malloc_attr(bytes, &a);
}

static uint8_t byte_value(int round, size_t i) { return (uint8_t)(round * 29 + i * 5 + 3); }

static void write_shared(uint8_t *b, int me, int n, int round)
{
    for (size_t i = (size_t)me; i < SHARED_BYTES; i += (size_t)n)
        b[i] = byte_value(round, i);
    tsr_barrier();
    size_t wrong = 0;
    for (size_t i = 0; i < SHARED_BYTES; i++)
        wrong += b[i] != byte_value(round, i);
    CHECK(wrong == 0, "write_shared round %d: %zu wrong bytes", round, wrong);
    tsr_barrier();
}

static void counters(objects *o, int n)
{
    for (int i = 0; i < 20; i++) {
        tsr_lock(1);
        ++*o->conventional;
        tsr_unlock(1);
        tsr_lock(2);
        ++*o->migratory;
        tsr_unlock(2);
        tsr_reduce_i64(o->sum, TSR_OP_ADD, i + 1);
    }
    tsr_barrier();
    CHECK(*o->conventional == 20L * n, "conventional counter %ld, want %ld", *o->conventional,
          20L * n);
    CHECK(*o->migratory == 20L * n, "migratory counter %ld, want %ld", *o->migratory, 20L * n);
    CHECK(*o->sum == 210L * n, "reduction sum %ld, want %ld", (long)*o->sum, 210L * n);
    tsr_barrier();
}

static void produce_consume(objects *o, int me, int maker)
{
    for (int round = 0; round < ROUNDS; round++) {
        if (me == maker)
            for (int i = 0; i < 1024; i++)
                o->produced[i] = round * 10000L + i;
        tsr_barrier();
        long wrong = 0;
        for (int i = 0; i < 1024; i++)
            wrong += o->produced[i] != round * 10000L + i;
        CHECK(wrong == 0, "producer_consumer round %d: %ld wrong", round, wrong);
        tsr_barrier();
    }
}

static void results(objects *o, int me, int n, int maker)
{
    o->results[me * 512] = 1000L + me;
    tsr_barrier();
    if (me == maker)
        for (int k = 0; k < n; k++)
            CHECK(o->results[k * 512] == 1000L + k, "result of node %d: %ld", k,
                  o->results[k * 512]);
    tsr_barrier();
}

/* The maker frees the write_shared object and the conventional counter and
 * allocates in their place: a conventional object, then home-based memory. */
static void free_and_reuse(objects *o, int me, int n, int maker)
{
    if (me == maker) {
        uint8_t *old = o->shared;
        long *old_counter = o->conventional;
        tsr_free_local(old);
        tsr_free_local(old_counter);
        long *again = munin_malloc(SHARED_BYTES, TSR_CONVENTIONAL);
        CHECK((void *)again == (void *)old, "the freed object's pages are not reused: %p, %p",
              (void *)again, (void *)old);
        for (int i = 0; i < 1000; i++)
            again[i] = -i;
        o->conventional = again;
        long *plain = tsr_malloc(4096);
        CHECK((void *)plain == (void *)old_counter, "the freed counter's page is not reused");
        plain[7] = 77;
        o->shared = (uint8_t *)plain;
    }
    tsr_barrier();
    long wrong = 0;
    for (int i = 0; i < 1000; i++)
        wrong += o->conventional[i] != -i;
    CHECK(wrong == 0, "reused object: %ld wrong (an old copy?)", wrong);
    CHECK(((long *)o->shared)[7] == 77, "reused page as tsr_malloc memory reads %ld",
          ((long *)o->shared)[7]);
    tsr_barrier();
    tsr_lock(1);
    o->conventional[1500] += 1;
    tsr_unlock(1);
    tsr_barrier();
    CHECK(o->conventional[1500] == n, "counter in the reused object %ld, want %d",
          o->conventional[1500], n);
    tsr_barrier();
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), maker = 1 % n;
    objects *o = tsr_alloc(sizeof *o);
    if (me == maker) {
        o->shared = munin_malloc(SHARED_BYTES, TSR_WRITE_SHARED);
        o->conventional = munin_malloc(sizeof(long), TSR_CONVENTIONAL);
        o->migratory = munin_malloc(sizeof(long), TSR_MIGRATORY);
        o->sum = munin_malloc(sizeof(int64_t), TSR_REDUCTION);
        o->produced = munin_malloc(1024 * sizeof(long), TSR_PRODUCER_CONSUMER);
        o->results = munin_malloc((size_t)n * 4096, TSR_RESULT);
    }
    tsr_barrier();
    if (me != maker)
        tsr_hint_preacquire(o->produced); /* a hint before any access */
    for (int round = 0; round < ROUNDS; round++)
        write_shared(o->shared, me, n, round);
    counters(o, n);
    produce_consume(o, me, maker);
    results(o, me, n, maker);
    free_and_reuse(o, me, n, maker);
    return munin_finish("munin_malloc");
}
