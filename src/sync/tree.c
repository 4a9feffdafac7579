#include "sync/tree.h"

/* Equal parts, the later ones one node longer when they cannot all be. */
int tree_children(int lo, int hi, int *child, int *child_hi)
{
    int m = hi - lo - 1, k = m < TREE_DEGREE ? m : TREE_DEGREE;
    for (int c = 0; c < k; c++) {
        child[c] = lo + 1 + (int)((long)c * m / k);
        child_hi[c] = lo + 1 + (int)((long)(c + 1) * m / k);
    }
    return k > 0 ? k : 0;
}

/* Down from node 0, into the part that holds `node`: O(log N) steps. */
void tree_place(int node, int nodes, int *parent, int *hi)
{
    int lo = 0, end = nodes, up = 0;
    while (lo != node) {
        int child[TREE_DEGREE], child_hi[TREE_DEGREE];
        int k = tree_children(lo, end, child, child_hi), c = k - 1;
        while (child[c] > node)
            c--;
        up = lo;
        lo = child[c];
        end = child_hi[c];
    }
    *parent = up;
    *hi = end;
}
