/*
 * hlrc_migrate.c - home migration at barriers, after JIAJIA: a page that
 * one node keeps diffing to a home that does not write it moves its home
 * to that node, whose writes then cost no diff at all.
 *
 * The homes an allocation is given are a guess made before anything ran.
 * When the guess is wrong for a page written by one other node (BARNES'
 * `Local[ProcessId]`, a global homed at node 0 and written by process
 * ProcessId between every lock and unlock), each of the writer's releases
 * costs a twin, a diff and its acknowledgement, millions in a run.
 *
 * Who may become home, decided the same way on every node from what every
 * node receives in the barrier's departure:
 *  - a writer records each page whose diff acknowledgement showed that its
 *    copy became the master copy (the home went straight from the copied
 *    version to the diff's: send_diffs in hlrc.c), with that version;
 *  - at its arrival it reports those pages whose copy is still that
 *    version (page, version); the root passes every report on, naming
 *    the reporter (page, version, node);
 *  - a report moves the page's home to the reporter when its version is
 *    the page's newest in the barrier's notices: no diff and no write by
 *    the home came after the writer's last diff (a home that writes a
 *    page after another node copied or diffed it gives it a new version,
 *    hlrc.c), so the reporter's copy is the master copy.
 * A page written by two nodes in turn moves at most once per barrier.
 *
 * The departure reaches the nodes in no set order: a node that has moved
 * the home may ask the new home for the page, or send it a diff, before
 * the new home has read the departure. The reporter serves such a request
 * from its copy, the master copy, while its report is pending
 * (hlrc_home_pending): a request can name it only if the page moved.
 *
 * Pages of the tsr_malloc arenas stay at their owner: a node that has
 * not used such a page yet knows nothing of it, and adopts it later with
 * its home at the owner (coherence/adopt.c), so it would miss the move.
 *
 * Off (TSR_HOME_MIGRATE=off), with several application threads per node
 * (the others may fault during a barrier), where writes may be tracked
 * exactly (TSR_DETECT other than segv: a tracked home page is part of a
 * kernel-tracked run, which a move would break), and where diffs may be
 * written one-sided (TSR_DIFF_PUT=onesided over ucx): the writer checks
 * the home's page table after its puts, where a new home that has not
 * applied the departure yet still names the old one (hlrc_onesided.c).
 */
#include <stdatomic.h>

#include "coherence/hlrc/hlrc.h"
#include "coherence/notice.h"
#include "coherence/protocol.h"
#include "detect/detect.h"
#include "memory/arena.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(homes_moved, "pages whose home moved to this node at a barrier (home migration)");

/* Pages this node made the master copy of by a diff since the last
 * barrier, with that version (application thread). */
static notice_set mastered;
/* Pages reported at this barrier's arrival, until its departure is
 * applied: read by the comm thread. */
static _Atomic uint8_t *pending;
static int enabled;

void hlrc_migrate_init(void)
{
    enabled = cfg.home_migrate && cfg.threads <= 1 && cfg.detect == DETECT_SEGV &&
              cfg.nodes > 1 && !(cfg.diff_put && cfg.transport == TRANSPORT_UCX);
    if (enabled)
        pending = region_page_table(sizeof *pending, "the pending home flags");
    stats_register(&homes_moved);
}

int hlrc_migrating(void) { return enabled; }

void hlrc_mastered(uint32_t p, uint32_t version)
{
    if (enabled)
        notice_add(&mastered, p, version);
}

int hlrc_home_pending(uint32_t p) { return enabled && atomic_load(&pending[p]); }

/* The reports of a barrier frame of pages of `proto`: u32 count, then
 * (page, version) each. */
void hlrc_migrate_report(const tsr_protocol *proto, pbuf *out)
{
    uint32_t n = 0, *count = pbuf_room(out, 4);
    size_t at = (size_t)((char *)count - out->p);
    for (uint32_t i = 0; i < mastered.n; i++) {
        uint32_t p = mastered.e[i].page, v = mastered.e[i].version;
        if (coh_protocol_of(p) != proto || hlrc_is_home(p) || hlrc_state(p) != READ ||
            atomic_load(&region.meta[p].version) != v || arena_owner(p) >= 0)
            continue;
        atomic_store(&pending[p], 1);
        uint32_t *e = pbuf_room(out, MIGRATE_REPORT_WIRE);
        e[0] = p;
        e[1] = v;
        n++;
    }
    /* pbuf_room may have moved the buffer. */
    *(uint32_t *)(out->p + at) = n;
}

/* Page p's home becomes node k. At k the page is home and read-only, so
 * that its next write is seen; every other node may hold this version
 * (`copied`). At the old home it is a valid cached copy. */
static void move_home(uint32_t p, int k, uint32_t version)
{
    page_meta *m = &region.meta[p];
    int was_home = hlrc_is_home(p);
    if (k == cfg.node) {
        if (hlrc_state(p) != READ || atomic_load(&m->version) < version)
            log_die_status(1, "home migration: page %u moves here at version %u, but this "
                              "node's copy is not it (state %u, version %u)",
                           p, version, hlrc_state(p), atomic_load(&m->version));
        atomic_store(&m->copied, COPY_TAKEN);
        hlrc_set_state(p, HOME_READ);
        __atomic_store_n(&m->home, (uint16_t)k, __ATOMIC_RELEASE);
        atomic_store(&pending[p], 0);
        COUNTER_ADD(homes_moved, 1);
        return;
    }
    __atomic_store_n(&m->home, (uint16_t)k, __ATOMIC_RELEASE);
    if (was_home) {
        hlrc_set_state(p, READ);
        detect_set_access(p, 1, ACCESS_READ);
    }
}

void hlrc_migrate_apply(const tsr_protocol *proto, const uint32_t *moves, uint32_t n,
                        const notice_set *global)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = moves[3 * i], v = moves[3 * i + 1], k = moves[3 * i + 2];
        if (coh_protocol_of(p) == proto && region.meta[p].home != k &&
            notice_get(global, p) == v)
            move_home(p, (int)k, v);
    }
}

/* Every protocol has applied the departure: reports not taken are over. */
void hlrc_migrate_done(void)
{
    if (!enabled)
        return;
    for (uint32_t i = 0; i < mastered.n; i++)
        atomic_store(&pending[mastered.e[i].page], 0);
    notice_clear(&mastered);
}
