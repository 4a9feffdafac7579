/*
 * munin_malloc.c - Munin objects that one node allocates alone
 * (tsr_malloc_attr with TSR_PROTO_MUNIN).
 *
 * The allocating node is the manager of every page of the object, as a
 * collective allocation placed TSR_HOME_NODE at it would be. Another node
 * learns the object at its first fault on it (adopt.c), or at its first
 * hint or Fetch_and_Phi on it: the manager answers with the object's bounds
 * and its annotation, and the node sets the pages up as any non-manager's
 * are at a collective allocation, with no copy.
 *
 * Freeing it must undo that everywhere. The other nodes may hold copies,
 * and the master copy itself (an ownership protocol), and they keep the
 * annotation they adopted, which a later object in the same pages need not
 * share. So tsr_free_local makes every node forget the pages, waits until
 * each has, and only then gives them back: a later allocation finds pages
 * that no protocol keeps, and each node adopts them afresh.
 */
#include "coherence/munin/munin_int.h"

#include <string.h>

#include "coherence/adopt.h"
#include "coherence/protocol.h"
#include "memory/arena.h"
#include "util/log.h"

void mu_learn(const void *ptr)
{
    if (region_contains(ptr) && !region.meta[page_of(ptr)].proto)
        adopt_fault(ptr, page_of(ptr));
}

/* ---- Freeing --------------------------------------------------------------- */

int mu_free_local(uint32_t first, uint32_t n)
{
    if (has_flag(first, F_BOUND))
        log_die("tsr_free_local(%p): the object is bound to lock %d (tsr_hint_lock_data), "
                "and lives as long as the job", (void *)page_app(first), mu[first].lock);
    mu_flush_range(first, first + n, NULL);
    mu_reply r = {0};
    waiter_init(&r.w, (uint32_t)cfg.nodes - 1);
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node)
            am_send(j, MSG_MU_FORGET, first, req_open(j, MSG_MU_FORGET_ACK, &r), n, NULL, 0);
    waiter_wait(&r.w);
    mu_unmap(first, n);
    return 1;
}

/* What is wrong with a request to forget [first, first+n), NULL if
 * nothing: the pages must lie in the sender's arena, and either none was
 * adopted here or all are that one object of the sender's. */
static const char *bad_forget(int src, uint64_t first, uint64_t n)
{
    uint32_t lo, hi;
    arena_bounds(src, &lo, &hi);
    if (!n || first < lo || first >= hi || n > hi - first)
        return "pages outside the sender's arena";
    for (uint64_t p = first; p < first + n; p++) {
        if (!region.meta[p].proto)
            continue;
        if (coh_protocol_of((uint32_t)p) != &munin_protocol || mu[p].first != first ||
            mu[p].npages != n || home((uint32_t)p) != src)
            return "pages that are not one Munin object of the sender's";
    }
    return NULL;
}

static void on_forget(int src, const tsr_msg_hdr *h, void *payload)
{
    uint64_t first = h->arg[0], n = h->arg[2];
    const char *why = bad_forget(src, first, n);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
    uint32_t p0 = (uint32_t)first, count = (uint32_t)n;
    if (region.meta[p0].proto) { /* adopted here: whole, as adopt.c adopts an object */
        for (uint32_t p = p0; p < p0 + count; p++)
            if (has_flag(p, F_QUEUED))
                log_die_status(1, "node %d freed its object at %p (tsr_free_local) while this "
                               "node had written it since its last release: a data race", src,
                               (void *)page_app(p0));
        mu_set_access(p0, count, A_NONE);
        memset(&mu[p0], 0, (size_t)count * sizeof *mu);
        for (uint32_t p = p0; p < p0 + count; p++)
            coh_set_proto(p, 0);
    }
    am_send(src, MSG_MU_FORGET_ACK, 0, h->arg[1], 0, NULL, 0);
}

static void on_forget_ack(int src, const tsr_msg_hdr *h, void *payload)
{
    mu_reply *r = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    waiter_done(&r->w);
}

void mu_malloc_init(void)
{
    am_register(MSG_MU_FORGET, on_forget);
    am_register(MSG_MU_FORGET_ACK, on_forget_ack);
}
