/* Makes one call with the argument named by argv[1]: a size, attribute
 * field, lock id or annotation that Tessera must refuse with a message
 * naming it (tests/sh/bad_input_api.sh), or, for "huge_block", a cyclic
 * allocation whose block_pages does not fit in 32 bits, which must work. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tessera_munin.h"

static void *munin_alloc(tsr_annotation annot, unsigned params)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = TSR_PROTO_MUNIN;
    a.annot = annot;
    a.munin_params = params;
    return tsr_alloc_attr(4096, &a);
}

static void *alloc_with(tsr_home_t home, int home_node, tsr_proto_t proto)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.home = home;
    a.home_node = home_node;
    a.proto = proto;
    return tsr_alloc_attr(4096, &a);
}

/* Every node adds its id + 1 to each of 8 pages homed with block_pages 2^32
 * (all at node 0); every node checks the sums. */
static int huge_block(void)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.home = TSR_HOME_CYCLIC;
    a.block_pages = (size_t)1 << 32;
    long *v = tsr_alloc_attr(8 * 4096, &a);
    tsr_lock(0);
    for (int p = 0; p < 8; p++)
        v[p * 512] += tsr_node() + 1;
    tsr_unlock(0);
    tsr_barrier();
    long want = (long)tsr_nodes() * (tsr_nodes() + 1) / 2;
    int bad = 0;
    for (int p = 0; p < 8; p++)
        bad += v[p * 512] != want;
    printf("node %d: huge_block %s\n", tsr_node(), bad ? "FAIL" : "PASS");
    return bad != 0;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *c = argc > 1 ? argv[1] : "";
    int nodes = tsr_nodes();
    if (!strcmp(c, "huge_block")) {
        int rc = huge_block();
        tsr_finalize();
        return rc;
    }
    if (!strcmp(c, "size_max"))
        tsr_alloc(SIZE_MAX);
    else if (!strcmp(c, "size_rounds_over"))
        tsr_alloc(SIZE_MAX - 100);
    else if (!strcmp(c, "size_32T"))
        tsr_alloc((size_t)1 << 45);
    else if (!strcmp(c, "size_2G"))
        tsr_alloc((size_t)2 << 30);
    else if (!strcmp(c, "attr_null"))
        tsr_alloc_attr(64, NULL);
    else if (!strcmp(c, "home"))
        alloc_with((tsr_home_t)7, 0, TSR_PROTO_HLRC);
    else if (!strcmp(c, "home_node"))
        alloc_with(TSR_HOME_NODE, nodes, TSR_PROTO_HLRC);
    else if (!strcmp(c, "home_node_negative"))
        alloc_with(TSR_HOME_NODE, -1, TSR_PROTO_HLRC);
    else if (!strcmp(c, "proto"))
        alloc_with(TSR_HOME_BLOCK, 0, (tsr_proto_t)9);
    else if (!strcmp(c, "annot"))
        munin_alloc((tsr_annotation)99, 0);
    else if (!strcmp(c, "munin_params"))
        munin_alloc(TSR_ANNOT_PARAMS, 0x100);
    else if (!strcmp(c, "munin_params_of"))
        tsr_munin_params((tsr_annotation)99);
    else if (!strcmp(c, "lock"))
        tsr_lock(-1);
    else if (!strcmp(c, "unlock"))
        tsr_unlock(TSR_MAX_LOCKS);
    else if (!strcmp(c, "hint_lock"))
        tsr_hint_lock_data(TSR_MAX_LOCKS, munin_alloc(TSR_MIGRATORY, 0));
    else if (!strcmp(c, "range_wraps"))
        tsr_range_read((void *)(UINTPTR_MAX - 4095), 8192);
    else if (!strcmp(c, "range_step_wraps"))
        tsr_range_write_step((void *)4096, 8, SIZE_MAX / 2, 4);
    else if (!strcmp(c, "change_annotation"))
        tsr_hint_change_annotation(munin_alloc(TSR_WRITE_SHARED, 0), (tsr_annotation)99);
    else
        fprintf(stderr, "bad_args: unknown case '%s'\n", c);
    /* Reached only if the call was accepted: the test then fails. */
    printf("node %d: '%s' was accepted\n", tsr_node(), c);
    tsr_finalize();
    return 2;
}
