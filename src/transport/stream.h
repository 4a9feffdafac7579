/*
 * stream.h - turning a byte stream from one peer back into messages.
 *
 * Stream backends (TCP, the shared-memory rings) carry each message as its
 * 40-byte header, the payload and zero padding to 8 bytes, and may cut it
 * anywhere. A receiver writes what arrives at rx_space() and calls
 * rx_commit(), which checks each header and dispatches every whole message.
 * A message larger than the buffer is received into a block of its own.
 */
#ifndef TSR_STREAM_H
#define TSR_STREAM_H

#include <stddef.h>

#include "transport/transport.h"

#define STREAM_HDR sizeof(tsr_msg_hdr)
#define STREAM_PAD8(n) (((n) + 7) & ~(size_t)7)
/* Bytes a message takes in a stream. */
#define STREAM_BYTES(len) (STREAM_HDR + STREAM_PAD8(len))

typedef struct rx_stream {
    int src;            /* the peer, which every header must name */
    char *buf;          /* bytes received, not yet dispatched */
    size_t len;
    char *big;          /* a message larger than buf, being received */
    size_t big_have, big_need;
    tsr_msg_hdr big_hdr;
    size_t skip;        /* bytes of a rejected message still to drop */
} rx_stream;

/* Sets up the stream from node src; exits naming the cause if memory is short. */
void rx_init(rx_stream *s, int src);
void rx_free(rx_stream *s);
/* 1 when no part of a message waits in the stream. */
static inline int rx_idle(const rx_stream *s) { return !s->len && !s->big && !s->skip; }
/* Where the next bytes go, and how many fit there (never 0). */
char *rx_space(rx_stream *s, size_t *room);
/* Takes n bytes written at rx_space() and dispatches every whole message;
 * a header with an unknown type or another sender stops the node. */
void rx_commit(rx_stream *s, size_t n);

/* The bytes of m from stream offset m->sent on, as at most three pieces
 * (header, payload, padding); returns how many. */
int tx_pieces(const am_msg *m, const void *base[3], size_t len[3]);

#endif
