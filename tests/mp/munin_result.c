/* result and read_only: C = A x B as in the paper's Matrix Multiply (Section
 * 4.1). A and B are written by node 0 and then re-annotated read_only; C is
 * a result object owned by node 0, written by every node in row bands that
 * share pages (several writers per page). Each worker sends its part of C
 * in exactly one message, at the barrier; node 0 compares C with a
 * sequential product. */
/* tsr-test: munin */
#include <string.h>

#include "munin_test.h"

#define N 96 /* rows of 768 bytes: bands share pages */

static double input(int which, long i, long j) { return (double)((i * 7 + j * 3 + which) % 11) - 5; }

/* Elements of c that differ from the sequential product plus `offset`. */
static long product_errors(double (*c)[N], double offset)
{
    long wrong = 0;
    for (long i = 0; i < N; i++)
        for (long j = 0; j < N; j++) {
            double sum = offset;
            for (long k = 0; k < N; k++)
                sum += input(0, i, k) * input(1, k, j);
            wrong += sum != c[i][j];
        }
    return wrong;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    double (*a)[N] = munin_alloc_at(sizeof(double[N][N]), TSR_CONVENTIONAL, 0);
    double (*b)[N] = munin_alloc_at(sizeof(double[N][N]), TSR_CONVENTIONAL, 0);
    double (*c)[N] = munin_alloc_at(sizeof(double[N][N]), TSR_RESULT, 0);
    if (me == 0)
        for (long i = 0; i < N; i++)
            for (long j = 0; j < N; j++) {
                a[i][j] = input(0, i, j);
                b[i][j] = input(1, i, j);
            }
    tsr_hint_change_annotation(a, TSR_READ_ONLY);
    tsr_hint_change_annotation(b, TSR_READ_ONLY);

    uint64_t u0 = munin_counter("updates_sent");
    long lo = N * me / n, hi = N * (me + 1) / n;
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < N; j++) {
            double sum = 0;
            for (long k = 0; k < N; k++)
                sum += a[i][k] * b[k][j];
            c[i][j] = sum;
        }
    tsr_barrier();
    uint64_t u1 = munin_counter("updates_sent");
    long expect = me != 0 && hi > lo;
    CHECK(u1 - u0 == (uint64_t)expect, "%llu result messages, expected %ld",
          (unsigned long long)(u1 - u0), expect);

    if (me == 0) {
        long wrong = product_errors(c, 0);
        CHECK(wrong == 0, "%ld elements of C differ from the sequential product", wrong);
    }
    /* A second round on the same result object: copies were dropped at the
     * barrier, so each node refetches and sees node 0's master copy. */
    tsr_barrier();
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < N; j++)
            c[i][j] += 1;
    tsr_barrier();
    long wrong = product_errors(c, 1);
    CHECK(wrong == 0, "%ld elements of C wrong after the second round", wrong);
    return munin_finish("result");
}
