#include "coherence/notice.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static uint32_t hash_page(uint32_t page) { return page * 2654435761u; }

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q && n)
        log_die_status(1, "out of memory (%zu bytes for write notices)", n);
    return q;
}

static uint32_t *slot_of(const notice_set *s, uint32_t page)
{
    uint32_t mask = s->icap - 1;
    for (uint32_t i = hash_page(page) & mask;; i = (i + 1) & mask) {
        uint32_t x = s->index[i];
        if (!x || s->e[x - 1].page == page)
            return &s->index[i];
    }
}

static void reindex(notice_set *s, uint32_t icap)
{
    free(s->index);
    s->icap = icap;
    s->index = calloc(icap, sizeof *s->index);
    if (!s->index)
        log_die_status(1, "out of memory (write notice index)");
    for (uint32_t i = 0; i < s->n; i++)
        *slot_of(s, s->e[i].page) = i + 1;
}

/* Threads entry x on the list as the newest. With n == 1, x is the only
 * entry (s->newest is stale then: a set cleared or never used). */
static void link_newest(notice_set *s, uint32_t x)
{
    s->e[x].older = s->n == 1 ? NOTICE_NONE : s->newest;
    s->e[x].newer = NOTICE_NONE;
    if (s->e[x].older != NOTICE_NONE)
        s->e[s->e[x].older].newer = x;
    s->newest = x;
}

static void unlink_entry(notice_set *s, uint32_t x)
{
    notice *e = &s->e[x];
    if (e->older != NOTICE_NONE)
        s->e[e->older].newer = e->newer;
    if (e->newer != NOTICE_NONE)
        s->e[e->newer].older = e->older;
    else
        s->newest = e->older;
}

int notice_add(notice_set *s, uint32_t page, uint32_t version)
{
    if ((s->n + 1) * 2 > s->icap)
        reindex(s, s->icap ? s->icap * 2 : 64);
    uint32_t *slot = slot_of(s, page);
    if (*slot) {
        uint32_t x = *slot - 1;
        if (s->e[x].version >= version)
            return 0;
        s->e[x].version = version;
        s->e[x].stamp = ++s->clock;
        if (s->newest != x) {
            unlink_entry(s, x);
            link_newest(s, x);
        }
        return 1;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 32;
        s->e = xrealloc(s->e, s->cap * sizeof *s->e);
    }
    uint32_t x = s->n++;
    s->e[x] = (notice){page, version, ++s->clock, NOTICE_NONE, NOTICE_NONE};
    link_newest(s, x);
    *slot = x + 1;
    return 1;
}

uint32_t notice_get(const notice_set *s, uint32_t page)
{
    if (!s->n)
        return 0;
    uint32_t x = *slot_of(s, page);
    return x ? s->e[x - 1].version : 0;
}

void notice_clear(notice_set *s)
{
    s->n = 0;
    if (s->index)
        memset(s->index, 0, s->icap * sizeof *s->index);
}

static int by_stamp(const void *a, const void *b)
{
    uint32_t x = ((const notice *)a)->stamp, y = ((const notice *)b)->stamp;
    return (x > y) - (x < y);
}

void notice_prune(notice_set *s, const notice_set *covered)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (notice_get(covered, s->e[i].page) < s->e[i].version)
            s->e[kept++] = s->e[i];
    if (kept == s->n)
        return;
    /* Rare (once per barrier per lock): rebuild the list in stamp order. */
    qsort(s->e, kept, sizeof *s->e, by_stamp);
    s->n = 0;
    for (uint32_t i = 0; i < kept; i++) {
        s->n = i + 1;
        link_newest(s, i);
    }
    reindex(s, s->icap);
}

/* Walks the entries changed after `since`, newest first. */
#define FOR_CHANGED_SINCE(s, since, x)                                                  \
    for (uint32_t x = (s)->n ? (s)->newest : NOTICE_NONE;                               \
         x != NOTICE_NONE && (s)->e[x].stamp > (since); x = (s)->e[x].older)

uint32_t notice_count_since(const notice_set *s, uint32_t since)
{
    uint32_t n = 0;
    FOR_CHANGED_SINCE(s, since, x)
        n++;
    return n;
}

size_t notice_encode(const notice_set *s, uint32_t since, void *buf)
{
    uint32_t *w = buf;
    FOR_CHANGED_SINCE(s, since, x) {
        *w++ = s->e[x].page;
        *w++ = s->e[x].version;
    }
    return (size_t)((char *)w - (char *)buf);
}

void notice_merge_since(notice_set *dst, const notice_set *src, uint32_t since)
{
    FOR_CHANGED_SINCE(src, since, x)
        notice_add(dst, src->e[x].page, src->e[x].version);
}

int notice_merge_wire(notice_set *s, const void *buf, size_t len)
{
    if (len % NOTICE_WIRE)
        return -1;
    const uint32_t *r = buf;
    for (size_t i = 0; i < len / NOTICE_WIRE; i++)
        notice_add(s, r[2 * i], r[2 * i + 1]);
    return 0;
}
