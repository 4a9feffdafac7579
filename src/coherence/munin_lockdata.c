/*
 * munin_lockdata.c - objects bound to locks (tsr_hint_lock_data). Bound
 * objects are kept in binding order (the same on every node). The holder
 * of the lock has them writable; a grant brings them, a release takes them
 * away; a node reading them without the lock gets a read-only copy from
 * the lock's manager, dropped at its next synchronization.
 */
#include "coherence/munin_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static mu_object *bound;
static uint16_t *bound_lock;
static uint32_t nbound;

void munin_bind(uint32_t first, uint32_t n, int lock)
{
    for (uint32_t b = 0; b < nbound; b++)
        if (bound_lock[b] == lock)
            log_die("tsr_hint_lock_data(%d, %p): the lock already carries the object at %p", lock,
                    (void *)page_app(first), (void *)page_app(bound[b].first));
    if (has_flag(first, F_BOUND))
        log_die("tsr_hint_lock_data(%d, %p): the object is already bound to lock %d", lock,
                (void *)page_app(first), mu[first].lock);
    bound = realloc(bound, (nbound + 1) * sizeof *bound);
    bound_lock = realloc(bound_lock, (nbound + 1) * sizeof *bound_lock);
    if (!bound || !bound_lock)
        log_die("out of memory (Munin lock data)");
    bound[nbound] = (mu_object){first, n};
    bound_lock[nbound++] = (uint16_t)lock;
    for (uint32_t p = first; p < first + n; p++) {
        mu[p].lock = (uint16_t)lock;
        set_flag(p, F_BOUND);
    }
    mu_set_access(first, n, A_NONE);
}

void mu_bound_forget(uint32_t first) { mu_objects_remove(bound, bound_lock, &nbound, first); }

/* Copies the bytes of every object bound to `lock` into out (NULL: only
 * measures); with `give_up`, this node's access to them ends first. */
static size_t bound_bytes(int lock, void *out, int give_up)
{
    size_t len = 0;
    for (uint32_t b = 0; b < nbound; b++) {
        if (bound_lock[b] != lock)
            continue;
        size_t bytes = (size_t)bound[b].n * PAGE_SIZE;
        if (out) {
            if (give_up)
                mu_set_access(bound[b].first, bound[b].n, A_NONE);
            memcpy((char *)out + len, page_rt(bound[b].first), bytes);
        }
        len += bytes;
    }
    return len;
}

size_t mu_lock_data(int lock, void *out) { return bound_bytes(lock, out, 1); }

/* Installs the bound objects' bytes with the given access. */
void mu_lock_install(int lock, const void *data, size_t len, int writable)
{
    if (len != bound_bytes(lock, NULL, 0))
        log_die_status(1, "protocol error: lock %d carries %zu bytes of bound data", lock, len);
    size_t at = 0;
    for (uint32_t b = 0; b < nbound; b++) {
        if (bound_lock[b] != lock)
            continue;
        size_t bytes = (size_t)bound[b].n * PAGE_SIZE;
        memcpy(page_rt(bound[b].first), (const char *)data + at, bytes);
        mu_set_access(bound[b].first, bound[b].n, writable ? A_OWNED : A_READ);
        at += bytes;
    }
}

/* SIGSEGV handler: a read without the lock peeks at the lock's data. */
void mu_bound_fault(uint32_t p, int is_write)
{
    int lock = mu[p].lock;
    if (is_write)
        mu_die_on(p, "write without holding the lock it is bound to (tsr_hint_lock_data) to");
    waiter w;
    am_msg m;
    waiter_init(&w, 1);
    am_post(lock % cfg.nodes, &m, MSG_LOCK_PEEK, (uint64_t)lock, (uintptr_t)&w, 0, NULL, 0);
    waiter_wait(&w);
    /* Read copies: dropped when this node next synchronizes. */
    for (uint32_t b = 0; b < nbound; b++)
        if (bound_lock[b] == lock)
            for (uint32_t q = bound[b].first; q < bound[b].first + bound[b].n; q++)
                mu_enqueue(q);
}
