/*
 * tsr_app.h - what the Tessera versions of the apps share: memory homed on
 * the node that computes on it, so its writes never leave the node.
 */
#ifndef TSR_TSR_APP_H
#define TSR_TSR_APP_H

#include "app.h"
#include "tessera.h"

/* Collective: `bytes` of shared memory whose pages are all homed on `node`. */
static inline void *app_alloc_home(size_t bytes, int node)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = node;
    return tsr_alloc_attr(bytes, &attr);
}

/* Collective: rows [lo, hi) of `width` doubles in one allocation homed on
 * `node`, and row[lo .. hi) pointing at them. Every node makes the same
 * calls in the same order, so every node's row table is the same. */
static inline void app_alloc_rows(double **row, long lo, long hi, long width, int node)
{
    double *band = app_alloc_home((size_t)(hi - lo) * (size_t)width * sizeof *band, node);
    for (long i = lo; i < hi; i++)
        row[i] = band + (i - lo) * width;
}

#endif
