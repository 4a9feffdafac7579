/* counter.h - a named counter of this node (tsr_counter_get), for the
 * multi-process tests that count what the runtime did. A test reads a
 * counter it expects to exist: a name the runtime does not know stops the
 * test, naming it. */
#ifndef TEST_COUNTER_H
#define TEST_COUNTER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"

static inline uint64_t counter(const char *name)
{
    uint64_t v = 0;
    if (tsr_counter_get(name, &v)) {
        printf("node %d: no counter %s\n", tsr_node(), name);
        exit(1);
    }
    return v;
}

#endif
