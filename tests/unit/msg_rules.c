/* The checks every received message passes (transport/am.c, msg.h) and the
 * request-id table (transport/request.c), in-process with stub handlers:
 * each kind of rule accepts the edge of its range and rejects one past it;
 * a reply reaches its handler only for an outstanding id, from the node
 * asked and of the type due; a duplicate is dropped. */
#include "check.h"
#include "stats/stats.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "util/config.h"

#define PAGES 100

static int handled;

static void stub(int src, const tsr_msg_hdr *h, void *payload) { handled++; }

static uint64_t counter(const char *name)
{
    uint64_t v = 0;
    tsr_counter_get(name, &v);
    return v;
}

static int accepted(int type, uint32_t len, uint64_t a0, uint64_t a1, uint64_t a2)
{
    tsr_msg_hdr h = {len, (uint16_t)type, 1, {a0, a1, a2}, 0};
    return am_check(1, &h) == 0;
}

static void header_rules(void)
{
    uint64_t before = counter("messages_rejected");
    CHECK(!accepted(MSG_COUNT, 0, 0, 0, 0), "an unknown type accepted");
    tsr_msg_hdr forged_src = {0, MSG_LOCK_ACQ, 2, {0, 0, 0}, 0};
    CHECK(am_check(1, &forged_src), "a header naming another sender accepted");
    CHECK(accepted(MSG_LOCK_ACQ, 0, TSR_MAX_LOCKS - 1, 0, 0), "the last lock refused");
    CHECK(!accepted(MSG_LOCK_ACQ, 0, TSR_MAX_LOCKS, 0, 0), "a lock id past the end accepted");
    CHECK(!accepted(MSG_ADOPT_REQ, 8, 1, 0, 0), "a payload on an empty type accepted");
    CHECK(accepted(MSG_PAGE_REQ, 0, PAGES - 1, 0, 0), "the last page refused");
    CHECK(!accepted(MSG_PAGE_REQ, 0, PAGES, 0, 0), "a page off the region accepted");
    CHECK(accepted(MSG_MU_REQ, 0, PAGES - 1 + (7ull << 32), 0, 0), "packed page refused");
    CHECK(!accepted(MSG_MU_REQ, 0, PAGES + (7ull << 32), 0, 0), "packed page off the region");
    CHECK(accepted(MSG_DIFF_ACK, 16, 2, 0, 0) && !accepted(MSG_DIFF_ACK, 15, 2, 0, 0) &&
              !accepted(MSG_DIFF_ACK, 8, 1ull << 32, 0, 0),
          "exact length per entry");
    CHECK(accepted(MSG_DIFF, MSG_DIFF_ENTRY_MAX, 1, 0, 0) &&
              !accepted(MSG_DIFF, MSG_DIFF_ENTRY_MAX + 1, 1, 0, 0),
          "length at most per entry");
    CHECK(accepted(MSG_DIFF, 0, PAGES, 0, 0) && !accepted(MSG_DIFF, 0, PAGES + 1, 0, 0),
          "entry count bounded by the region");
    CHECK(accepted(MSG_LOCK_REL, MSG_FRAMES_MAX, 1, 0, 0) &&
              !accepted(MSG_LOCK_REL, (size_t)MSG_FRAMES_MAX + 1, 1, 0, 0),
          "synchronization frames bounded");
    CHECK(accepted(MSG_PAGE_REP, MSG_FETCH_MAX * (4 + MSG_PAGE), 0, 0, 0) &&
              !accepted(MSG_PAGE_REP, MSG_FETCH_MAX * (4 + MSG_PAGE) + 1, 0, 0, 0),
          "maximum length");
    CHECK(accepted(MSG_ABORT, 0, (uint64_t)-1, 0, 0) && accepted(MSG_ABORT, 0, 3, 0, 0) &&
              !accepted(MSG_ABORT, 0, 4, 0, 0),
          "node range");
    CHECK(counter("messages_rejected") - before == 13, "%llu rejections counted, want 13",
          (unsigned long long)(counter("messages_rejected") - before));
}

