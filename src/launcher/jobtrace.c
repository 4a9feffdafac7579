/*
 * jobtrace.c - tsrun's end of the timeline and the profile (jobtrace.h).
 */
#include "launcher/jobtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/profile.h"
#include "launcher/trace_json.h"
#include "launcher/trace_part.h"

static char own_file[64]; /* the parts' name when only a profile was asked for */

static const char *trace_file(void)
{
    const char *t = getenv("TSR_TRACE");
    return t && *t ? t : NULL;
}

static int profile_wanted(void)
{
    const char *p = getenv("TSR_PROFILE"), *j = getenv("TSR_PROFILE_JSON");
    return (p && *p && strcmp(p, "0")) || (j && *j);
}

void jobtrace_setup(void)
{
    if (!profile_wanted() || trace_file())
        return;
    const char *dir = getenv("TMPDIR");
    snprintf(own_file, sizeof own_file, "%.40s/tsrun-%d.trace", dir && *dir ? dir : "/tmp",
             (int)getpid());
    if (setenv("TSR_TRACE", own_file, 1)) {
        fprintf(stderr, "tsrun: cannot set TSR_TRACE for the profile\n");
        exit(2);
    }
}

int jobtrace_finish(int nodes)
{
    const char *file = trace_file();
    if (!file)
        return 0;
    trace_part *parts = trace_parts_open(file, nodes);
    int missing = 0;
    for (int i = 0; i < nodes; i++)
        if (!parts[i].head) {
            fprintf(stderr, "tsrun: the trace has no part from node %d (%s)\n", i, parts[i].why);
            missing++;
        }
    int err = missing == nodes ? -1 : 0;
    if (!err && !own_file[0])
        err = trace_json_write(file, parts, nodes);
    if (!err && profile_wanted())
        err = profile_report(parts, nodes, getenv("TSR_PROFILE_JSON"));
    trace_parts_close(parts, nodes);
    if (!err)
        trace_parts_remove(file, nodes);
    return err;
}
