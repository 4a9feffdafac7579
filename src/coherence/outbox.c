#include "coherence/outbox.h"

#include <stdlib.h>
#include <string.h>

#include "coherence/diff.h"
#include "memory/region.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "util/log.h"

#define LEN_MASK 0xffffffu

static void reserve(outbox *o, size_t more)
{
    if (o->len + more <= o->cap)
        return;
    o->cap = (o->len + more) * 2;
    o->buf = realloc(o->buf, o->cap);
    if (!o->buf)
        log_die_status(1, "out of memory (%zu bytes of diffs)", o->cap);
}

static void put_header(outbox *o, uint32_t p, uint8_t flags, size_t len)
{
    uint32_t hdr[2] = {p, (uint32_t)len | (uint32_t)flags << 24};
    memcpy(o->buf + o->len, hdr, sizeof hdr);
    o->len += sizeof hdr + ((len + 3) & ~(size_t)3);
    o->count++;
}

size_t outbox_add_diff(outbox *o, uint32_t p, uint8_t flags)
{
    reserve(o, 8 + DIFF_MAX + 3);
    uint64_t t0 = trace_begin();
    size_t len = diff_encode((uint8_t *)page_twin(p), (uint8_t *)page_rt(p),
                             (uint8_t *)o->buf + o->len + 8);
    if (!len)
        return 0;
    put_header(o, p, flags, len);
    STAT_ADD(diffs_created, 1);
    STAT_ADD(diff_bytes, len);
    TRACE_SPAN(t0, EV_DIFF_MAKE, 0, p, len);
    return len;
}

void outbox_add(outbox *o, uint32_t p, uint8_t flags, const void *diff, size_t len)
{
    reserve(o, 8 + len + 3);
    memcpy(o->buf + o->len + 8, diff, len);
    put_header(o, p, flags, len);
}

int outbox_next(const void *msg, size_t msg_len, size_t *pos, outbox_entry *e)
{
    uint32_t hdr[2];
    if (msg_len - *pos < sizeof hdr)
        return -1;
    memcpy(hdr, (const char *)msg + *pos, sizeof hdr);
    e->page = hdr[0];
    e->flags = (uint8_t)(hdr[1] >> 24);
    e->len = hdr[1] & LEN_MASK;
    if (msg_len - *pos - sizeof hdr < e->len)
        return -1;
    e->bytes = (const uint8_t *)msg + *pos + sizeof hdr;
    *pos += sizeof hdr + ((e->len + 3) & ~(size_t)3);
    if (*pos > msg_len)
        *pos = msg_len;
    return 0;
}

void outbox_free(outbox *o)
{
    free(o->buf);
    *o = (outbox){0};
}
