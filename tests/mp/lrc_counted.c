/* The lazy protocol (TSR_PROTO_LRC), counted:
 * - a page written by one node and never read by another gets no diff at
 *   all, though every node receives its write notices;
 * - a page read after a lock hand-off is brought up to date with diffs from
 *   exactly the writers its notices name: one request per writer, every
 *   other node for a page they all wrote, one for a page one node wrote;
 * - multiple writers of one page, byte for byte, all survive. */
/* tsr-test: lrc -n 2,3,4 */
#include <stdio.h>
#include <string.h>

#include "counter.h"
#include "node_check.h"
#include "tessera.h"

#define PAGE 4096
#define ROUNDS 20

static uint64_t diffs_created(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    return s.diffs_created;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.proto = TSR_PROTO_LRC;
    /* Pages: 0 private to node 0, 1 written by all but node 0, 2 by node 1
     * only, 3 the count of writers done. */
    volatile char *mem = tsr_alloc_attr(4 * PAGE, &attr);
    volatile char *mine = mem, *all = mem + PAGE, *one = mem + 2 * PAGE;
    volatile long *done = (volatile long *)(mem + 3 * PAGE);

    /* Node 0's page: its notices go everywhere with the lock, unread. */
    for (int r = 0; r < ROUNDS; r++) {
        tsr_lock(0);
        if (me == 0)
            mine[r] = (char)(r + 1);
        tsr_unlock(0);
    }
    tsr_barrier();
    CHECK(diffs_created() == 0, "%llu diffs made for a page nobody else read",
          (unsigned long long)diffs_created());

    if (me != 0) {
        tsr_lock(1);
        all[me] = (char)me; /* one byte each: multiple writers */
        if (me == 1)
            one[0] = 7;
        ++*done;
        tsr_unlock(1);
    } else {
        long seen;
        do {
            tsr_lock(1);
            seen = *done;
            tsr_unlock(1);
        } while (seen < n - 1);
        uint64_t r0 = counter("diff_requests");
        int ok = 1;
        for (int k = 1; k < n; k++)
            ok &= all[k] == (char)k;
        uint64_t r1 = counter("diff_requests");
        CHECK(ok, "a writer's byte of the shared page is lost");
        CHECK(r1 - r0 == (uint64_t)(n - 1), "%llu diff requests for a page %d nodes wrote",
              (unsigned long long)(r1 - r0), n - 1);
        CHECK(one[0] == 7, "node 1's write lost");
        uint64_t r2 = counter("diff_requests");
        CHECK(r2 - r1 == 1, "%llu diff requests for a page one node wrote",
              (unsigned long long)(r2 - r1));
        CHECK(mine[ROUNDS - 1] == ROUNDS, "node 0's own page changed");
    }
    tsr_barrier();
    int status = check_verdict(me, "lrc_counted");
    tsr_finalize();
    return status;
}
