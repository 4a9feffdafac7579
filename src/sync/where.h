/*
 * where.h - where a node is, as the stall detector asks it (the record of
 * MSG_WHERE's entries, where_tree.h), and the deadlock finder that reads
 * the answers (deadlock.c).
 */
#ifndef TSR_WHERE_H
#define TSR_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "sync/collective.h"
#include "sync/stall.h"

/* Locks a record lists as held: enough for any cycle a program makes in
 * practice; a node holding more lists the first ones (a cycle through the
 * others goes unseen, never a false one). */
#define WHERE_HELD_MAX 32

typedef struct where_rec {
    uint64_t call;    /* the last collective call entered (its barrier epoch) */
    coll_sig sig;     /* its signature */
    int32_t inside;   /* still in it */
    int32_t lock;     /* the lock slot it waits for, or -1 */
    int32_t holds;    /* holds the lock it was asked about */
    int32_t answered; /* 0: silent */
    uint64_t entered; /* collective calls entered so far */
    uint64_t moves;   /* changes of the above and of the locks held: equal
                       * counts at two moments mean no change in between */
    int32_t nheld;    /* locks held (held[] lists at most WHERE_HELD_MAX) */
    int32_t held[WHERE_HELD_MAX];
    int32_t wait;     /* a WAIT_* for a message, or WAIT_NONE */
    int32_t from;     /* the node whose message ends it, or -1: any node */
    int32_t blocked;  /* its watched wait has not been ended yet */
    int32_t thread;   /* the thread whose wait is watched (local_wait.h's numbers) */
    /* Messages that can end a message wait: sent, and received and handled
     * (stall_sent, stall_got). Equal sums over all nodes: none on its way. */
    uint64_t sent, got;
} where_rec;

/* A cycle in the wait-for relation of rec[0..n) (answers from every node)
 * that node `from` reaches: its nodes in order, each waiting for the next
 * and the last for the first, lowest node first, into cycle[] (n entries).
 * Returns its length, or 0. */
int deadlock_find(const where_rec *rec, int n, int from, int *cycle);
/* The cycle's nodes, what each waits in and for whom, into buf. */
void deadlock_describe(char *buf, size_t len, const where_rec *rec, const int *cycle, int k);

#endif
