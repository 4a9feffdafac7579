/* Synchronization payload frames (coherence/payload.h): a byte buffer
 * grows keeping what it holds, and the frame reader accepts only frames of
 * known protocols, once each, in table order, non-empty, padded to 4
 * bytes and within the message, so a malformed payload is refused before
 * any protocol reads it; and each protocol's check (payload_check,
 * lock_request_check) refuses what its reader would, so a handler can
 * reject a message whole before any frame of it is applied. */
#include "check.h"
#include "coherence/payload.h"
#include "coherence/protocol.h"
#include "memory/region.h"
#include "util/config.h"

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

enum { HLRC = TSR_PROTO_HLRC + 1, MUNIN = TSR_PROTO_MUNIN + 1, LRC = TSR_PROTO_LRC + 1 };

/* One frame of `proto` holding the n words w. */
static size_t one(pbuf *b, uint32_t proto, const uint32_t *w, uint32_t n)
{
    b->len = 0;
    frame(b, proto, n * 4, 0);
    pbuf_put(b, w, n * 4);
    return b->len;
}

/* The home-based protocol's barrier frames: a count of home migration
 * reports (arrival: page, version; departure: page, version, node), then
 * notices. Each case: its words, the kind it is checked as, whether it
 * must pass. */
static void barrier_frames(pbuf *b)
{
    static const struct {
        uint32_t w[6], n;
        int kind, ok;
        const char *what;
    } cases[] = {
        {{0, 3, 1}, 3, PL_ARRIVAL, 1, "an arrival without reports"},
        {{0, 3, 1}, 3, PL_DEPARTURE, 1, "a departure without moves"},
        {{1, 3, 2, 3, 1}, 5, PL_ARRIVAL, 1, "an arrival's report"},
        {{1, 3, 2, 1, 3, 1}, 6, PL_DEPARTURE, 1, "a departure's move"},
        {{1, 16, 2, 3, 1}, 5, PL_ARRIVAL, 0, "a report off the region"},
        {{1, 3, 2, 2, 3, 1}, 6, PL_DEPARTURE, 0, "a move to node 2 of 2"},
        {{2, 3, 2}, 3, PL_ARRIVAL, 0, "more reports than bytes"},
        {{0, 3}, 2, PL_ARRIVAL, 0, "half a notice"},
        {{3}, 1, PL_ARRIVAL, 0, "a frame without its count"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = one(b, HLRC, cases[i].w, cases[i].n);
        CHECK((coh_payload_check(cases[i].kind, -1, b->p, n) == 0) == cases[i].ok, "%s %s",
              cases[i].what, cases[i].ok ? "refused" : "accepted");
    }
}

static void protocol_checks(void)
{
    cfg.nodes = 2; /* an LRC timestamp is 8 bytes */
    region.npages = 16;
    pbuf b = {0};
    static const uint32_t notice[2] = {3, 1}, off_region[2] = {16, 1};
    size_t n = one(&b, HLRC, notice, 2);
    for (int k = PL_RELEASE; k <= PL_PEEKED; k++)
        CHECK(coh_payload_check(k, 0, b.p, n) == (k == PL_PEEKED ? -1 : 0),
              "a home-based notice as payload kind %d", k);
    n = one(&b, HLRC, off_region, 2);
    CHECK(coh_payload_check(PL_RELEASE, 0, b.p, n) == -1, "a notice off the region accepted");
    CHECK(coh_lock_request_check(b.p, n) == -1, "a request frame of a protocol that sends none");

    barrier_frames(&b);

    n = one(&b, MUNIN, notice, 2);
    CHECK(coh_payload_check(PL_ARRIVAL, -1, b.p, n) == -1, "Munin's frame in a barrier accepted");
    CHECK(coh_payload_check(PL_GRANT, 5, b.p, n) == -1, "data for a lock with no object bound");
    CHECK(coh_payload_check(PL_RELEASE, 5, b.p, n) == 0, "a lock's data refused at its manager");

    /* LRC: a grant's head is a flag (0 or 1) and a timestamp; a release
     * starts with a timestamp. */
    static const uint32_t head[3] = {1, 0, 0}, bad_flag[3] = {2, 0, 0}, short_vt[1] = {0};
    n = one(&b, LRC, head, 3);
    CHECK(coh_payload_check(PL_GRANT, 0, b.p, n) == 0, "an LRC grant head refused");
    CHECK(coh_payload_check(PL_DEPARTURE, -1, b.p, n) == 0, "an LRC departure head refused");
    n = one(&b, LRC, bad_flag, 3);
    CHECK(coh_payload_check(PL_GRANT, 0, b.p, n) == -1, "an LRC grant flag of 2 accepted");
    n = one(&b, LRC, short_vt, 1);
    CHECK(coh_payload_check(PL_RELEASE, 0, b.p, n) == -1, "a short LRC timestamp accepted");
    CHECK(coh_lock_request_check(b.p, n) == -1, "an LRC request while LRC is not in use");
    CHECK(coh_lock_request_check(NULL, 0) == 0, "an empty request refused");
    pbuf_free(&b);
}

int main(void)
{
    buffer();
    frames();
    protocol_checks();
    return check_done("payload");
}
