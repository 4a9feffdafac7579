/* munin_test.h - helpers shared by the munin_* multi-process tests. */
#ifndef MUNIN_TEST_H
#define MUNIN_TEST_H

#include <stdio.h>

#include "node_check.h"
#include "tessera_munin.h"

/* Munin memory with the given annotation, pages homed in blocks. */
static inline void *munin_alloc(size_t bytes, tsr_annotation annot)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = annot;
    return tsr_alloc_attr(bytes, &a);
}

/* The same, every page managed by `node`. */
static inline void *munin_alloc_at(size_t bytes, tsr_annotation annot, int node)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = annot;
    a.home = TSR_HOME_NODE;
    a.home_node = node;
    return tsr_alloc_attr(bytes, &a);
}

/* The named counter `name` (tsr_counter_get); a missing one fails the test. */
static inline uint64_t munin_counter(const char *name)
{
    uint64_t value = 0;
    CHECK(tsr_counter_get(name, &value) == 0, "no counter named %s", name);
    return value;
}

/* Prints the verdict, leaves, and returns main's exit status. */
static inline int munin_finish(const char *name)
{
    int status = check_verdict(tsr_node(), name);
    tsr_finalize();
    return status;
}

#endif
