/*
 * deadlock.c - a cycle in the wait-for relation the stall detector learns.
 *
 * A node waiting for a lock waits for the node that holds it. A node in a
 * collective call waits for every node that has not entered that call,
 * unless the call is over (a node has left it or gone past it: its
 * departure is on the way). A node that is doing neither waits for nobody,
 * and a node that did not answer is not known to wait: only a cycle of
 * nodes each known to wait for the next is reported. A node waiting for
 * a message (jia_recv, jia_wait, Tmk_lock_cond_wait) waits for its sender,
 * or, when any node may send it, for every other node: such a node is
 * stuck only if all of them are. So the search keeps to the nodes that
 * stay stuck once every node that may still move has been taken out, with
 * the nodes it frees, one after another (a node whose wait is already
 * ended, or that waits for nobody, may move). A node waiting for any
 * sender is then in a cycle only when every node is stuck.
 *
 * The answers are taken at different moments. stall.c therefore stops the
 * job only when two rounds of questions find the same cycle with every node
 * on it at the same `moves` count: each of them stayed where it was from
 * its first answer to its second, so at any moment between the first
 * round's end and the second's start all of them were where they said, each
 * waiting for the next. None can move first: that is a deadlock, not a
 * picture of a hand-off in flight.
 */
#include <stdio.h>
#include <string.h>

#include "sync/where.h"

static int holds(const where_rec *r, int32_t lock)
{
    int n = r->nheld < WHERE_HELD_MAX ? r->nheld : WHERE_HELD_MAX;
    for (int k = 0; k < n; k++)
        if (r->held[k] == lock)
            return 1;
    return 0;
}

/* Whether the collective call that a node entered as its `entered`th is
 * over: some node has left it or entered a later one. */
static int call_over(const where_rec *rec, int n, uint64_t entered)
{
    for (int i = 0; i < n; i++)
        if (rec[i].answered &&
            (rec[i].entered > entered || (rec[i].entered == entered && !rec[i].inside)))
            return 1;
    return 0;
}

/* Whether node j waits for node i. */
static int waits_for(const where_rec *rec, int n, int j, int i)
{
    const where_rec *a = &rec[j], *b = &rec[i];
    if (i == j || !a->answered || !b->answered)
        return 0;
    if (a->lock >= 0)
        return holds(b, a->lock);
    if (a->wait) /* blocked: its message has not come yet */
        return a->blocked && (a->from < 0 || a->from == i);
    return a->inside && a->entered && b->entered < a->entered && !call_over(rec, n, a->entered);
}

/* Whether node j, stuck so far, may move: its message came, or it waits
 * for one from any node and one of them may move, or it waits for no
 * stuck node. */
static int frees(const where_rec *rec, int n, const char *stuck, int j)
{
    if (rec[j].wait && !rec[j].blocked)
        return 1;
    int any = rec[j].wait && rec[j].from < 0;
    for (int i = 0; i < n; i++) {
        if (i == j)
            continue;
        if (any && !stuck[i])
            return 1;
        if (!any && stuck[i] && waits_for(rec, n, j, i))
            return 0;
    }
    return !any;
}

/* stuck[j]: node j stays stuck however the nodes that may move do. */
static void find_stuck(const where_rec *rec, int n, char *stuck)
{
    memset(stuck, 1, (size_t)n);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int j = 0; j < n; j++)
            if (stuck[j] && frees(rec, n, stuck, j))
                stuck[j] = 0, changed = 1;
    }
}

/* Depth-first search from j among the stuck nodes (state 3: not stuck);
 * `state`: 0 unseen, 1 on the path, 2 done. On reaching a node on the
 * path, the path from it is the cycle. */
static int search(const where_rec *rec, int n, int j, char *state, int *path, int depth,
                  int *cycle)
{
    state[j] = 1;
    path[depth] = j;
    for (int i = 0; i < n; i++) {
        if (state[i] >= 2 || !waits_for(rec, n, j, i))
            continue;
        if (state[i] == 1) {
            int at = 0;
            while (path[at] != i)
                at++;
            memcpy(cycle, path + at, (size_t)(depth + 1 - at) * sizeof *cycle);
            return depth + 1 - at;
        }
        int k = search(rec, n, i, state, path, depth + 1, cycle);
        if (k)
            return k;
    }
    state[j] = 2;
    return 0;
}

/* Turns the cycle to begin at its lowest node: every node that finds it
 * names it the same way. */
static void rotate(int *cycle, int k)
{
    int low = 0, copy[k];
    for (int i = 1; i < k; i++)
        if (cycle[i] < cycle[low])
            low = i;
    for (int i = 0; i < k; i++)
        copy[i] = cycle[(low + i) % k];
    memcpy(cycle, copy, (size_t)k * sizeof *cycle);
}

int deadlock_find(const where_rec *rec, int n, int from, int *cycle)
{
    char state[n], stuck[n];
    int path[n];
    find_stuck(rec, n, stuck);
    if (!stuck[from])
        return 0;
    for (int j = 0; j < n; j++)
        state[j] = stuck[j] ? 0 : 3;
    int k = search(rec, n, from, state, path, 0, cycle);
    if (k)
        rotate(cycle, k);
    return k;
}

/* "node 0 waits for lock 1, held by node 1" or "node 1 waits in call #2
 * tsr_barrier() for node 0, which has not entered it" */
static int describe_wait(char *buf, size_t len, const where_rec *rec, int j, int next)
{
    const where_rec *r = &rec[j];
    char who[48]; /* the thread is named when a program runs threads: 0 is the tsr_init one */
    if (r->thread)
        snprintf(who, sizeof who, "node %d (thread %d)", j, r->thread);
    else
        snprintf(who, sizeof who, "node %d", j);
    if (r->lock >= 0)
        return snprintf(buf, len, "%s waits for lock %d, held by node %d", who, r->lock, next);
    if (r->wait && r->from >= 0)
        return snprintf(buf, len, "%s waits in %s for node %d", who, where_wait_name[r->wait],
                        next);
    if (r->wait)
        return snprintf(buf, len, "%s waits in %s for any node (node %d and all others wait)",
                        who, where_wait_name[r->wait], next);
    char call[96];
    return snprintf(buf, len, "%s waits in call #%llu %s for node %d, which has not entered it",
                    who, (unsigned long long)r->call, coll_describe(&r->sig, call, sizeof call),
                    next);
}

void deadlock_describe(char *buf, size_t len, const where_rec *rec, const int *cycle, int k)
{
    size_t n = (size_t)snprintf(buf, len, "deadlock between nodes");
    for (int i = 0; i < k && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s %d", i ? (i == k - 1 ? " and" : ",") : "",
                              cycle[i]);
    for (int i = 0; i < k && n < len; i++) {
        n += (size_t)snprintf(buf + n, len - n, i ? "; " : ": ");
        if (n < len)
            n += (size_t)describe_wait(buf + n, len - n, rec, cycle[i], cycle[(i + 1) % k]);
    }
}
