/* Synchronization payload frames (coherence/payload.h): a byte buffer
 * grows keeping what it holds, and the frame reader accepts only frames of
 * known protocols, once each, in table order, non-empty, padded to 4
 * bytes and within the message, so a malformed payload is refused before
 * any protocol reads it. */
#include "check.h"
#include "coherence/payload.h"
#include "coherence/protocol.h"

static void buffer(void)
{
    pbuf b = {0};
    for (uint32_t i = 0; i < 1000; i++)
        pbuf_put(&b, &i, sizeof i);
    CHECK(b.len == 4000, "length %zu, want 4000", b.len);
    int kept = 1;
    for (uint32_t i = 0; i < 1000; i++)
        kept &= ((uint32_t *)b.p)[i] == i;
    CHECK(kept, "growing lost bytes");
    pbuf_free(&b);
    CHECK(!b.p && !b.len && !b.cap, "freed buffer not empty");
}

/* Appends a frame header (protocol, length) and `pad` bytes. */
static void frame(pbuf *b, uint32_t proto, uint32_t len, size_t pad)
{
    uint32_t hdr[2] = {proto, len};
    pbuf_put(b, hdr, sizeof hdr);
    memset(pbuf_room(b, pad), 0, pad);
}

static void frames(void)
{
    pbuf b = {0};
    CHECK(coh_frames_valid(b.p, 0) == 0, "no frames refused");
    frame(&b, 1, 5, 8);
    frame(&b, 2, 4, 4);
    CHECK(coh_frames_valid(b.p, b.len) == 0, "two good frames refused");
    CHECK(coh_frames_valid(b.p, b.len - 1) == -1, "a truncated frame accepted");
    CHECK(coh_frames_valid(b.p, 4) == -1, "half a header accepted");
    b.len = 0;
    frame(&b, 1, 5, 5);
    CHECK(coh_frames_valid(b.p, b.len) == -1, "a frame not padded to 4 accepted");
    b.len = 0;
    frame(&b, 2, 4, 4);
    frame(&b, 1, 4, 4);
    CHECK(coh_frames_valid(b.p, b.len) == -1, "frames out of table order accepted");
    b.len = 0;
    frame(&b, 1, 4, 4);
    frame(&b, 1, 4, 4);
    CHECK(coh_frames_valid(b.p, b.len) == -1, "a protocol's frame twice accepted");
    b.len = 0;
    frame(&b, 0, 4, 4);
    CHECK(coh_frames_valid(b.p, b.len) == -1, "protocol 0 (none) accepted");
    b.len = 0;
    frame(&b, COH_NPROTO, 4, 4);
    CHECK(coh_frames_valid(b.p, b.len) == -1, "an unknown protocol accepted");
    b.len = 0;
    frame(&b, 1, 0, 0);
    CHECK(coh_frames_valid(b.p, b.len) == -1, "an empty frame accepted");
    b.len = 0;
    frame(&b, 1, UINT32_MAX, 4);
    CHECK(coh_frames_valid(b.p, b.len) == -1, "a length past the message accepted");
    pbuf_free(&b);
}

int main(void)
{
    buffer();
    frames();
    return check_done("payload");
}
