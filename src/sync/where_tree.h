/*
 * where_tree.h - the stall detector's questions (stall.c) passed over the
 * barrier tree (tree.h) as an echo: the asking node sends its question to
 * its tree neighbours (parent and children), each node passes it on to its
 * other neighbours and, once they all answered, sends back to the one it
 * came from its own record and theirs, in one batch. Every tree edge
 * carries one question and one batch, so a round costs 2(N - 1) messages
 * as asking every node did, but no node sends or reads more than 2 x 9,
 * and no link opens that the barriers do not open anyway: asking every
 * node gave each asker N - 1 connections on demand. A node whose comm
 * thread does not answer holds up its side of the tree: the asker then
 * counts every node behind it as silent, which closes no cycle.
 */
#ifndef TSR_WHERE_TREE_H
#define TSR_WHERE_TREE_H

#include <stdint.h>

#include "sync/where.h"

/* A batch's entry: the node whose record it is, then the record. */
typedef struct where_entry {
    int32_t node, pad;
    where_rec rec;
} where_entry;

/* This node's record, `lock` being the lock asked about (or -1). */
typedef void (*where_own_fn)(where_rec *r, int lock);
/* A batch of n entries for this node's own question `gen`, checked: each
 * names another node of the job, with a well-formed record. */
typedef void (*where_take_fn)(uint64_t gen, const where_entry *e, uint32_t n);

void where_tree_init(where_own_fn own, where_take_fn take);
/* How many tree neighbours this node has: batches answering its question. */
int where_tree_neighbours(void);
/* The tree's levels below node 0 (at least 1): a question and its answers
 * pass at most twice as many edges each way. */
int where_tree_levels(void);
/* Sends this node's question `gen` about `lock` to its tree neighbours. */
void where_tree_ask(uint64_t gen, int lock);

#endif
