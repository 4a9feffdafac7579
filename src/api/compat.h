/*
 * compat.h - what the TreadMarks and JIAJIA interfaces (tmk.c, tmk_cond.c,
 * jia.c, jia_msg.c) share: their checks name the call the program made, not
 * Tessera's.
 */
#ifndef TSR_COMPAT_H
#define TSR_COMPAT_H

#include <stdarg.h>

#include "tessera.h"
#include "transport/transport.h"
#include "util/log.h"

/* A lock id below `max` (the interface's own limit, at most TSR_MAX_LOCKS)
 * as tsr_lock takes it; stops the job naming `call` if out of range. */
static inline int compat_lock_id(const char *call, long id, int max)
{
    if (id < 0 || id >= max)
        log_die("%s(%ld): lock id out of range [0, %d)", call, id, max);
    return (int)id;
}

/* The handler of a reply that only ends a wait: counts one reply on the
 * waiter its request was opened with (tmk.c). */
void compat_reply_done(int src, const tsr_msg_hdr *h, void *payload);

/* Stops the job with the program's message (printf-style, one line),
 * naming the call that stopped it: Tmk_errexit's and jia_error's end. */
void compat_die(const char *call, const char *format, va_list ap)
    __attribute__((format(printf, 2, 0), noreturn));

/* Registers the messages of TreadMarks' condition variables (tmk_cond.c). */
void tmk_cond_init(void);

/* Registers the messages of JIAJIA's message passing and jia_wait (jia_msg.c). */
void jia_msg_init(void);

#endif
