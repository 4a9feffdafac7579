/*
 * munin_lockdata.c - objects bound to locks (tsr_hint_lock_data). Bound
 * objects are kept in binding order (the same on every node). The holder
 * of the lock has them writable; a grant brings them, a release takes them
 * away; a node reading them without the lock gets a read-only copy from
 * the lock's manager, dropped at its next synchronization. The bytes travel
 * as Munin's frame of the lock's payloads (protocol.h): the manager keeps
 * them as the last holder left them, for the next grant or reader.
 */
#include "coherence/munin/munin_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "util/log.h"

static mu_object *bound;
static uint16_t *bound_lock;
static uint32_t nbound;

/* Manager side: each managed lock's bytes. The lock manager's hooks run one
 * at a time, but tsr_hint_lock_data stores from the application thread. */
typedef struct stored {
    void *data;
    size_t len;
} stored;
static stored *kept;
static pthread_mutex_t kept_mutex = PTHREAD_MUTEX_INITIALIZER;

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

static void keep(int lock, const void *data, size_t len)
{
    pthread_mutex_lock(&kept_mutex);
    if (!kept && !(kept = calloc(COH_LOCK_SLOTS, sizeof *kept)))
        log_die_status(1, "out of memory (Munin lock data)");
    void *copy = malloc(len);
    if (!copy)
        log_die_status(1, "out of memory (Munin lock data)");
    memcpy(copy, data, len);
    free(kept[lock].data);
    kept[lock] = (stored){copy, len};
    pthread_mutex_unlock(&kept_mutex);
}

static void give_kept(int lock, pbuf *out)
{
    pthread_mutex_lock(&kept_mutex);
    if (kept)
        pbuf_put(out, kept[lock].data, kept[lock].len);
    pthread_mutex_unlock(&kept_mutex);
}

void munin_lock_keep(int lock)
{
    size_t len = bound_bytes(lock, NULL, 0);
    pbuf b = {0};
    bound_bytes(lock, pbuf_room(&b, len), 1);
    keep(lock, b.p, len);
    pbuf_free(&b);
}

/* A grant and a peek's answer bring the bytes of every object bound to
 * the lock; what a release leaves at the manager is kept as it is. */
int mu_payload_check(payload_kind kind, int lock, const void *p, size_t len)
{
    if (kind == PL_GRANT || kind == PL_PEEKED)
        return len == bound_bytes(lock, NULL, 0) ? 0 : -1;
    return 0;
}

/* Installs the bound objects' bytes with the given access. */
static int install(int lock, const void *data, size_t len, int writable)
{
    if (mu_payload_check(PL_GRANT, lock, data, len))
        return -1;
    size_t at = 0;
    for (uint32_t b = 0; b < nbound; b++) {
        if (bound_lock[b] != lock)
            continue;
        size_t bytes = (size_t)bound[b].n * PAGE_SIZE;
        memcpy(page_rt(bound[b].first), (const char *)data + at, bytes);
        mu_set_access(bound[b].first, bound[b].n, writable ? A_OWNED : A_READ);
        at += bytes;
    }
    return 0;
}

void mu_lock_release(int lock, pbuf *out)
{
    size_t len = bound_bytes(lock, NULL, 0);
    if (len)
        bound_bytes(lock, pbuf_room(out, len), 1);
}

int mu_lock_merge(int lock, int node, const void *p, size_t len)
{
    keep(lock, p, len);
    return 0;
}

int mu_lock_grant(int lock, int node, const void *req, size_t len, pbuf *out)
{
    if (req)
        return -1; /* acquirers send nothing */
    give_kept(lock, out);
    return 0;
}

int mu_lock_handoff(int lock, int node, const void *req, size_t len, pbuf *out)
{
    if (req)
        return -1;
    mu_lock_release(lock, out);
    return 0;
}

int mu_lock_acquire(int lock, const void *p, size_t len) { return install(lock, p, len, 1); }

void mu_lock_peek(int lock, pbuf *out) { give_kept(lock, out); }

int mu_lock_peeked(int lock, const void *p, size_t len) { return install(lock, p, len, 0); }

/* SIGSEGV handler: a read without the lock peeks at the lock's data. */
void mu_bound_fault(uint32_t p, int is_write)
{
    int lock = mu[p].lock;
    if (is_write)
        mu_die_on(p, "write without holding the lock it is bound to (tsr_hint_lock_data) to");
    coh_sync.lock_peek(lock);
    /* Read copies: dropped when this node next synchronizes. */
    for (uint32_t b = 0; b < nbound; b++)
        if (bound_lock[b] == lock)
            for (uint32_t q = bound[b].first; q < bound[b].first + bound[b].n; q++)
                mu_enqueue(q);
}
