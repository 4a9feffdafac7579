#include "coherence/notice.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static uint32_t hash_page(uint32_t page) { return page * 2654435761u; }

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q && n)
        log_die("out of memory (%zu bytes for write notices)", n);
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
        log_die("out of memory (write notice index)");
    for (uint32_t i = 0; i < s->n; i++)
        *slot_of(s, s->e[i].page) = i + 1;
}

int notice_add(notice_set *s, uint32_t page, uint32_t version)
{
    if ((s->n + 1) * 2 > s->icap)
        reindex(s, s->icap ? s->icap * 2 : 64);
    uint32_t *slot = slot_of(s, page);
    if (*slot) {
        notice *e = &s->e[*slot - 1];
        if (e->version >= version)
            return 0;
        e->version = version;
        e->stamp = ++s->clock;
        return 1;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 32;
        s->e = xrealloc(s->e, s->cap * sizeof *s->e);
    }
    s->e[s->n] = (notice){page, version, ++s->clock};
    *slot = ++s->n;
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

void notice_prune(notice_set *s, const notice_set *covered)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (notice_get(covered, s->e[i].page) < s->e[i].version)
            s->e[kept++] = s->e[i];
    if (kept == s->n)
        return;
    s->n = kept;
    reindex(s, s->icap);
}

uint32_t notice_count_since(const notice_set *s, uint32_t since)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n; i++)
        n += s->e[i].stamp > since;
    return n;
}

size_t notice_encode(const notice_set *s, uint32_t since, void *buf)
{
    uint32_t *w = buf;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->e[i].stamp <= since)
            continue;
        *w++ = s->e[i].page;
        *w++ = s->e[i].version;
    }
    return (size_t)((char *)w - (char *)buf);
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
