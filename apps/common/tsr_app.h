/*
 * tsr_app.h - what the Tessera versions of the apps share: memory homed on
 * the node that computes on it, so its writes never leave the node, and the
 * --munin option.
 *
 * An app that accepts --munin (its first argument) keeps its shared data
 * with Munin's protocols under the annotations of the Munin paper's
 * Section 4, rather than with the default home-based protocol, and reports
 * impl=tessera-munin.
 */
#ifndef TSR_TSR_APP_H
#define TSR_TSR_APP_H

#include <string.h>

#include "app.h"
#include "tessera_munin.h"

static int app_munin; /* --munin was given */

/* Takes --munin off the front of the arguments; returns the impl name for
 * the RESULT line. */
static inline const char *app_impl(int *argc, char ***argv)
{
    if (*argc < 2 || strcmp((*argv)[1], "--munin"))
        return "tessera";
    app_munin = 1;
    (*argv)[1] = (*argv)[0];
    (*argv)++;
    (*argc)--;
    return "tessera-munin";
}

/* Collective: `bytes` of shared memory whose pages are all homed (with
 * --munin: owned) on `node`; with --munin kept under annotation `annot`. */
static inline void *app_alloc_home(size_t bytes, int node, tsr_annotation annot)
{
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = node;
    if (app_munin) {
        attr.proto = TSR_PROTO_MUNIN;
        attr.annot = annot;
    }
    return tsr_alloc_attr(bytes, &attr);
}

/* Collective: rows [lo, hi) of `width` doubles in one allocation homed on
 * `node`, and row[lo .. hi) pointing at them. Every node makes the same
 * calls in the same order, so every node's row table is the same. */
static inline void app_alloc_rows(double **row, long lo, long hi, long width, int node,
                                  tsr_annotation annot)
{
    double *band = app_alloc_home((size_t)(hi - lo) * (size_t)width * sizeof *band, node, annot);
    for (long i = lo; i < hi; i++)
        row[i] = band + (i - lo) * width;
}

#endif
