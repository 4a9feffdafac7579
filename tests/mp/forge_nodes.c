/* Node, id and count arguments out of range, from an authenticated peer:
 * node 1 sends node 0 each lock, barrier, pause flag and fetch message
 * with node -1 and node N (the job's size), an id of 2^40 or -1, and a
 * 32-bit number past 32 bits that would wrap to a value the state accepts
 * (the next request cycle, a count whose product is the payload's length),
 * while every node increments a counter under a lock and writes its own
 * slot of a page homed at node 0. Node 0 must reject and count every one
 * (messages_rejected), exactly as many as sent, change nothing, and the
 * job's results must stay exact. The matrix runs it over shared memory,
 * TCP and UDP. */
/* tsr-test: suite -n 2,4 */
#include <stdio.h>
#include <string.h>

#include "memory/region.h"
#include "tessera.h"
#include "transport/transport.h"
#include "counter.h"

#define K 40
#define SENT 64 /* the slot of the page where node 1 leaves its count */

static const uint64_t NONE = UINT64_MAX, HUGE_ID = 1ull << 40, PAST32 = 1ull << 32;
static int sent;

static void forge(int type, uint64_t a0, uint64_t a1, uint64_t a2, size_t len)
{
    static const char payload[64];
    am_send(0, type, a0, a1, a2, payload, len);
    sent++;
}

/* Lock 0 is managed by node 0, lock 1 by node 1 (id mod N); node 1 never
 * asked for lock 0, so its next cycle there is 1, which 2^32 + 1 wraps to. */
static void forge_locks(int n)
{
    forge(MSG_LOCK_ACQ, NONE, 1, 0, 0);
    forge(MSG_LOCK_ACQ, HUGE_ID, 1, 0, 0);
    forge(MSG_LOCK_ACQ, 0, PAST32 + 1, 0, 0);      /* wraps to the next cycle */
    forge(MSG_LOCK_FWD, 1, NONE, 1, 0);            /* from lock 1's manager */
    forge(MSG_LOCK_FWD, 1, (uint64_t)n, 1, 0);
    forge(MSG_LOCK_FWD, HUGE_ID, 1, 1, 0);
    forge(MSG_LOCK_FWD, 1, 1, PAST32 + 1, 0);      /* cycle wraps */
    forge(MSG_LOCK_BOUNCE, 0, NONE, 0, 0);         /* -1: "nobody owes" */
    forge(MSG_LOCK_BOUNCE, 0, (uint64_t)n, 0, 0);
    forge(MSG_LOCK_BOUNCE, NONE, 0, 0, 0);
    forge(MSG_LOCK_GRANT, NONE, 0, 0, 0);
    forge(MSG_LOCK_GRANT, HUGE_ID, 0, 0, 0);
    forge(MSG_LOCK_REL, NONE, 1, 0, 0);
    forge(MSG_LOCK_REL, 0, PAST32, 0, 0);
    forge(MSG_LOCK_REL, 0, 1, PAST32, 0);          /* epoch wraps */
    forge(MSG_LOCK_TRY, HUGE_ID, 1, 0, 0);
    forge(MSG_LOCK_TRY, 0, PAST32 + 1, 0, 0);      /* wraps to the next cycle */
    forge(MSG_LOCK_REFUSED, NONE, 1, 0, 0);
    forge(MSG_LOCK_REFUSED, 1, PAST32, 0, 0);
    forge(MSG_LOCK_PEEK, NONE, 1, 0, 0);
    forge(MSG_LOCK_PEEK, HUGE_ID, 1, 0, 0);
    forge(MSG_LOCK_DATA, HUGE_ID, 1, 0, 0);
    forge(MSG_FLAG_SET, NONE, 0, 0, 0);
    forge(MSG_FLAG_CLEAR, PAST32, 0, 0, 0);        /* wraps to flag 0 */
    forge(MSG_FLAG_WAIT, HUGE_ID, 1, 0, 0);
    forge(MSG_WHERE_ASK, 0, (uint64_t)-2, 0, 0);   /* -1 is "no lock", -2 nothing */
    forge(MSG_WHERE_ASK, 0, HUGE_ID, 0, 0);
}

static void forge_barrier(int n)
{
    forge(MSG_BARRIER_ARRIVE, HUGE_ID, 0, 0, 0);
    forge(MSG_BARRIER_ARRIVE, NONE, 0, 0, 0);
    forge(MSG_BARRIER_DONE, 0, PAST32, 0, 0);      /* expected count wraps */
    forge(MSG_BARRIER_DONE, NONE, NONE, 0, 0);
    forge(MSG_TREE, MSG_PAGE_PUSH, NONE, 2, 0);    /* root -1 */
    forge(MSG_TREE, MSG_PAGE_PUSH, (uint64_t)n, 2, 0);
    forge(MSG_ABORT, (uint64_t)-2, 0, 0, 4);       /* only -1 means the whole job */
    forge(MSG_ABORT, (uint64_t)n, 0, 0, 4);
}

/* `home0`: a page homed at node 0. */
static void forge_fetches(uint32_t home0)
{
    uint64_t wrapped = 0x20000001; /* times 8 bytes is 8 in 32 bits */
    forge(MSG_PAGE_REQ, 0xffffffffull, 1, 1, 0);   /* page -1 in its 32 bits */
    forge(MSG_PAGE_REQ, region.npages, 1, 1, 0);
    forge(MSG_PAGE_REQ, home0, 1, PAST32, 0);      /* a count of 2^32: none */
    forge(MSG_PAGE_REP, NONE, 1, 1, 0);
    forge(MSG_PAGE_REP, HUGE_ID, 1, 1, 0);
    forge(MSG_DIFF, NONE, 1, 0, 0);
    forge(MSG_DIFF, wrapped, 1, 0, 8);
    forge(MSG_DIFF_ACK, wrapped, 1, 0, 8);
    forge(MSG_DIFF_ACK, PAST32 + 1, 1, 0, 8);
    forge(MSG_LRC_DIFF_REQ, 0xffffffffull, 1, 1, 0);
    forge(MSG_LRC_DIFF_REP, home0, 1, PAST32 + 1, 12);
    forge(MSG_LRC_DIFF_REP, NONE, 1, 1, 0);
    forge(MSG_PAGE_PUSH, NONE, 0, 0, 0);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    long *count = tsr_alloc_attr(PAGE_SIZE, &at);
    long *slots = tsr_alloc_attr(PAGE_SIZE, &at);
    uint64_t rejected_before = counter("messages_rejected");
    tsr_barrier();
    for (int i = 0; i < K; i++) {
        if (i == K / 2 && me == 1) {
            forge_locks(n);
            forge_barrier(n);
            forge_fetches(page_of(count));
        }
        tsr_lock(3);
        (*count)++;
        tsr_unlock(3);
        slots[me] += i;
    }
    /* Node 1's forgeries reached node 0 before its arrival at this barrier,
     * on the same connection (or in order, over UDP), and node 0 is the
     * barrier's root. */
    if (me == 1)
        slots[SENT] = sent;
    tsr_barrier();
    int want = (int)slots[SENT];
    for (int j = 0; j < n; j++)
        bad += slots[j] != K * (K - 1) / 2;
    bad += *count != (long)K * n;
    uint64_t got = counter("messages_rejected") - rejected_before;
    if (me == 0) {
        printf("node 0: %llu rejected (want %d)\n", (unsigned long long)got, want);
        bad += got != (uint64_t)want || (n > 1 && !want);
    } else {
        bad += got != 0;
    }
    printf("node %d: count %ld %s\n", me, *count, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
