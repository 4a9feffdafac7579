#include "coherence/diff.h"

#include <string.h>

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Bit 7 of byte k set where byte k of x is zero. Exact for the lowest zero
 * byte, which is the only one we use (borrows only propagate upwards). */
static inline uint64_t zero_bytes(uint64_t x) { return (x - ONES) & ~x & HIGHS; }

/* First offset >= i where twin and cur differ, or DIFF_PAGE. Skips equal
 * words eight bytes at a time: most of a typical page is unchanged. */
static size_t next_changed(const uint8_t *twin, const uint8_t *cur, size_t i)
{
    while (i < DIFF_PAGE && (i & 7) && twin[i] == cur[i])
        i++;
    while (i < DIFF_PAGE && (i & 7) == 0) {
        uint64_t x = load64(twin + i) ^ load64(cur + i);
        if (x)
            return i + (size_t)__builtin_ctzll(x) / 8;
        i += 8;
    }
    while (i < DIFF_PAGE && twin[i] == cur[i])
        i++;
    return i;
}

/* First offset >= i where twin and cur are equal, or DIFF_PAGE. */
static size_t next_unchanged(const uint8_t *twin, const uint8_t *cur, size_t i)
{
    while (i < DIFF_PAGE && (i & 7) && twin[i] != cur[i])
        i++;
    while (i < DIFF_PAGE && (i & 7) == 0) {
        uint64_t z = zero_bytes(load64(twin + i) ^ load64(cur + i));
        if (z)
            return i + (size_t)__builtin_ctzll(z) / 8;
        i += 8;
    }
    while (i < DIFF_PAGE && twin[i] != cur[i])
        i++;
    return i;
}

size_t diff_encode(const uint8_t *twin, const uint8_t *cur, uint8_t *out)
{
    size_t len = 0;
    for (size_t i = next_changed(twin, cur, 0); i < DIFF_PAGE;) {
        size_t end = next_unchanged(twin, cur, i);
        uint16_t hdr[2] = {(uint16_t)i, (uint16_t)(end - i)};
        memcpy(out + len, hdr, sizeof hdr);
        memcpy(out + len + sizeof hdr, cur + i, end - i);
        len += sizeof hdr + (end - i);
        i = next_changed(twin, cur, end);
    }
    return len;
}

int diff_next_run(const uint8_t *diff, size_t len, size_t *pos, uint16_t *off, uint16_t *n)
{
    uint16_t hdr[2];
    if (len - *pos < sizeof hdr)
        return -1;
    memcpy(hdr, diff + *pos, sizeof hdr);
    *pos += sizeof hdr;
    if (hdr[1] == 0 || (size_t)hdr[0] + hdr[1] > DIFF_PAGE || len - *pos < hdr[1])
        return -1;
    *off = hdr[0];
    *n = hdr[1];
    *pos += hdr[1];
    return 0;
}

int diff_apply(uint8_t *page, const uint8_t *diff, size_t len)
{
    size_t pos = 0;
    uint16_t off, n;
    while (pos < len) {
        if (diff_next_run(diff, len, &pos, &off, &n))
            return -1;
        if (page)
            memcpy(page + off, diff + pos - n, n);
    }
    return 0;
}
