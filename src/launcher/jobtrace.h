/*
 * jobtrace.h - tsrun's end of the job timeline and the sharing profile
 * (docs/TRACE.md): the parts the nodes write are merged into TSR_TRACE's
 * file, and the profile (TSR_PROFILE) is computed from them, once every
 * node has exited, whichever way.
 */
#ifndef TSR_LAUNCHER_JOBTRACE_H
#define TSR_LAUNCHER_JOBTRACE_H

/* Before the nodes start: a profile without a trace still needs the
 * nodes' parts, so they are written beside a file of tsrun's own. */
void jobtrace_setup(void);
/* After every node has exited: merges, profiles, removes the parts.
 * Returns 0, or -1 having said why on stderr. */
int jobtrace_finish(int nodes);

#endif
