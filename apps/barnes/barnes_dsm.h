/*
 * barnes_dsm.h - the Barnes-Hut system in Tessera's shared memory, for the
 * app (barnes.c) and the OpenMP/NOW benchmark (bench/ompnow_barnes.c).
 */
#ifndef BARNES_DSM_H
#define BARNES_DSM_H

#include "barnes.h"
#include "tessera.h"

/* Positions and velocities spread over the nodes; the tree homed at node
 * 0, where the sequential section builds it. Collective. */
static barnes_sys barnes_sys_shared(long n)
{
    tsr_attr at_builder = TSR_ATTR_DEFAULT;
    at_builder.home = TSR_HOME_NODE;
    at_builder.home_node = 0;
    return (barnes_sys){n, tsr_alloc((size_t)n * 3 * sizeof(double)),
                        tsr_alloc((size_t)n * 3 * sizeof(double)),
                        tsr_alloc_attr((size_t)barnes_capacity(n) * sizeof(bh_node), &at_builder),
                        barnes_capacity(n)};
}

#endif
