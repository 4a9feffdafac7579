/* Forged fork, flag, offer, push (of pages and of diffs) and multicast-tree messages from an
 * authenticated peer: node 1 sends them to node 0, which must reject each
 * (messages_rejected) or drop it as a reply to nothing (replies_dropped),
 * exactly as many as sent, with no other effect: node 0 runs no function,
 * keeps no page, and the job ends normally. */
/* tsr-test: ompnow -n 3,4 */
#include <stdio.h>
#include <string.h>

#include "memory/region.h"
#include "sync/collective.h"
#include "tessera.h"
#include "transport/transport.h"

#define NOBODY 0x7fff0000ull

static int rejected, dropped;
static volatile int ran; /* set if a forged fork ever ran here */

static void victim(void *arg) { ran = 1; }

static void forge(int verdict, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *p,
                  size_t len)
{
    am_send(0, type, a0, a1, a2, p, len);
    if (verdict == 'r')
        rejected++;
    else
        dropped++;
}

/* A tree message: root, the node list, an inner message. */
static void forge_tree(int inner, uint64_t a0, uint64_t root, const uint16_t *list, int n,
                       size_t inner_len)
{
    static char buf[24 + 16 + 8 + 4096];
    memset(buf, 0, sizeof buf);
    uint64_t args[3] = {a0, 1, 0};
    memcpy(buf, args, sizeof args);
    memcpy(buf + 24, list, (size_t)n * 2);
    size_t head = 24 + (((size_t)n * 2 + 7) & ~(size_t)7);
    am_send(0, MSG_TREE, (uint64_t)inner, root, (uint64_t)n, buf, head + inner_len);
    rejected++;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), bad = 0;
    tsr_attr at0 = TSR_ATTR_DEFAULT;
    at0.home = TSR_HOME_NODE;
    long *home0 = tsr_alloc_attr(PAGE_SIZE, &at0);
    int *sent = tsr_alloc(2 * sizeof(int));
    uint64_t before_r = 0, before_d = 0;
    tsr_counter_get("messages_rejected", &before_r);
    tsr_counter_get("replies_dropped", &before_d);
    tsr_barrier();
    if (me == 1) {
        uint32_t p0 = page_of(home0);
        uintptr_t fn = (uintptr_t)victim;
        char page[8 + 4096] = {0};
        uint64_t note[3 + 1] = {0, fn, 0, 0};               /* a note and an empty departure */
        forge('r', MSG_FORK, 0, 1, 0, note, sizeof note);   /* a fork not from node 0 */
        char arrival[4 * 8 + 24] = {0};                     /* counters, a tsr_barrier call */
        memcpy(arrival + 4 * (size_t)tsr_nodes(), (uint64_t[]){COLL_BARRIER}, 8);
        tsr_stats st;                                       /* at node 1's current barrier, */
        tsr_stats_get(&st);                                 /* which node 0 waits at */
        forge('r', MSG_BARRIER_ARRIVE, st.barriers, 1, 0, arrival, 4 * (size_t)tsr_nodes() + 24);
                                                            /* tsr_barrier parking for a fork */
        forge('r', MSG_PAGE_OFFER, p0, 1, 0, NULL, 0);      /* an offer from another node */
        forge('r', MSG_LRC_DIFF_OFFER, p0, 1, 0, NULL, 0);  /* the same, of diffs */
        forge('r', MSG_PAGE_PUSH, p0, 1, 0, page, sizeof page); /* a page the sender does not home */
        forge('r', MSG_PAGE_PUSH, p0, 1, 0, page, 8);       /* not a page long */
        uint32_t diff[3] = {1, 1, 0};
        forge('r', MSG_LRC_DIFF_PUSH, p0, 1, 2, diff, sizeof diff); /* two diffs said, one sent */
        forge('r', MSG_FLAG_SET, 5000, 0, 0, NULL, 0);      /* a flag out of range */
        forge('r', MSG_FLAG_WAIT, 1, NOBODY, 0, NULL, 0);   /* a flag node 0 does not manage */
        forge('d', MSG_FLAG_UP, 0, NOBODY, 0, NULL, 0);     /* wakes no waiter */
        forge('d', MSG_FLAG_DOWN, 0, NOBODY, 0, NULL, 0);   /* answers no clear */
        forge('r', MSG_LOCK_ACQ, MSG_FLAG_LOCKS + MSG_FLAGS, 0, 0, NULL, 0); /* past the flags */
        uint16_t to0[] = {1, 0}, from2[] = {2, 0}, twice[] = {1, 1, 0};
        forge_tree(MSG_DIFF, 0, 1, to0, 2, 0);              /* a type no tree carries */
        forge_tree(MSG_PAGE_PUSH, p0, 1, to0, 2, 8 + 4096); /* a tree, but the push is forged */
        forge_tree(MSG_PAGE_PUSH, p0, 2, from2, 2, 8 + 4096); /* node 0's parent is node 2 */
        forge_tree(MSG_PAGE_PUSH, p0, 1, twice, 3, 8 + 4096); /* a node twice in the list */
        forge_tree(MSG_PAGE_PUSH, p0, 1, to0, 1, 8 + 4096); /* a list of one */
        sent[0] = rejected;
        sent[1] = dropped;
    }
    tsr_barrier();
    tsr_barrier(); /* node 1's messages before its barrier arrival are in */
    if (me == 0) {
        uint64_t r = 0, d = 0;
        tsr_counter_get("messages_rejected", &r);
        tsr_counter_get("replies_dropped", &d);
        if (r - before_r != (uint64_t)sent[0] || d - before_d != (uint64_t)sent[1] || ran) {
            printf("node 0: %llu rejected (want %d), %llu dropped (want %d)%s\n",
                   (unsigned long long)(r - before_r), sent[0], (unsigned long long)(d - before_d),
                   sent[1], ran ? ", and a forged fork ran" : "");
            bad = 1;
        }
        printf("node 0: forged fork, flag, push and tree messages %s\n", bad ? "FAIL" : "PASS");
    }
    tsr_finalize();
    return bad;
}
