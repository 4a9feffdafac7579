/*
 * hlrc_heap.c - the pages a node allocates alone (tsr_malloc) under
 * cache-only detection: writable at their home from the start, and copied
 * by the nodes of its host even so (docs/ARCHITECTURE.md, "The heap of one
 * node: sticky from the start").
 */
#include <stdatomic.h>

#include "coherence/hlrc/hlrc.h"
#include "detect/detect.h"
#include "memory/arena.h"
#include "memory/peers.h"
#include "memory/region.h"
#include "util/config.h"

/* Pages of this node's tsr_malloc arena: no other node knows them until it
 * adopts them, and adopting fetches them (adopt.c), so no copy exists
 * elsewhere. Under cache-only detection they start as a home page that
 * only its home has written (HOME_STICKY): the home's writes cost no fault
 * and no notice until another node copies the page, which protects it
 * (hlrc_protect_sticky), as the heap of a program written against the API
 * is private memory. Otherwise the first write faulted, and the release
 * after it announced a version nobody held. */
void hlrc_map_local(uint32_t first, uint32_t n, uint8_t state)
{
    int exact = state == HOME_EXACT;
    for (uint32_t k = first; k < first + n; k++) {
        atomic_store(&region.meta[k].copied, 0);
        hlrc_set_state(k, exact ? HOME_EXACT : HOME_STICKY);
        if (!exact)
            hlrc_rep_sticky(k); /* protected at a replicated section's start */
    }
    if (!exact)
        detect_set_access(first, n, ACCESS_WRITE);
}

/* Whether the copier's bytes equal the home's. The comm thread may be
 * applying another node's diff to the home's page meanwhile (on_diff):
 * the comparison then sees some of it or none, and either answer is safe,
 * since that diff marks the page copied and gives it a version of its own,
 * which this release announces whatever the comparison said. So the
 * bytes are compared word by word, out of ThreadSanitizer's sight (its
 * memcmp interceptor would report the overlap: mp/home_migrate hosts). */
__attribute__((no_sanitize("thread"))) static int same_page(const char *copy, const char *home)
{
    const uint64_t *a = (const uint64_t *)copy, *b = (const uint64_t *)home;
    for (size_t i = 0; i < PAGE_SIZE / sizeof *a; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* A direct copy of a fresh page of this node's arena, at version 0: one
 * that copiers take even while it is sticky (hlrc_fetch.c: sticky_at_home),
 * so the home may have written it, unseen, after the copy. The page is
 * protected first, so that the home's later writes fault and are
 * versioned; then the copier's bytes are compared with the home's. Equal,
 * the copy holds every write the home made (a copy still under way takes
 * the rest from the protected page) and needs no new version; different,
 * the home may have written after the copy (or the copier wrote its own),
 * and this release announces one, which invalidates the copy. Nautilus'
 * guess, a new version at every copy, made LU 512 at 2 nodes fetch 625
 * pages instead of 557. A page written again since is on the dirty list,
 * and this release versions it. */
void hlrc_fresh_copied(int source, uint32_t p)
{
    hlrc_unstick(p);
    atomic_store(&region.meta[p].copied, COPY_TAKEN);
    if (hlrc_state(p) == HOME_WRITE)
        return;
    const char *copy = peer_page(source, p);
    if (!copy || !same_page(copy, page_rt(p)))
        hlrc_new_home_version(p);
}

/* Whether p is a page of this node's arena that has never had a version
 * and that cache-only detection may have left writable: its direct copies
 * need hlrc_fresh_copied's look. */
int hlrc_fresh_local(uint32_t p)
{
    uint8_t s = hlrc_state(p);
    return cfg.cache_only && (s == HOME_STICKY || s == HOME_READ) &&
           !atomic_load(&region.meta[p].version) && arena_owner(p) == cfg.node;
}
