/*
 * munin_object.c - Munin objects (allocations): their set-up in the
 * protocol of their annotation, the collective changes of that protocol,
 * and the return of a node's copies to their managers.
 */
#include "coherence/munin/munin_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

mu_object *mu_objects;
uint32_t mu_nobjects;
static uint32_t capobjects;

static int initial_access(uint32_t p)
{
    if (!is_home(p))
        return A_NONE;
    int mech = mu[p].mech;
    return mech == MECH_RESULT || mech == MECH_CONVENTIONAL || mech == MECH_MIGRATORY ? A_OWNED
                                                                                      : A_READ;
}

/* Gives pages [first, first+n) the protocol of (annot, params), in its
 * starting state: the manager holds the only copy. */
static void setup(uint32_t first, uint32_t n, int annot, unsigned params)
{
    const char *why;
    int mech = munin_mech_of(params, &why);
    if (mech < 0)
        log_die("Munin parameters 0x%02x (annotation %s): %s", params, munin_annot_name(annot),
                why);
    for (uint32_t p = first; p < first + n; p++) {
        mu_page *m = &mu[p];
        atomic_store(&m->cs, bit(home(p)));
        atomic_store(&m->writers, 0);
        atomic_fetch_and(&m->flags, (uint8_t)F_SINGLE);
        m->quiet_epochs = 0;
        m->params = (uint8_t)params;
        m->annot = (uint8_t)annot;
        m->mech = (uint8_t)mech;
        m->owner = (int16_t)home(p);
    }
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        int acc = initial_access(first + i);
        while (j < n && initial_access(first + j) == acc)
            j++;
        mu_set_access(first + i, j - i, acc);
        i = j;
    }
}

/* Pages [first, first+n) become one object in its starting state. */
static void describe(uint32_t first, uint32_t n, int annot, unsigned params)
{
    for (uint32_t p = first; p < first + n; p++) {
        memset(&mu[p], 0, sizeof mu[p]);
        mu[p].first = first;
        mu[p].npages = n;
    }
    setup(first, n, annot, params);
}

void mu_map(uint32_t first, uint32_t n, const tsr_attr *attr)
{
    if (cfg.nodes > MUNIN_MAX_NODES)
        log_die("tsr_alloc_attr: Munin memory supports at most %d nodes (copysets are bitmaps), "
                "this job has %d", MUNIN_MAX_NODES, cfg.nodes);
    if (attr->annot < TSR_CONVENTIONAL || attr->annot > TSR_ANNOT_PARAMS)
        log_die("tsr_alloc_attr: unknown Munin annotation %d", (int)attr->annot);
    unsigned params = attr->annot == TSR_ANNOT_PARAMS ? attr->munin_params
                                                      : tsr_munin_params(attr->annot);
    if (params > 0xff)
        log_die("tsr_alloc_attr: Munin parameters 0x%x have unknown bits", params);
    describe(first, n, attr->annot, params);
    if (mu_nobjects == capobjects) {
        capobjects = capobjects ? capobjects * 2 : 64;
        mu_objects = realloc(mu_objects, capobjects * sizeof *mu_objects);
        if (!mu_objects)
            log_die("out of memory (Munin objects)");
    }
    mu_objects[mu_nobjects++] = (mu_object){first, n};
}

/* The word another node adopts an object with: its annotation, and its
 * parameters above. */
void mu_adopt_run(uint32_t page, uint32_t *first, uint32_t *n, uint16_t *info)
{
    *first = mu[page].first;
    *n = mu[page].npages;
    *info = (uint16_t)(mu[page].annot | mu[page].params << 8);
}

int mu_adopt(uint32_t first, uint32_t n, uint16_t info)
{
    int annot = info & 0xff;
    unsigned params = info >> 8;
    const char *why;
    if (cfg.nodes > MUNIN_MAX_NODES || annot < TSR_CONVENTIONAL || annot > TSR_ANNOT_PARAMS ||
        (annot != TSR_ANNOT_PARAMS && params != tsr_munin_params(annot)) ||
        munin_mech_of(params, &why) < 0)
        return -1;
    describe(first, n, annot, params);
    return 0;
}

void mu_objects_remove(mu_object *list, uint16_t *tags, uint32_t *count, uint32_t first)
{
    for (uint32_t i = 0; i < *count; i++)
        if (list[i].first == first) {
            memmove(&list[i], &list[i + 1], (*count - i - 1) * sizeof *list);
            if (tags)
                memmove(&tags[i], &tags[i + 1], (*count - i - 1) * sizeof *tags);
            (*count)--;
            return;
        }
}

void mu_unmap(uint32_t first, uint32_t n)
{
    mu_objects_remove(mu_objects, NULL, &mu_nobjects, first);
    mu_bound_forget(first);
    memset(&mu[first], 0, (size_t)n * sizeof *mu);
}

void munin_object(const char *fn, const void *ptr, uint32_t *first, uint32_t *n)
{
    mu_learn(ptr);
    uint32_t p = region_contains(ptr) ? page_of(ptr) : 0;
    if (!region_contains(ptr) || !mu[p].npages)
        log_die("%s(%p): not an address in Munin shared memory", fn, ptr);
    *first = mu[p].first;
    *n = mu[p].npages;
}

void munin_attrs(uint32_t page, int *annot, unsigned *params)
{
    *annot = mu[page].annot;
    *params = mu[page].params;
}

void munin_set_single(uint32_t first, uint32_t n)
{
    for (uint32_t p = first; p < first + n; p++)
        set_flag(p, F_SINGLE);
}

void munin_reset(uint32_t first, uint32_t n, int annot, unsigned params)
{
    if (has_flag(first, F_BOUND))
        log_die("object at %p is bound to lock %d: its annotation cannot change",
                (void *)page_app(first), mu[first].lock);
    setup(first, n, annot, params);
}

/* Sends this node's pending changes, then gives every copy it holds of a
 * page managed elsewhere back to the manager (with the master copy, if it
 * has it). */
void munin_drop(uint32_t first, uint32_t n)
{
    mu_flush_range(first, first + n, NULL);
    mu_reply r = {0};
    waiter_init(&r.w, 0);
    for (uint32_t p = first; p < first + n; p++) {
        int acc = access_of(p);
        if (acc == A_NONE || is_home(p) || has_flag(p, F_BOUND))
            continue;
        atomic_fetch_add(&r.w.pending, 1);
        am_send(home(p), MSG_MU_RETURN, p, req_open(home(p), MSG_MU_GRANT, &r), 0,
                acc == A_OWNED ? page_rt(p) : NULL, acc == A_OWNED ? PAGE_SIZE : 0);
    }
    waiter_wait(&r.w);
}
