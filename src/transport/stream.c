#include "transport/stream.h"

#include <stdlib.h>
#include <string.h>

#include "transport/core.h"
#include "util/log.h"

#define RBUF_SIZE (256 * 1024)

void rx_init(rx_stream *s, int src)
{
    *s = (rx_stream){.src = src, .buf = malloc(RBUF_SIZE)};
    if (!s->buf)
        log_die("out of memory setting up the stream from node %d", src);
}

void rx_free(rx_stream *s)
{
    free(s->buf);
    free(s->big);
    s->buf = s->big = NULL;
}

char *rx_space(rx_stream *s, size_t *room)
{
    if (s->big) {
        *room = s->big_need - s->big_have;
        return s->big + s->big_have;
    }
    *room = RBUF_SIZE - s->len;
    return s->buf + s->len;
}

/* Dispatches every whole message in buf; starts a big receive for a message
 * that cannot fit; keeps a partial one at the front of buf. */
static void parse(rx_stream *s)
{
    size_t off = 0;
    while (s->len - off >= STREAM_HDR) {
        tsr_msg_hdr h;
        memcpy(&h, s->buf + off, STREAM_HDR);
        size_t total = STREAM_BYTES(h.len);
        if (am_check(s->src, &h)) {
            /* Rejected before any room is made for it: its payload is
             * read and dropped, never allocated. */
            size_t have = s->len - off;
            s->skip = have >= total ? 0 : total - have;
            off += have >= total ? total : have;
            continue;
        }
        if (s->len - off >= total) {
            am_dispatch_checked(s->src, &h, s->buf + off + STREAM_HDR);
            off += total;
            continue;
        }
        if (total > RBUF_SIZE) {
            s->big_hdr = h;
            s->big_need = STREAM_PAD8(h.len);
            s->big = malloc(s->big_need);
            if (!s->big)
                log_die_status(1, "out of memory receiving a %u-byte message", h.len);
            s->big_have = s->len - off - STREAM_HDR;
            memcpy(s->big, s->buf + off + STREAM_HDR, s->big_have);
            off = s->len;
        }
        break;
    }
    memmove(s->buf, s->buf + off, s->len - off);
    s->len -= off;
}

void rx_commit(rx_stream *s, size_t n)
{
    core_heard(s->src);
    if (s->skip) { /* the rest of a rejected message: dropped from the buffer */
        size_t drop = n < s->skip ? n : s->skip;
        memmove(s->buf + s->len, s->buf + s->len + drop, n - drop);
        s->skip -= drop;
        n -= drop;
    }
    if (!s->big) {
        s->len += n;
        parse(s);
        return;
    }
    s->big_have += n;
    if (s->big_have == s->big_need) {
        char *buf = s->big;
        s->big = NULL;
        am_dispatch_checked(s->src, &s->big_hdr, buf); /* checked by parse */
        free(buf);
    }
}

int tx_pieces(const am_msg *m, const void *base[3], size_t len[3])
{
    static const char zeros[8];
    size_t plen = m->hdr.len, off = m->sent;
    int n = 0;
    if (off < STREAM_HDR) {
        base[n] = (const char *)&m->hdr + off;
        len[n++] = STREAM_HDR - off;
    }
    size_t poff = off > STREAM_HDR ? off - STREAM_HDR : 0;
    if (poff < plen) {
        base[n] = (const char *)m->payload + poff;
        len[n++] = plen - poff;
    }
    size_t pad = STREAM_PAD8(plen) - plen, padoff = poff > plen ? poff - plen : 0;
    if (pad > padoff) {
        base[n] = zeros;
        len[n++] = pad - padoff;
    }
    return n;
}
