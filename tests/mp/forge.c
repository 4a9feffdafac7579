/* Forged and malformed messages of every type, from an authenticated peer,
 * in the middle of a job: node 1 sends them to node 0 while every node
 * increments a shared counter under a lock and writes its own slot of a
 * page homed at node 0, and reads Munin objects managed by nodes 0 and 1
 * that the Munin forgeries name. Each forgery must be rejected (messages_rejected)
 * or, for a reply to no outstanding request, dropped (replies_dropped) at
 * node 0, exactly as many as sent, and the job's results must stay exact.
 * Lock and barrier messages that keep the table's rules but not the
 * protocol's state (a release by a node that does not hold the lock, a
 * second acquire or a try while it holds the lock, a bounce or forward
 * nobody owes, a grant or a try's refusal nobody waits for, a second arrival at one barrier, a departure not from the root) are
 * rejected the same way. tests/sh/forge.sh checks the log lines that name
 * them. */
/* tsr-test: suite -n 2,4 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coherence/munin/munin_int.h"
#include "coherence/payload.h"
#include "coherence/protocol.h"
#include "sync/collective.h"
#include "coherence/outbox.h"
#include "memory/arena.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "tessera_munin.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "counter.h"

#define K 40
#define NOBODY 0x7fff0000ull /* a request id no node ever issued */

static int rejected, dropped; /* forgeries sent, by the verdict they must get */

static void forge(int verdict, int type, uint64_t a0, uint64_t a1, uint64_t a2, size_t len)
{
    static char junk[3 << 20] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    am_send(0, type, a0, a1, a2, junk, len);
    if (verdict == 'r')
        rejected++;
    else
        dropped++;
}

/* One of every kind of forgery, for every type. `home0` is a page homed at
 * node 0, `home1` one homed at node 1. The first five are each of another
 * kind, for the log lines forge.sh looks for. */
static void forge_all(uint32_t home0, uint32_t home1)
{
    uint64_t off_region = region.npages, big = 1ull << 40;
    forge('r', 999, 0, 0, 0, 0);                                 /* unknown type */
    forge('r', MSG_LOCK_ACQ, 50000, 0, 0, 0);                     /* lock id out of range */
    forge('r', MSG_ADOPT_REQ, 0, 0, 0, 8);                       /* payload on an empty type */
    forge('r', MSG_PAGE_REQ, home1, 0, 1, 0);                    /* page not homed here */
    forge('d', MSG_PAGE_REP, home0, NOBODY, 1, 0);               /* reply to no request */
    forge('r', MSG_PAGE_REQ, off_region, 0, 1, 0);               /* page off the region */
    forge('r', MSG_PAGE_REQ, home0, 0, 0, 0);                    /* empty run */
    forge('r', MSG_PAGE_REQ, home0, 0, 1 | (uint64_t)1000 << 32, 0); /* stride too long */
    forge('r', MSG_PAGE_REP, home0, NOBODY, 1, 2 << 20);         /* longer than a fetch */
    forge('r', MSG_DIFF, 1, 0, 0, 4);                            /* truncated entry */
    forge('r', MSG_DIFF, big, 0, 0, 0);                          /* count beyond the region */
    forge('r', MSG_DIFF, 0, 0, 0, 64);                           /* longer than its count */
    forge('d', MSG_DIFF_ACK, 1, NOBODY, 0, 8);
    forge('r', MSG_DIFF_ACK, 1, NOBODY, 0, 12);                  /* length not count * 8 */
    forge('r', MSG_LOCK_GRANT, 70000, 0, 0, 0);
    forge('r', MSG_LOCK_REL, 50000, 0, 0, 0);                     /* lock id out of range */
    forge('r', MSG_LOCK_TRY, 50000, 1, 0, 0);
    forge('r', MSG_LOCK_REFUSED, 50000, 1, 0, 0);
    forge('r', MSG_MU_REQ, off_region, 0, 0, 0);
    forge('r', MSG_MU_REQ, home0 | 1ull << 32, 0, 0, 0);         /* not a Munin page */
    forge('d', MSG_MU_GRANT, home0 | 1ull << 32, NOBODY, 0, 0);
    forge('r', MSG_MU_RETURN, off_region, 0, 0, 0);
    forge('r', MSG_MU_RETURN, home0, 0, 0, 0);                   /* not a Munin page */
    forge('r', MSG_MU_INVAL, home0, 0, 0, 0);                    /* not a Munin page */
    forge('d', MSG_MU_INVAL_ACK, home0, NOBODY, 0, 0);
    forge('r', MSG_MU_INVAL_ACK, home0, NOBODY, 0, 8192);        /* more than a page */
    forge('r', MSG_MU_UPDATE, 1, 0, 0, 16);                      /* page not Munin's */
    forge('d', MSG_MU_UPDATE_ACK, 0, NOBODY, 0, 0);
    forge('r', MSG_MU_FROZEN, 1, 0, 0, 8);                       /* not count * 16 */
    forge('r', MSG_MU_REDUCE, (uint64_t)home0 << 12, 0, 0, 0);   /* not a reduction object */
    forge('d', MSG_MU_REDUCE_REP, 0, NOBODY, 0, 0);
    forge('r', MSG_LOCK_PEEK, 50000, 0, 0, 0);
    forge('r', MSG_LOCK_DATA, 50000, 0, 0, 0);
    forge('r', MSG_WHERE_ASK, 0, 0, 0, 3);
    forge('r', MSG_WHERE, 0, 0, 0, 300);
    forge('r', MSG_ADOPT_REQ, home0, 0, 0, 0);                   /* outside the arena */
    forge('d', MSG_ADOPT_REP, home0, NOBODY, 1, 0);
    uint32_t arena1, arena1_end;
    arena_bounds(1, &arena1, &arena1_end);
    forge('r', MSG_MU_FORGET, home0, 0, 1, 0);                   /* not the sender's arena */
    forge('r', MSG_MU_FORGET, arena1, 0, 0, 0);                  /* no pages */
    forge('r', MSG_MU_FORGET, arena1, 0, arena1_end - arena1 + 1, 0); /* past its arena */
    forge('d', MSG_MU_FORGET_ACK, 0, NOBODY, 0, 0);
    forge('r', MSG_DISTRIBUTE, 0, 0, 0, 8);                      /* no TreadMarks here */
    forge('r', MSG_DISTRIBUTE_ACK, 0, NOBODY, 0, 0);
    am_send(0, MSG_ECHO_REQ, 0, NOBODY, 0, NULL, 0); /* valid: its reply is dropped here */
    forge('d', MSG_ECHO_REP, 0, NOBODY, 0, 8);
    forge('d', MSG_ECHO_REP, 0, 0, 0, 0);                        /* id 0 is never issued */
    forge('r', MSG_ABORT, 77, 0, 0, 4);                          /* not a node of the job */
    forge('r', MSG_BYE, 0, 0, 0, 8);
}

