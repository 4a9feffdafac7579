/* node_check.h - the checks of a multi-process test: CHECK counts and
 * prints a failed condition, naming this node, without stopping the test,
 * so that one run shows every failure; check_verdict prints a node's
 * verdict and gives main its status. CHECK calls tsr_node, so it comes
 * between tsr_init and tsr_finalize; check_verdict is told the node, so a
 * test may also check after tsr_finalize. */
#ifndef TEST_NODE_CHECK_H
#define TEST_NODE_CHECK_H

#include <stdio.h>

#include "tessera.h"

static int check_failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("node %d: check failed: ", tsr_node());                \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
            check_failures++;                                             \
        }                                                                 \
    } while (0)

/* "node N: name: K failed checks PASS|FAIL"; 1 if any check failed. */
static inline int check_verdict(int node, const char *name)
{
    printf("node %d: %s: %d failed checks %s\n", node, name, check_failures,
           check_failures ? "FAIL" : "PASS");
    return check_failures != 0;
}

#endif
