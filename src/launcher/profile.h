/*
 * profile.h - the sharing profile (TSR_PROFILE, docs/TRACE.md): from the
 * nodes' trace parts, the pages and allocations that cost the most, the
 * locks with the most wait and who held them, the barriers with the most
 * wait and who arrived last.
 */
#ifndef TSR_LAUNCHER_PROFILE_H
#define TSR_LAUNCHER_PROFILE_H

#include <stdio.h>

#include "launcher/trace_part.h"

/* Prints the table to stderr and, if json is set, writes the JSON there.
 * Returns 0, or -1 having said why. */
int profile_report(const trace_part *parts, int n, const char *json);

/* The synchronization half (profile_sync.c): gathers the locks' and
 * barriers' events, prints their tables, and writes their JSON members. */
typedef struct profile_sync profile_sync;
profile_sync *profile_sync_gather(const trace_part *parts, int n);
void profile_sync_print(const profile_sync *s, FILE *f);
void profile_sync_json(const profile_sync *s, FILE *f);
void profile_sync_free(profile_sync *s);

/* A growable array of `size`-byte items; exits if out of memory. */
void *profile_push(void *arr, size_t *n, size_t *cap, size_t size);

#endif
