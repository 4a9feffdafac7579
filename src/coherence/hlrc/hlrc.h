/* hlrc.h - the page states of the home-based protocol (see hlrc.c), shared
 * with the tests that check its transitions, and what hlrc.c and its
 * notices (hlrc_notices.c) share. */
#ifndef TSR_HLRC_H
#define TSR_HLRC_H

#include <stddef.h>
#include <stdint.h>

#include "memory/region.h"
#include "coherence/outbox.h"
#include "coherence/payload.h"
#include "transport/transport.h"
#include "transport/wait.h"

/* REP_WRITE, REP_HOME: written in a replicated section (hlrc_replicate.c). */
enum hlrc_state {
    INVALID = 0,
    READ,
    WRITE,
    HOME_READ,
    HOME_WRITE,
    HOME_STICKY,
    HOME_EXACT,
    REP_WRITE,
    REP_HOME
};

/* A page's state is read and written atomically: the comm thread protects
 * sticky home pages (hlrc_unstick) while the application thread changes
 * the states of others, and both read them. */
static inline uint8_t hlrc_state(uint32_t p)
{
    return __atomic_load_n(&region.meta[p].state, __ATOMIC_ACQUIRE);
}
static inline void hlrc_set_state(uint32_t p, uint8_t s)
{
    __atomic_store_n(&region.meta[p].state, s, __ATOMIC_RELEASE);
}

/* A run of pages one fetch brings, and the fetch's wait for its reply. */
typedef struct fetch_run {
    uint32_t first, n, stride; /* pages first + i * stride, i < n */
} fetch_run;
typedef struct fetch_wait {
    waiter w;
    fetch_run r; /* what the reply must bring */
} fetch_wait;
/* A page reply or push: n u32 versions (padded to 8 bytes), then n pages. */
#define REP_PAGES_AT(n) (((size_t)(n) * 4 + 7) & ~(size_t)7)

/* hlrc.c: a notice invalidates the cached copy if it is older; returns
 * whether it did. */
int hlrc_invalidate(uint32_t page, uint32_t version);

/* hlrc.c: home page p took a diff of this node's release, making version
 * v: the notice, and the copy kept at v if `keep` and the home went
 * straight to it from the copy's version. */
void hlrc_diff_acked(uint32_t p, uint32_t v, int keep);
/* hlrc.c: page p's home, read atomically (the comm thread's handlers read
 * it while a barrier's home migration changes it: hlrc_migrate.c); whether
 * this node is page p's home; whether this code keeps page p (its protocol
 * is hlrc or its variant, scope); another node began to copy home page p
 * (a fetch, or a diff whose writer keeps its copy). */
int hlrc_home_of(uint32_t p);
int hlrc_is_home(uint32_t p);
int hlrc_keeps(uint32_t p);
/* Whether this node answers requests and diffs for hlrc page p: its home,
 * or its home from the barrier it is leaving (hlrc_migrate.c). */
int hlrc_serves(uint32_t p);
/* Comm thread: home page p is about to be copied by message; a sticky
 * page is protected again (hlrc.c). */
void hlrc_protect_sticky(uint32_t p);
/* Home page p, if sticky, is protected and read-only again; whether it was
 * (hlrc.c; either thread). */
int hlrc_unstick(uint32_t p);
void hlrc_note_copied(uint32_t p);
/* A home page written in this interval, or counted as written: a new
 * version, announced if another node may hold the current one; whether
 * it was, and why: COPY_TAKEN, a copy was taken (or may have been);
 * COPY_FRESH, only the version 0 every node holds of a fresh allocation
 * (page_meta.copied holds the same values) (hlrc.c). */
enum { COPY_TAKEN = 1, COPY_FRESH = 2 };
int hlrc_new_home_version(uint32_t p);

/* hlrc_heap.c: fresh pages of this node's tsr_malloc arena. Sets up
 * [first, first+n), homed here, whose home state would be `state`; whether
 * page p is such a page, never versioned yet, that another node of this
 * host may have copied while it was writable; and the look at such a copy
 * by `source` that the release takes. */
void hlrc_map_local(uint32_t first, uint32_t n, uint8_t state);
int hlrc_fresh_local(uint32_t p);
void hlrc_fresh_copied(int source, uint32_t p);

/* hlrc_fetch.c: registers the fetch messages' handlers. */
void hlrc_fetch_init(void);
/* Fetches invalid page p and the pages its readahead predicts (a fault). */
void hlrc_page_fetch(uint32_t p);
/* Fetches invalid page p and up to max - 1 pages after it, stride apart,
 * as long as they are invalid with p's home (a range check); returns how
 * many. Pages after p are left READ, p to the caller. */
uint32_t hlrc_fetch_run(uint32_t p, uint32_t max, uint32_t stride);
/* Asks the home for fw->r without waiting: fw's waiter ends when the reply
 * is in (on_page_rep). fw and m are the caller's until then. */
void hlrc_fetch_ask(fetch_wait *fw, am_msg *m, int home);

/* hlrc_onesided.c: pages read one-sided from their home (transport/rma.h).
 * init exposes this node's pages, page table and marks (before the
 * transport starts); copy_onesided copies run r from its home, returning
 * 0 when it must be asked for instead (any thread, async-signal-safe);
 * onesided_home says whether home's pages can be read so. At the home:
 * take_mark clears page p's mark, returning whether a reader set it;
 * marked looks at it after a full fence (hlrc.c's release). */
