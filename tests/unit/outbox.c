/* The outbox (coherence/outbox.h): entries appended with outbox_add come
 * back from outbox_next in order with their page, flags and bytes, diffs
 * of any length are padded to 4 bytes, and a truncated message is refused
 * rather than read past its end. */
#include "check.h"
#include "coherence/outbox.h"

static void roundtrip(void)
{
    outbox o = {0};
    static uint8_t big[5000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    outbox_add(&o, 3, 0x00, "abcde", 5);
    outbox_add(&o, 0xfffffffe, 0xff, "xyzw", 4);
    outbox_add(&o, 9, 0x81, big, sizeof big);
    CHECK(o.count == 3, "count %u, want 3", o.count);
    CHECK(o.len % 4 == 0, "message length %zu not padded to 4 bytes", o.len);

    struct { uint32_t page; uint8_t flags; const void *bytes; size_t len; } want[] = {
        {3, 0x00, "abcde", 5}, {0xfffffffe, 0xff, "xyzw", 4}, {9, 0x81, big, sizeof big}};
    size_t pos = 0;
    for (int i = 0; i < 3; i++) {
        outbox_entry e;
        int rc = outbox_next(o.buf, o.len, &pos, &e);
        CHECK(rc == 0 && e.page == want[i].page && e.flags == want[i].flags &&
                  e.len == want[i].len && memcmp(e.bytes, want[i].bytes, e.len) == 0,
              "entry %d: rc %d page %u flags %#x len %zu", i, rc, e.page, e.flags, e.len);
    }
    CHECK(pos == o.len, "entries end at %zu of %zu bytes", pos, o.len);
    outbox_free(&o);
    CHECK(o.buf == NULL && o.len == 0 && o.count == 0, "outbox_free left state behind");
}

static void truncated(void)
{
    outbox o = {0};
    outbox_add(&o, 1, 0, "0123456789", 10);
    outbox_entry e;
    size_t pos = 0;
    CHECK(outbox_next(o.buf, 7, &pos, &e) == -1, "torn header accepted");
    pos = 0;
    CHECK(outbox_next(o.buf, 8 + 9, &pos, &e) == -1,
          "diff cut short accepted");
    /* Without its padding the last entry is still whole. */
    pos = 0;
    CHECK(outbox_next(o.buf, 8 + 10, &pos, &e) == 0 && pos == 18,
          "unpadded last entry refused (pos %zu)", pos);
    outbox_free(&o);
}

int main(void)
{
    roundtrip();
    truncated();
    return check_done("outbox");
}
