/*
 * compat.h - what the TreadMarks and JIAJIA interfaces (tmk.c, jia.c)
 * share: their checks name the call the program made, not Tessera's.
 */
#ifndef TSR_COMPAT_H
#define TSR_COMPAT_H

#include "tessera.h"
#include "util/log.h"

/* A lock id as tsr_lock takes it; stops the job naming `call` if out of range. */
static inline int compat_lock_id(const char *call, long id)
{
    if (id < 0 || id >= TSR_MAX_LOCKS)
        log_die("%s(%ld): lock id out of range [0, %d)", call, id, TSR_MAX_LOCKS);
    return (int)id;
}

#endif
