/*
 * adopt.h - pages that another node allocated alone (tsr_malloc), learned
 * at this node's first fault on them, or (TreadMarks' protocol) at the
 * first write notice that names them.
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
/* A write notice of `proto` names `page`, which this node has no metadata
 * for: adopts it alone, for `proto`, with the fresh page's state (0), if it
 * lies in another node's arena. Returns 0 if adopted, -1 if not (the
 * notice names no page a node could have allocated: it is ignored). */
int adopt_noticed(uint32_t page, uint8_t proto);

#endif