static void forge_entry(uint32_t page, uint8_t flags, const void *diff, size_t len)
{
    outbox o = {0};
    outbox_add(&o, page, flags, diff, len);
    am_send(0, MSG_MU_UPDATE, o.count, 0, 0, o.buf, o.len);
    outbox_free(&o);
    rejected++;
}

/* Messages about real Munin pages that only their manager, or only a node
 * that holds a copy, may send. mu0 is managed by node 0, mu1 by node 1. */
static void forge_munin(uint32_t mu0, uint32_t mu1)
{
    static const uint8_t diff[] = {0, 0, 4, 0, 'f', 'a', 'k', 'e'}; /* 4 bytes at offset 0 */
    static const uint8_t past_page[] = {0xff, 0x0f, 4, 0, 'f', 'a', 'k', 'e'};
    forge('r', MSG_MU_INVAL, mu0 | (uint64_t)INV_DROP << 32, 0, 0, 0); /* not its manager */
    forge('r', MSG_MU_REQ, mu1 | 1ull << 32 | (uint64_t)A_READ << 48, 0, 0, 0); /* not managed here */
    forge('r', MSG_MU_REQ, mu0 | 1ull << 32 | 7ull << 48, 0, 0, 0);  /* unknown access */
    forge('r', MSG_MU_REQ, mu0 | 1ull << 32 | (uint64_t)A_READ << 48, 0, 1000, 0); /* epoch */
    forge('r', MSG_MU_RETURN, mu1, 0, 0, 0);                          /* not managed here */
    forge_entry(mu1, U_FORWARD, diff, sizeof diff);                   /* forward, not manager */
    forge_entry(mu0, 0, past_page, sizeof past_page);                 /* run past the page */
    forge_entry(mu0, 4, diff, sizeof diff);                           /* unknown flag */
    forge_entry(mu0, U_FORWARD | U_DROPPED, diff, sizeof diff);       /* not a stable page */
    outbox o = {0};
    uint64_t everyone = ~0ull;
    outbox_add(&o, mu0, 0, &everyone, sizeof everyone);
    am_send(0, MSG_MU_FROZEN, o.count, 0, 0, o.buf, o.len);           /* copyset not its own */
    outbox_free(&o);
    rejected++;
}

