/* The deadlock finder (sync/deadlock.c) on answers made up here: a cycle
 * of locks or of waits for a named sender is a deadlock; a node waiting
 * for a message from any node is in one only when every node is stuck; a
 * wait whose message has come, or a node that waits for nothing, frees
 * the nodes that wait for it. */
#include "check.h"
#include "sync/where.h"

#define N 3

static where_rec rec[N];

static void reset(void)
{
    memset(rec, 0, sizeof rec);
    for (int j = 0; j < N; j++) {
        rec[j].answered = 1;
        rec[j].lock = -1;
    }
}

static void recv_from(int j, int from)
{
    rec[j].wait = WAIT_JIA_RECV;
    rec[j].from = from;
    rec[j].blocked = 1;
}

static int found(void)
{
    int cycle[N];
    return deadlock_find(rec, N, 0, cycle);
}

int main(void)
{
    reset();
    recv_from(0, 1);
    recv_from(1, 0);
    CHECK(found() == 2, "0 and 1 each jia_recv from the other: a cycle of 2, found %d", found());
    rec[1].blocked = 0;
    CHECK(found() == 0, "node 1's message came: no deadlock, found %d", found());

    reset();
    recv_from(0, -1);
    recv_from(1, 0);
    CHECK(found() == 0, "0 waits for any node and node 2 runs: no deadlock, found %d", found());
    recv_from(2, 1);
    CHECK(found() == 2, "every node stuck: a deadlock through 0's wait for any, found %d",
          found());
    rec[2].answered = 0;
    CHECK(found() == 0, "node 2 silent, so not known to wait: none, found %d", found());

    reset();
    rec[0].lock = 1;
    rec[1].nheld = 1;
    rec[1].held[0] = 1;
    recv_from(1, 0);
    CHECK(found() == 2, "0 waits for lock 1, held by 1, which waits for 0's message: found %d",
          found());
    recv_from(1, 2);
    CHECK(found() == 0, "1 waits for node 2, which runs: none, found %d", found());

    reset();
    rec[0].wait = WAIT_TMK_COND;
    rec[0].from = -1;
    rec[0].blocked = 1;
    rec[1].lock = 2;
    rec[1].nheld = 1;
    rec[1].held[0] = 1;
    CHECK(found() == 0, "a condition waiter while node 2 runs: none, found %d", found());
    rec[2].lock = 1;
    rec[2].nheld = 1;
    rec[2].held[0] = 2;
    CHECK(found() == 2, "a condition waiter beside a cycle of locks: found %d", found());
    return check_done("deadlock");
}