static void dispatch_reply(int src, int type, uint64_t id)
{
    tsr_msg_hdr h = {0, (uint16_t)type, (uint16_t)src, {0, id, 0}, 0};
    am_dispatch(src, &h, NULL);
}

static void request_ids(void)
{
    int ctx;
    uint64_t id = req_open(2, MSG_MU_REDUCE_REP, &ctx);
    uint64_t rejected = counter("messages_rejected"), dropped = counter("replies_dropped");
    CHECK(id != 0 && req_ctx(id) == &ctx, "id %llu does not give its context",
          (unsigned long long)id);
    handled = 0;
    dispatch_reply(3, MSG_MU_REDUCE_REP, id);    /* from a node not asked */
    dispatch_reply(2, MSG_ADOPT_REP, id);        /* of another type */
    dispatch_reply(2, MSG_MU_REDUCE_REP, id + 1); /* another id */
    dispatch_reply(2, MSG_MU_REDUCE_REP, 0);
    CHECK(handled == 0, "%d forged replies reached the handler", handled);
    CHECK(counter("messages_rejected") - rejected == 2, "forged replies not rejected");
    CHECK(counter("replies_dropped") - dropped == 2, "unknown ids not dropped");
    dispatch_reply(2, MSG_MU_REDUCE_REP, id);    /* the true reply, still outstanding */
    CHECK(handled == 1, "the true reply did not reach the handler");
    req_close(id);
    dispatch_reply(2, MSG_MU_REDUCE_REP, id);    /* its duplicate */
    CHECK(handled == 1 && counter("replies_dropped") - dropped == 3, "a duplicate was handled");
    uint64_t again = req_open(2, MSG_MU_REDUCE_REP, &ctx);
    CHECK(again != id && req_ctx(id) == NULL, "a closed id came back");
    CHECK(req_outstanding() == 1, "%u requests open, want 1", req_outstanding());
    req_close(again);
    CHECK(req_outstanding() == 0, "a closed request is still open");
}

/* Themis' packed segment arguments: segment ids below MSG_GA_SEGS, read
 * lengths of 1 to MSG_GA_CHUNK bytes, write payloads up to a chunk. */
static void ga_rules(void)
{
    uint64_t seg_last = MSG_GA_SEGS - 1, len1 = 1ull << 16, seq = 7ull << 32;
    CHECK(accepted(MSG_GA_GET, 0, 0, 0, seg_last | len1 | seq), "the last segment refused");
    CHECK(!accepted(MSG_GA_GET, 0, 0, 0, MSG_GA_SEGS | len1), "a segment past the end accepted");
    CHECK(!accepted(MSG_GA_GET, 0, 0, 0, 3), "a read of no bytes accepted");
    CHECK(accepted(MSG_GA_GET, 0, 0, 0, 3 | (uint64_t)MSG_GA_CHUNK << 16) &&
              !accepted(MSG_GA_GET, 0, 0, 0, 3 | (uint64_t)(MSG_GA_CHUNK + 1) << 16),
          "read length at most a chunk");
    CHECK(!accepted(MSG_GA_GET, 8, 0, 0, 3 | len1), "a payload on a read accepted");
    CHECK(accepted(MSG_GA_PUT, MSG_GA_CHUNK, 0, 0, seg_last | 0xffull << 16) &&
              !accepted(MSG_GA_PUT, MSG_GA_CHUNK + 1, 0, 0, 0),
          "write payload at most a chunk");
    CHECK(!accepted(MSG_GA_PUT, 8, 0, 0, MSG_GA_SEGS), "a write to a segment past the end");
    CHECK(!accepted(MSG_GA_PUT_ACK, 8, 0, 0, 0), "a payload on a write acknowledgement");
}

int main(void)
{
    cfg.node = 0;
    cfg.nodes = 4;
    am_init();
    am_limit_pages(PAGES);
    for (int t = 0; t < MSG_COUNT; t++)
        am_register(t, stub);
    header_rules();
    ga_rules();
    request_ids();
    return check_done("msg_rules");
}