static int nodes; /* tsr_nodes(), which only the application thread may call */

/* Node 1's arrival at barrier `epoch` in sync/gather.c's format: no
 * messages counted, one entry, node 1's, of a call of kind 0 and `frames`. */
static void send_arrival(uint64_t epoch, const void *frames, uint32_t len)
{
    static const char zero[8];
    size_t counts = ((size_t)nodes * sizeof(uint32_t) + 7) & ~(size_t)7;
    pbuf m = {0};
    memset(pbuf_room(&m, counts), 0, counts);
    uint32_t hd[4] = {1, 0, len, 0};
    pbuf_put(&m, hd, sizeof hd);
    memset(pbuf_room(&m, sizeof(coll_sig)), 0, sizeof(coll_sig));
    pbuf_put(&m, frames, len);
    pbuf_put(&m, zero, (8 - len % 8) % 8);
    am_send(0, MSG_BARRIER_ARRIVE, epoch, 1, 0, m.p, m.len);
    pbuf_free(&m);
}

/* Lock 0 is managed by node 0 and never taken by the job; lock 1 is managed
 * by node 1. Node 1 really asks for lock 0 once (a well-formed request of
 * every protocol), so node 0 grants it to node 1, which rejects that grant:
 * it did not ask. Then node 1 asks again and breaks the manager's rules. */
static void forge_locks(void)
{
    pbuf req = {0};
    coh_lock_request(0, &req);
    forge('r', MSG_LOCK_REL, 0, 1, 0, 0);                 /* holds nothing yet */
    forge('r', MSG_LOCK_FWD, 0, 1, 1, 0);                 /* not from the manager */
    forge('r', MSG_LOCK_FWD, 1, 0, 1, 0);                 /* node 0's own request */
    forge('r', MSG_LOCK_FWD, 1, 1, 5, req.len);           /* a cycle not begun */
    forge('r', MSG_LOCK_GRANT, 0, 0, 0, 0);               /* node 0 does not wait for it */
    forge('r', MSG_LOCK_REFUSED, 0, 1, 0, 0);             /* not from the manager */
    forge('r', MSG_LOCK_REFUSED, 1, 0xffffffff, 0, 0);    /* node 0 tries nothing */
    forge('r', MSG_BARRIER_DONE, 0, 0, 0, 0);             /* not from the root */
    forge('r', MSG_BARRIER_ARRIVE, 1ull << 40, 0, 0, 0);  /* another barrier */
    forge('d', MSG_LOCK_DATA, 0, NOBODY, 0, 0);           /* an answer to no peek */
    am_send(0, MSG_LOCK_ACQ, 0, 1, 0, req.p, req.len);    /* valid: granted to node 1 */
    am_send(0, MSG_LOCK_ACQ, 0, 1, 0, req.p, req.len);    /* the same request again */
    am_send(0, MSG_LOCK_ACQ, 0, 2, 0, req.p, req.len);    /* asks while it holds it */
    am_send(0, MSG_LOCK_TRY, 0, 2, 0, req.p, req.len);    /* tries while it holds it */
    am_send(0, MSG_LOCK_BOUNCE, 0, 1, 0, req.p, req.len); /* a bounce it does not owe */
    am_send(0, MSG_LOCK_PEEK, 0, NOBODY, 0, NULL, 0);     /* valid: waits for a release */
    am_send(0, MSG_LOCK_PEEK, 0, NOBODY, 0, NULL, 0);     /* a second one meanwhile */
    rejected += 5;
    forge('r', MSG_LOCK_REL, 0, 7, 0, 0);                 /* not its cycle */
    forge('r', MSG_LOCK_ACQ, 0, 2, 0, 4);                 /* malformed frames */
    forge('r', MSG_LOCK_TRY, 0, 2, 0, 4);
    /* Well framed, but the home-based protocol's notices come 8 bytes each,
     * and its barrier frames begin with a count of home migration reports
     * of 8 bytes each: this one counts one report and holds 4 bytes. */
    static const uint32_t odd[3] = {TSR_PROTO_HLRC + 1, 4, 0};
    static const uint32_t short_report[4] = {TSR_PROTO_HLRC + 1, 8, 1, 0};
    am_send(0, MSG_LOCK_REL, 0, 1, 0, odd, sizeof odd);   /* its release: malformed */
    nodes = tsr_nodes();
    send_arrival(coh_epoch(), short_report, sizeof short_report);
    rejected += 2;
    pbuf_free(&req);
}

