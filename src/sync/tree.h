/*
 * tree.h - the tree a barrier's departure travels down (barrier.c): node
 * 0 heads all nodes; a node heading the nodes [lo, hi) hands [lo + 1, hi)
 * to at most TREE_DEGREE children, each heading a contiguous part of it.
 * A job of TREE_DEGREE + 1 nodes or fewer is one level: node 0 tells each
 * node itself, as before; 1,024 nodes take four levels, and no node sends
 * more than TREE_DEGREE departures where node 0 sent N - 1.
 */
#ifndef TSR_TREE_H
#define TSR_TREE_H

#define TREE_DEGREE 8

/* The children of the node heading [lo, hi): stores the first node and
 * the end of each child's part in child[] and child_hi[] (TREE_DEGREE
 * each), and returns how many there are. */
int tree_children(int lo, int hi, int *child, int *child_hi);
/* Where `node` sits in the tree of `nodes` nodes: its parent (node 0's is
 * itself) and the end of the part it heads. */
void tree_place(int node, int nodes, int *parent, int *hi);

#endif
