/*
 * notice.h - sets of write notices. A write notice (page, version) says that
 * the home copy of `page` reached `version` through some node's writes; a
 * cached copy with an older version is stale and must be invalidated.
 *
 * Because a notice names a version rather than an event, sets merge by taking
 * the maximum and a notice delivered twice or late is harmless: this is what
 * lets locks, barriers and releases pass notices around without ordering
 * their messages with respect to one another.
 */
#ifndef TSR_NOTICE_H
#define TSR_NOTICE_H

#include <stddef.h>
#include <stdint.h>

typedef struct notice {
    uint32_t page;
    uint32_t version;
    uint32_t stamp;        /* set clock at the last change: lets a node send deltas */
    uint32_t older, newer; /* neighbours in stamp order (positions in e) */
} notice;

/* The entries are dense in e (any order) and also threaded on a list in
 * stamp order, newest first, so that "what changed since clock c" costs
 * what changed, not the size of the set: a release that changed nothing
 * does no work however many notices the epoch has gathered. */
typedef struct notice_set {
    notice *e;       /* dense array of entries */
    uint32_t n, cap;
    uint32_t *index; /* open addressing: 1 + position in e, 0 = empty */
    uint32_t icap;   /* power of two */
    uint32_t clock;  /* bumped on every change */
    uint32_t newest; /* position of the last changed entry; NOTICE_NONE if empty */
} notice_set;

#define NOTICE_NONE UINT32_MAX

/* Wire form of one notice: two little-endian u32. */
#define NOTICE_WIRE 8

/* Raises page's version to at least `version`; returns 1 if it changed. */
int notice_add(notice_set *s, uint32_t page, uint32_t version);
/* The version noted for page, 0 if none. */
uint32_t notice_get(const notice_set *s, uint32_t page);
void notice_clear(notice_set *s);
/* Drops the notices that `covered` already carries at an equal or newer
 * version (after a barrier every node has acted on those). */
void notice_prune(notice_set *s, const notice_set *covered);
/* Number of entries changed after `since` (0 = all). Both this and
 * notice_encode cost the number of entries changed after `since`. */
uint32_t notice_count_since(const notice_set *s, uint32_t since);
/* Writes the entries changed after `since` to buf (room for
 * notice_count_since entries of NOTICE_WIRE bytes); returns bytes written. */
size_t notice_encode(const notice_set *s, uint32_t since, void *buf);
/* Adds to dst the entries of src changed after `since`. */
void notice_merge_since(notice_set *dst, const notice_set *src, uint32_t since);
/* Adds every notice of a wire buffer; returns -1 if len is malformed. */
int notice_merge_wire(notice_set *s, const void *buf, size_t len);

#endif