/* Node 1 arrives at barrier `epoch` a second time, once its own arrival is
 * out (it has nothing to flush, so that arrival is the only message its
 * barrier sends, and stats_posted counts it once the transport has it).
 * Node 0 arrives only once it has rejected the second arrival, so the
 * barrier is still open when it comes. */
static uint64_t sent_before;
static void *arrive_again(void *epoch)
{
    while (stats_posted() == sent_before)
        sched_yield();
    send_arrival((uint64_t)(uintptr_t)epoch, NULL, 0);
    rejected++;
    return NULL;
}

static void barrier_arrived_twice(int me)
{
    pthread_t t;
    /* Every forgery before this one has been rejected: they reached node 0
     * before node 1's arrival at the last barrier. */
    uint64_t rejected_before = counter("messages_rejected");
    /* Every node has read what it reads: none asks node 1 for anything
     * now, whose answer the helper would take for node 1's arrival. */
    tsr_barrier();
    if (me == 1) {
        nodes = tsr_nodes();
        sent_before = stats_posted();
        pthread_create(&t, NULL, arrive_again, (void *)(uintptr_t)coh_epoch());
    }
    while (me == 0 && counter("messages_rejected") == rejected_before)
        sched_yield();
    tsr_barrier();
    if (me == 1)
        pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), bad = 0;
    tsr_attr at0 = TSR_ATTR_DEFAULT, at1 = TSR_ATTR_DEFAULT;
    at0.home = at1.home = TSR_HOME_NODE;
    at1.home_node = n > 1;
    long *count = tsr_alloc_attr(PAGE_SIZE, &at0);
    long *slots = tsr_alloc_attr(PAGE_SIZE, &at0);
    long *other = tsr_alloc_attr(PAGE_SIZE, &at1);
    at0.proto = at1.proto = TSR_PROTO_MUNIN;
    long *mu0 = tsr_alloc_attr(PAGE_SIZE, &at0), *mu1 = tsr_alloc_attr(PAGE_SIZE, &at1);
    if (me == 0)
        *mu0 = 1234;
    if (me == (n > 1))
        *mu1 = 5678;
    tsr_barrier();
    for (int i = 0; i < K; i++) {
        if (i == K / 2 && me == 1) {
            forge_all(page_of(count), page_of(other));
            forge_munin(page_of(mu0), page_of(mu1));
            forge_locks();
            /* Once node 0 has handled them all (its echo reply follows
             * them on the same connection) and a second has passed, one
             * more: its line comes with the count of the lines the rate
             * limit held back. The second is the limit's own window,
             * which began at node 0's first line, before its reply. */
            char probe = 0;
            am_echo(0, &probe, 1, &probe);
            sleep(1);
            forge('r', MSG_LOCK_ACQ, 60000, 0, 0, 0);
        }
        tsr_lock(3);
        (*count)++;
        tsr_unlock(3);
        slots[me] += i;
    }
    /* Node 1's forgeries reached node 0 before its arrival at this barrier,
     * on the same connection, and node 0 is the barrier's root. */
    tsr_barrier();
    for (int j = 0; j < n; j++)
        bad += slots[j] != K * (K - 1) / 2;
    bad += *count != (long)K * n || *mu0 != 1234 || *mu1 != 5678;
    if (n > 1)
        barrier_arrived_twice(me);
    if (me == 1) {
        long want[2] = {rejected, dropped};
        memcpy(other, want, sizeof want);
    }
    tsr_barrier();
    if (me == 0) {
        uint64_t want_r = (uint64_t)other[0], want_d = (uint64_t)other[1];
        uint64_t got_r = counter("messages_rejected"), got_d = counter("replies_dropped");
        printf("node 0: %llu rejected (want %llu), %llu dropped (want %llu)\n",
               (unsigned long long)got_r, (unsigned long long)want_r,
               (unsigned long long)got_d, (unsigned long long)want_d);
        bad += got_r != want_r || got_d != want_d || !want_r;
    } else {
        /* Node 1 drops the answer to the echo request it forged, and
         * rejects the grant of lock 0 it forged a request for. */
        bad += counter("messages_rejected") != (me == 1) || counter("replies_dropped") != (me == 1);
    }
    /* Every request this node made was answered and closed: none leaked. */
    bad += req_outstanding() != 0;
    printf("node %d: count %ld, %u requests open %s\n", me, *count, req_outstanding(),
           bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