void hlrc_onesided_init(void);
int hlrc_copy_onesided(const fetch_run *r, int home);
int hlrc_onesided_home(int home);
/* Whether other nodes may read this node's pages one-sided. */
int hlrc_onesided_readers(void);
int hlrc_take_mark(uint32_t p);
int hlrc_marked(uint32_t p);
/* Writes box's diffs (an outbox of this release's diffs for home) into
 * home's memory one-sided and gives each page's new version to
 * hlrc_diff_acked; -1 when they must be sent by message instead. The
 * application thread, at a release. */
int hlrc_put_diffs(int home, const outbox *box);

/* hlrc_prefetch.c: at a barrier (TSR_PREFETCH=notices), the pages its
 * notices invalidated here are noted as they are (barrier_apply), then
 * fetched in runs, every request out before the first wait, once every
 * departure given is applied (barrier_left). The application thread. */
void hlrc_prefetch_init(void);
void hlrc_prefetch_note(uint32_t page);
/* A fault on page p (hlrc.c): the program uses it. Async-signal-safe. */
void hlrc_prefetch_touched(uint32_t page);
void hlrc_prefetch(void);

/* hlrc_migrate.c: home migration at barriers. A diff's ack made this
 * node's copy of p the master copy at `version` (send_diffs); a barrier
 * frame's reports of pages of `proto`, and their moves once the departure's
 * notices are in (`moves`: n of page, version, node); pending: p was
 * reported here and the departure is not applied yet, so requests and
 * diffs for it may come (either thread); done: the departure is applied. */
#define MIGRATE_REPORT_WIRE 8
#define MIGRATE_MOVE_WIRE 12
struct notice_set;
struct tsr_protocol;
void hlrc_migrate_init(void);
int hlrc_migrating(void);
void hlrc_mastered(uint32_t p, uint32_t version);
void hlrc_migrate_report(const struct tsr_protocol *proto, pbuf *out);
void hlrc_migrate_apply(const struct tsr_protocol *proto, const uint32_t *moves, uint32_t n,
                        const struct notice_set *global);
int hlrc_home_pending(uint32_t p);
void hlrc_migrate_done(void);

/* hlrc_notices.c: records a notice this node made (a new version), with
 * the notices of its page's protocol (hlrc or scope); `home`: of a page
 * homed here, announced only when another node may hold its current
 * version, so not at each interval that writes it (hlrc.c). */
void hlrc_note(uint32_t page, uint32_t version, int home);
int hlrc_payload_check(payload_kind kind, int lock, const void *p, size_t len);
/* The synchronization hooks (tsr_protocol) of hlrc (release consistency)
 * and scope (scope consistency), pfx_lock_release and so on. */
#define HLRC_NOTICE_HOOKS(pfx)                                                          \
    void pfx##_lock_release(int lock, pbuf *out);                                       \
    int pfx##_lock_merge(int lock, int node, const void *p, size_t len);                \
    int pfx##_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out);   \
    int pfx##_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out); \
    int pfx##_lock_acquire(int lock, const void *p, size_t len);                        \
    void pfx##_barrier_arrival(pbuf *out);                                              \
    int pfx##_barrier_merge(int node, const void *p, size_t len);                       \
    void pfx##_barrier_departure(pbuf *out);                                            \
    int pfx##_barrier_apply(const void *p, size_t len);                                 \
    void pfx##_barrier_done(void);
HLRC_NOTICE_HOOKS(hlrc)
HLRC_NOTICE_HOOKS(scope)
void scope_lock_request(int lock, pbuf *out);
int scope_lock_request_check(const void *req, size_t len);
/* hlrc.c's flush has ended an interval: its notices are made. */
void hlrc_interval_done(void);
/* hlrc.c: the HOME_EXACT pages fault again during a replicated section
 * (pause), and are tracked again after it (resume). */
void hlrc_exact_pause(void);
void hlrc_exact_resume(void);

/* hlrc_replicate.c: replicated sections. A write fault that the section
 * takes (returns 1: the page is writable, no twin, not dirty); the bytes a
 * page request gets (the page as it was when the section began); a home
 * page left writable at a release (HOME_STICKY), to protect at entry. */
void hlrc_rep_init(void);
int hlrc_rep_write(uint32_t page);
void hlrc_copy_served(uint32_t page, void *dst);
void hlrc_rep_sticky(uint32_t page);
void hlrc_replicate_begin(void);
void hlrc_replicate_end(void);

/* hlrc_mcast.c: multicast of pages during replicated sections. */
void hlrc_mc_init(void);
void hlrc_mc_begin(void);
void hlrc_mc_end(void);
/* This node's section while multicast is on, else 0: then fetches bring
 * one page (each page is multicast once for all), and each request names
 * the section, so that the home multicasts for a node in it. */
uint32_t hlrc_mc_section(void);
/* A notice named home page p (copies elsewhere are stale): in the next
 * section the home offers p at its first read. */
void hlrc_mc_noticed(uint32_t p);
/* At a fault on a HOME_READ page: 1 if it was watched for the home's first
 * read in the section, now offered to every node (the page may be made
 * readable). Async-signal-safe. */
int hlrc_mc_offered(uint32_t p);
/* At an INVALID page's fault: 1 if another node's request brought it here
 * (it is now valid), else the fault fetches it. */
int hlrc_mc_take(uint32_t page);
/* At the home, after a reply: the multicast of the same page to the rest,
 * once per section. */
void hlrc_mc_push(int requester, const tsr_msg_hdr *h, const fetch_run *r, const void *rep,
                  size_t len);

#endif
