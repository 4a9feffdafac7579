/* migratory: a record updated only inside a critical section moves, whole,
 * to each node that takes the lock (one copy in the system); checked
 * against the sequential sums. Then the same with the record bound to the
 * lock (tsr_hint_lock_data): its value rides in the lock grants. */
/* tsr-test: munin */
#include "munin_test.h"

typedef struct record {
    long count;
    long sum;
    long last;
    long seen[64];
} record;

static int run(record *r, int lock, int rounds)
{
    int me = tsr_node();
    for (int i = 0; i < rounds; i++) {
        tsr_lock(lock);
        r->count++;
        r->sum += me + 1;
        r->last = me;
        r->seen[me]++;
        tsr_unlock(lock);
    }
    tsr_barrier();
    return 0;
}

static void check(const record *r, int rounds, const char *what)
{
    int n = tsr_nodes();
    CHECK(r->count == (long)rounds * n, "%s: count %ld, sequential %ld", what, r->count,
          (long)rounds * n);
    CHECK(r->sum == (long)rounds * n * (n + 1) / 2, "%s: sum %ld", what, r->sum);
    for (int k = 0; k < n; k++)
        CHECK(r->seen[k] == rounds, "%s: node %d seen %ld times", what, k, r->seen[k]);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    record *r = munin_alloc(sizeof(record), TSR_MIGRATORY);
    run(r, 2, 30);
    check(r, 30, "migratory");
    tsr_barrier();

    record *bound = munin_alloc(sizeof(record), TSR_MIGRATORY);
    tsr_hint_lock_data(5, bound);
    tsr_stats s0, s1;
    tsr_stats_get(&s0);
    run(bound, 5, 30);
    tsr_stats_get(&s1);
    /* Inside the critical sections the record never misses: it came with the lock. */
    CHECK(s1.page_fetches == s0.page_fetches, "%llu page fetches with the record bound to the lock",
          (unsigned long long)(s1.page_fetches - s0.page_fetches));
    check(bound, 30, "bound to lock 5");
    return munin_finish("migratory");
}
