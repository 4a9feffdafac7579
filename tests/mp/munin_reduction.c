/* reduction: Fetch_and_Phi at the owner - sums, minima and maxima of
 * integers and doubles from every node, the old values they return, and
 * plain reads of the object kept up to date by the owner. Checked against
 * the sequential results. */
/* tsr-test: munin */
#include <stdint.h>

#include "munin_test.h"

typedef struct reductions {
    int64_t isum, imin, imax;
    double dsum, dmin, dmax;
    int64_t ticket;
} reductions;

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    reductions *r = munin_alloc_at(sizeof *r, TSR_REDUCTION, n - 1);
    if (me == 0) {
        tsr_reduce_i64(&r->imin, TSR_OP_SWAP, INT64_MAX);
        tsr_reduce_i64(&r->imax, TSR_OP_SWAP, INT64_MIN);
        tsr_reduce_f64(&r->dmin, TSR_OP_SWAP, 1e300);
        tsr_reduce_f64(&r->dmax, TSR_OP_SWAP, -1e300);
    }
    tsr_barrier();
    long got_tickets = 0;
    for (int i = 0; i < 25; i++) {
        int64_t v = (int64_t)(me * 1000 + i * 7) - 500;
        tsr_reduce_i64(&r->isum, TSR_OP_ADD, v);
        tsr_reduce_i64(&r->imin, TSR_OP_MIN, v);
        tsr_reduce_i64(&r->imax, TSR_OP_MAX, v);
        tsr_reduce_f64(&r->dsum, TSR_OP_ADD, v * 0.5);
        tsr_reduce_f64(&r->dmin, TSR_OP_MIN, v * 0.25);
        tsr_reduce_f64(&r->dmax, TSR_OP_MAX, v * 0.25);
        int64_t t = tsr_reduce_i64(&r->ticket, TSR_OP_ADD, 1);
        got_tickets += t >= 0 && t < 25L * n;
        (void)r->isum; /* a plain read of the replicated object */
    }
    tsr_barrier();
    int64_t isum = 0, imin = INT64_MAX, imax = INT64_MIN;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 25; i++) {
            int64_t v = (int64_t)(k * 1000 + i * 7) - 500;
            isum += v;
            imin = v < imin ? v : imin;
            imax = v > imax ? v : imax;
        }
    CHECK(r->isum == isum && r->imin == imin && r->imax == imax,
          "integers: %lld %lld %lld, sequential %lld %lld %lld", (long long)r->isum,
          (long long)r->imin, (long long)r->imax, (long long)isum, (long long)imin, (long long)imax);
    CHECK(r->dsum == isum * 0.5 && r->dmin == imin * 0.25 && r->dmax == imax * 0.25,
          "doubles: %g %g %g", r->dsum, r->dmin, r->dmax);
    CHECK(r->ticket == 25L * n && got_tickets == 25, "tickets: %lld, %ld valid",
          (long long)r->ticket, got_tickets);
    return munin_finish("reduction");
}
