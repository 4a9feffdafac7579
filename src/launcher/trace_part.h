/*
 * trace_part.h - reading the nodes' trace parts (stats/trace.h) once they
 * have exited: tsrun's timeline (trace_json.c) and profile (profile.c).
 * A part is read-only here, and trusted no further than its sizes: a node
 * killed mid-run leaves a part whose counts are those of its last whole
 * event, and anything out of bounds is cut.
 */
#ifndef TSR_LAUNCHER_TRACE_PART_H
#define TSR_LAUNCHER_TRACE_PART_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats/trace.h"

typedef struct trace_part {
    int node;
    const trace_head *head; /* NULL: the part is missing or unreadable */
    const trace_slot *slots;
    const char *map;
    size_t size;
    char why[160]; /* why head is NULL */
} trace_part;

/* The parts of an n-node job traced to `file` (FILE.partN); a part that
 * cannot be read has head NULL and says why. Exits if out of memory. */
trace_part *trace_parts_open(const char *file, int n);
void trace_parts_close(trace_part *p, int n);
/* Removes the part files (after a merge, or a profile-only run). */
void trace_parts_remove(const char *file, int n);

/* Slot s's events (n of them), or NULL if the slot was never claimed. */
const trace_event *trace_part_events(const trace_part *p, int s, uint64_t *n);
/* qsort's order of three keys, the first deciding: -1, 0 or 1. */
static inline int trace_order3(uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2, uint64_t a3,
                               uint64_t b3)
{
    if (a1 != b1)
        return a1 < b1 ? -1 : 1;
    if (a2 != b2)
        return a2 < b2 ? -1 : 1;
    return (a3 > b3) - (a3 < b3);
}

/* qsort and bsearch, whose arrays may be NULL when empty (which the C
 * library's may not be). */
static inline void trace_sort(void *a, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n)
        qsort(a, n, size, cmp);
}
static inline void *trace_find(const void *key, const void *a, size_t n, size_t size,
                               int (*cmp)(const void *, const void *))
{
    return n ? bsearch(key, a, n, size, cmp) : NULL;
}

/* An event's time on node 0's clock. */
static inline uint64_t trace_part_time(const trace_part *p, uint64_t ts)
{
    return ts + (uint64_t)p->head->offset_ns;
}

#endif
