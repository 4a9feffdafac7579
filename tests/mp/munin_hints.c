/* Hints and raw parameters: Table 1's rows; an object given by its eight
 * parameters; read_only data fetched whole (single_object) or ahead of use
 * (preacquire) in one exchange per manager; flush and invalidate on a
 * write_shared object; a reduction object that invalidates rather than
 * updates copies (I set); each result checked against its sequential value. */
/* tsr-test: munin */
#include <stdint.h>

#include "munin_test.h"

#define PAGES 8
#define LONGS (PAGES * 512)

static void table1(void)
{
    const unsigned I = TSR_MUNIN_INVALIDATE, R = TSR_MUNIN_REPLICAS, D = TSR_MUNIN_DELAYED,
                   FO = TSR_MUNIN_FIXED_OWNER, M = TSR_MUNIN_MULTI_WRITER, S = TSR_MUNIN_STABLE,
                   FL = TSR_MUNIN_FLUSH_OWNER, W = TSR_MUNIN_WRITABLE;
    CHECK(tsr_munin_params(TSR_READ_ONLY) == R, "read_only row");
    CHECK(tsr_munin_params(TSR_MIGRATORY) == (I | W), "migratory row");
    CHECK(tsr_munin_params(TSR_WRITE_SHARED) == (R | D | M | W), "write_shared row");
    CHECK(tsr_munin_params(TSR_PRODUCER_CONSUMER) == (R | D | M | S | W), "producer_consumer row");
    CHECK(tsr_munin_params(TSR_REDUCTION) == (R | FO | W), "reduction row");
    CHECK(tsr_munin_params(TSR_RESULT) == (R | D | FO | M | FL | W), "result row");
    CHECK(tsr_munin_params(TSR_CONVENTIONAL) == (I | R | W), "conventional row");
}

static void *alloc_params(size_t bytes, unsigned params)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = TSR_ANNOT_PARAMS;
    a.munin_params = params;
    a.home = TSR_HOME_NODE;
    return tsr_alloc_attr(bytes, &a);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    table1();

    /* read_only, whole-object fetches. */
    long *ro1 = munin_alloc_at(LONGS * sizeof(long), TSR_CONVENTIONAL, 0);
    long *ro2 = munin_alloc_at(LONGS * sizeof(long), TSR_CONVENTIONAL, 0);
    if (me == 0)
        for (long i = 0; i < LONGS; i++)
            ro1[i] = ro2[i] = 3 * i;
    tsr_hint_change_annotation(ro1, TSR_READ_ONLY);
    tsr_hint_change_annotation(ro2, TSR_READ_ONLY);
    tsr_hint_single_object(ro1);
    tsr_stats s0, s1;
    tsr_stats_get(&s0);
    long sum = 0;
    for (long i = 0; i < LONGS; i++)
        sum += ro1[i];
    tsr_hint_preacquire(ro2);
    tsr_stats_get(&s1);
    for (long i = 0; i < LONGS; i++)
        sum += ro2[i];
    CHECK(sum == 3L * LONGS * (LONGS - 1), "read_only sum %ld", sum);
    /* One exchange per object; node 0 manages both, and its comm thread
     * answers the others meanwhile, so its messages are not checked. */
    uint64_t exchanges = me ? 2 : 0;
    CHECK((!me || s1.messages_sent - s0.messages_sent == exchanges) &&
              s1.page_fetches - s0.page_fetches == exchanges * PAGES,
          "%llu requests, %llu pages fetched", (unsigned long long)(s1.messages_sent - s0.messages_sent),
          (unsigned long long)(s1.page_fetches - s0.page_fetches));

    /* write_shared from its raw parameters; flush and invalidate hints. */
    long *ws = alloc_params(LONGS * sizeof(long), tsr_munin_params(TSR_WRITE_SHARED));
    for (long i = me; i < LONGS; i += n)
        ws[i] = i + 1;
    tsr_hint_flush(ws); /* the updates go now... */
    tsr_hint_invalidate(ws); /* ...and this node's copy goes (but not node 0's) */
    tsr_barrier();
    long wrong = 0;
    for (long i = 0; i < LONGS; i++)
        wrong += ws[i] != i + 1;
    CHECK(wrong == 0, "write_shared from parameters: %ld wrong", wrong);

    /* A reduction that invalidates the copies (I set) instead of updating them. */
    int64_t *cnt = alloc_params(sizeof(int64_t), tsr_munin_params(TSR_REDUCTION) | TSR_MUNIN_INVALIDATE);
    for (int i = 0; i < 20; i++) {
        tsr_reduce_i64(cnt, TSR_OP_ADD, 2);
        CHECK(*cnt >= 2 * (i + 1), "reduction read %lld after %d of my adds", (long long)*cnt, i + 1);
    }
    tsr_barrier();
    CHECK(*cnt == 40L * n, "reduction total %lld, sequential %ld", (long long)*cnt, 40L * n);
    return munin_finish("hints");
}
