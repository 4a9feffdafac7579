/*
 * outbox.h - one growing message of page diffs per destination, the form in
 * which both protocols send a release's changes: all the diffs a releaser
 * has for one node travel in one message (Munin's merging of updates per
 * destination, Section 3.3).
 *
 * Wire form of a message: entries of (u32 page, u32 word, diff padded to 4
 * bytes), where word holds the diff's length in its low 24 bits and
 * protocol-defined flags in its high 8 bits.
 */
#ifndef TSR_OUTBOX_H
#define TSR_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

typedef struct outbox {
    char *buf;
    size_t len, cap;
    uint32_t count; /* entries */
} outbox;

/* Appends the diff of page p (its twin against the runtime view); returns
 * the diff's length, 0 (nothing appended) when the page is unchanged. */
size_t outbox_add_diff(outbox *o, uint32_t p, uint8_t flags);
/* Appends an already encoded diff. */
void outbox_add(outbox *o, uint32_t p, uint8_t flags, const void *diff, size_t len);
/* One entry of a received message: its page, flags and bytes (a diff, or
 * whatever the message type carries), pointing into the message. */
typedef struct outbox_entry {
    uint32_t page;
    uint8_t flags;
    const uint8_t *bytes;
    size_t len;
} outbox_entry;

/* The entry at *pos of a received message; advances *pos. Returns -1 when
 * the message is truncated. */
int outbox_next(const void *msg, size_t msg_len, size_t *pos, outbox_entry *e);
void outbox_free(outbox *o);

#endif
