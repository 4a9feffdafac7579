/* hlrc.h - the page states of the home-based protocol (see hlrc.c), shared
 * with the tests that check its transitions, and what hlrc.c and its
 * notices (hlrc_notices.c) share. */
#ifndef TSR_HLRC_H
#define TSR_HLRC_H

#include <stddef.h>
#include <stdint.h>

#include "coherence/payload.h"

enum hlrc_state { INVALID = 0, READ, WRITE, HOME_READ, HOME_WRITE, HOME_STICKY, HOME_EXACT };

/* hlrc.c: a notice invalidates the cached copy if it is older. */
void hlrc_invalidate(uint32_t page, uint32_t version);

/* hlrc.c: whether this node is page p's home; another node began to copy
 * home page p (a fetch, or a diff whose writer keeps its copy). */
int hlrc_is_home(uint32_t p);
void hlrc_note_copied(uint32_t p);

/* hlrc_fetch.c: registers the fetch messages' handlers. */
void hlrc_fetch_init(void);
/* Fetches invalid page p and the pages its readahead predicts (a fault). */
void hlrc_page_fetch(uint32_t p);
/* Fetches invalid page p and up to max - 1 pages after it, stride apart,
 * as long as they are invalid with p's home (a range check); returns how
 * many. Pages after p are left READ, p to the caller. */
uint32_t hlrc_fetch_run(uint32_t p, uint32_t max, uint32_t stride);

/* hlrc_notices.c: records a notice this node made (a new version). */
void hlrc_note(uint32_t page, uint32_t version);
/* The synchronization hooks (tsr_protocol). */
void hlrc_lock_release(int lock, pbuf *out);
int hlrc_payload_check(payload_kind kind, int lock, const void *p, size_t len);
int hlrc_lock_merge(int lock, int node, const void *p, size_t len);
int hlrc_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out);
int hlrc_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out);
int hlrc_lock_acquire(int lock, const void *p, size_t len);
void hlrc_barrier_arrival(pbuf *out);
int hlrc_barrier_merge(int node, const void *p, size_t len);
void hlrc_barrier_departure(pbuf *out);
int hlrc_barrier_apply(const void *p, size_t len);
void hlrc_barrier_done(void);

#endif
