/* conventional (Ivy): a counter and an array under one lock, and a page
 * written in turn by every node with barriers between turns (ownership
 * moves, copies are invalidated). Sequentially consistent: no delayed
 * updates, so a value is visible as soon as it is written; checked against
 * the sequential result. */
/* tsr-test: munin */
#include "munin_test.h"

#define WORDS 3000 /* about three pages of longs */

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    long *counter = munin_alloc(sizeof(long), TSR_CONVENTIONAL);
    long *arr = munin_alloc(WORDS * sizeof(long), TSR_CONVENTIONAL);
    for (int i = 0; i < 40; i++) {
        tsr_lock(1);
        ++*counter;
        for (int k = 0; k < WORDS; k += 97)
            arr[k] += k;
        tsr_unlock(1);
    }
    tsr_barrier();
    CHECK(*counter == 40L * n, "counter %ld, sequential %ld", *counter, 40L * n);
    long wrong = 0;
    for (int k = 0; k < WORDS; k++)
        wrong += arr[k] != (k % 97 ? 0 : 40L * n * k);
    CHECK(wrong == 0, "%ld wrong array elements", wrong);
    tsr_barrier();
    for (int turn = 0; turn < n; turn++) {
        if (turn == me)
            for (int k = me; k < WORDS; k += n)
                arr[k] = -k;
        tsr_barrier();
    }
    wrong = 0;
    for (int k = 0; k < WORDS; k++)
        wrong += arr[k] != -k;
    CHECK(wrong == 0, "%ld wrong values after the turns", wrong);
    return munin_finish("conventional");
}
