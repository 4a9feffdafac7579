/* One lock serves allocations of every protocol at once: each critical
 * section updates a home-based counter, a Munin migratory record and a
 * record bound to the lock (tsr_hint_lock_data), so every grant carries the
 * home-based protocol's notices and Munin's bound data side by side
 * (coherence/payload.h), and every value must come out exact. */
/* tsr-test: munin */
#include "munin_test.h"

#define ROUNDS 20

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long *plain = tsr_alloc(sizeof *plain);
    long *moving = munin_alloc(sizeof *moving, TSR_MIGRATORY);
    long *bound = munin_alloc(sizeof *bound, TSR_MIGRATORY);
    tsr_hint_lock_data(3, bound);
    for (int i = 0; i < ROUNDS; i++) {
        tsr_lock(3);
        ++*plain;
        ++*moving;
        ++*bound;
        tsr_unlock(3);
    }
    tsr_barrier();
    long want = (long)ROUNDS * tsr_nodes();
    CHECK(*plain == want, "home-based counter %ld, want %ld", *plain, want);
    tsr_lock(3);
    CHECK(*moving == want, "migratory counter %ld, want %ld", *moving, want);
    CHECK(*bound == want, "bound counter %ld, want %ld", *bound, want);
    tsr_unlock(3);
    tsr_barrier();
    return munin_finish("mixed_lock");
}
