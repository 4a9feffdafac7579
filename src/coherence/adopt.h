/*
 * adopt.h - pages that another node allocated alone (tsr_malloc), learned
 * at this node's first fault on them.
 */
#ifndef TSR_ADOPT_H
#define TSR_ADOPT_H

#include <stdint.h>

/* Registers the message handlers; once, at tsr_init. */
void adopt_init(void);
/* A fault at addr on `page`, which this node has no metadata for. Returns
 * -1 if the page is in no other node's arena (not Tessera's), 0 once the
 * page's home and protocol are set; stops the job naming addr if the
 * arena's owner has not allocated it. Async-signal-safe. */
int adopt_fault(const void *addr, uint32_t page);

#endif
