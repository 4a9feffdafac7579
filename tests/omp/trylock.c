/* omp_test_lock and omp_test_nest_lock: a held lock is refused to every
 * other thread and a free one is taken; threads that spin on tests (mixed
 * with omp_set_lock) exclude each other and see each other's writes; a
 * nestable lock's holder nests by testing. Only what does not depend on
 * timing is printed (how often a test fails does). */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 40

int main(void)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_nest_lock_t nest;
    omp_init_nest_lock(&nest);
    int first = omp_test_lock(&lock); /* sequential code: free */
    omp_unset_lock(&lock);
    int refused = 0, taken = 0, nest_refused = 0, depth = 0, inside = 0, overlaps = 0;
    long counter = 0, last = -1;
    int threads = 0;
#pragma omp parallel reduction(+ : refused, taken, nest_refused)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
        threads = n;
        /* Thread 0 holds both locks while every other thread tests them. */
        if (me == 0) {
            omp_set_lock(&lock);
            depth = omp_test_nest_lock(&nest);
            depth = omp_test_nest_lock(&nest);
        }
#pragma omp barrier
        if (me != 0) {
            refused += !omp_test_lock(&lock);
            nest_refused += omp_test_nest_lock(&nest) == 0;
        }
#pragma omp barrier
        if (me == 0) {
            counter = 1000;
            omp_unset_lock(&lock);
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
        }
#pragma omp barrier
        /* Free again: the last thread takes it at its first test, and sees
         * what thread 0 wrote under it. */
        if (me == n - 1 && omp_test_lock(&lock)) {
            taken += counter == 1000;
            counter = 0;
            omp_unset_lock(&lock);
        }
#pragma omp barrier
        for (int r = 0; r < ROUNDS; r++) {
            if ((r + me) % 3 == 0)
                omp_set_lock(&lock);
            else
                while (!omp_test_lock(&lock))
                    ;
            overlaps += inside++;
            last = counter++;
            inside--;
            omp_unset_lock(&lock);
        }
    }
    printf("first test %d; %d threads: %d refused the held lock, %d refused the nest lock "
           "held at depth %d, %d took it freed and saw its write\n",
           first, threads, refused, nest_refused, depth, taken);
    printf("counter %ld (last seen %ld), overlaps %d\n", counter, last, overlaps);
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    return 0;
}
