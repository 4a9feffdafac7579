/*
 * trace_json.h - the job's timeline in the Chrome trace event format
 * (docs/TRACE.md): a process per node, a track per thread, flows from
 * each message's send to its receipt.
 */
#ifndef TSR_LAUNCHER_TRACE_JSON_H
#define TSR_LAUNCHER_TRACE_JSON_H

#include "launcher/trace_part.h"

/* Writes the merged timeline of the n parts to `file`; returns 0, or -1
 * having said why on stderr. */
int trace_json_write(const char *file, const trace_part *parts, int n);

#endif
