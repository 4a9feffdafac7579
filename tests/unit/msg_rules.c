/* The checks every received message passes (transport/am.c, msg.h) and the
 * request-id table (transport/request.c), in-process with stub handlers:
 * each kind of rule accepts the edge of its range and rejects one past it;
 * every argument rule passes its first and last value and rejects the next
 * one, -1 and the largest 64-bit value; a length rule rejects a count whose
 * product wraps; a reply reaches its handler only for an outstanding id,
 * from the node asked and of the type due; a duplicate is dropped. */
#include "check.h"
#include "stats/stats.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "util/config.h"

#define PAGES 100
#define NODES 4

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
    CHECK(counter("messages_rejected") - before == 12, "%llu rejections counted, want 12",
          (unsigned long long)(counter("messages_rejected") - before));
}

/* One argument rule at its edges: `ok` values pass, `bad` ones are
 * rejected and counted, in argument `arg` of `type`. */
static void edges(const char *rule, int type, int arg, const uint64_t *ok, int nok,
                  const uint64_t *bad, int nbad)
{
    uint64_t before = counter("messages_rejected");
    for (int i = 0; i < nok + nbad; i++) {
        uint64_t a[3] = {0, 1, 0}, v = i < nok ? ok[i] : bad[i - nok];
        a[arg] = v;
        CHECK(accepted(type, 0, a[0], a[1], a[2]) == (i < nok), "%s: %#llx %s", rule,
              (unsigned long long)v, i < nok ? "refused" : "accepted");
    }
    CHECK(counter("messages_rejected") - before == (uint64_t)nbad, "%s: %llu rejections, want %d",
          rule, (unsigned long long)(counter("messages_rejected") - before), nbad);
}

#define EDGES(rule, type, arg, ok, bad) \
    edges(rule, type, arg, ok, sizeof ok / sizeof *ok, bad, sizeof bad / sizeof *bad)

/* Every argument rule: the first and last value it accepts, the next one
 * out, -1 and the largest 64-bit value (NODES nodes, PAGES pages). */
static void argument_edges(void)
{
    const uint64_t none = UINT64_MAX, two = UINT64_MAX - 1;
    const uint64_t page_ok[] = {0, PAGES - 1}, page_bad[] = {PAGES, none, 1ull << 32};
    EDGES("ARG_PAGE", MSG_ADOPT_REQ, 0, page_ok, page_bad);
    const uint64_t p32_ok[] = {0, PAGES - 1, (PAGES - 1) | 0xffffull << 32};
    const uint64_t p32_bad[] = {PAGES, none, 0xffffffffull};
    EDGES("ARG_PAGE32", MSG_MU_INVAL, 0, p32_ok, p32_bad);
    const uint64_t count_ok[] = {0, PAGES}, count_bad[] = {PAGES + 1, none, 1ull << 32};
    EDGES("ARG_COUNT", MSG_DIFF, 0, count_ok, count_bad);
    const uint64_t lock_ok[] = {0, MSG_PROGRAM_LOCKS - 1, MSG_FLAG_LOCKS,
                                MSG_FLAG_LOCKS + MSG_FLAGS - 1};
    const uint64_t lock_bad[] = {MSG_PROGRAM_LOCKS, MSG_FLAG_LOCKS - 1, MSG_FLAG_LOCKS + MSG_FLAGS,
                                 none, MSG_FLAG_LOCKS | 1ull << 32};
    EDGES("ARG_LOCK", MSG_LOCK_GRANT, 0, lock_ok, lock_bad);
    const uint64_t node_ok[] = {0, NODES - 1}, node_bad[] = {NODES, none, two, 1ull << 32};
    EDGES("ARG_NODE", MSG_LOCK_FWD, 1, node_ok, node_bad);
    EDGES("ARG_NODE (bounce)", MSG_LOCK_BOUNCE, 1, node_ok, node_bad);
    EDGES("ARG_NODE (tree root)", MSG_TREE, 1, node_ok, node_bad);
    const uint64_t all_ok[] = {0, NODES - 1, none}, all_bad[] = {NODES, two, 0xffffffffull};
    EDGES("ARG_NODE_OR_ALL", MSG_ABORT, 0, all_ok, all_bad);
    const uint64_t u32_ok[] = {0, UINT32_MAX}, u32_bad[] = {1ull << 32, none};
    EDGES("ARG_U32 (cycle)", MSG_LOCK_ACQ, 1, u32_ok, u32_bad);
    EDGES("ARG_U32 (forwarded cycle)", MSG_LOCK_FWD, 2, u32_ok, u32_bad);
    EDGES("ARG_U32 (epoch)", MSG_LOCK_REL, 2, u32_ok, u32_bad);
    EDGES("ARG_U32 (expected)", MSG_BARRIER_DONE, 1, u32_ok, u32_bad);
    EDGES("ARG_U32 (fork epoch)", MSG_FORK, 0, u32_ok, u32_bad);
    EDGES("ARG_U32 (round)", MSG_LRC_GC_START, 0, u32_ok, u32_bad);
    const uint64_t flag_ok[] = {0, MSG_FLAGS - 1}, flag_bad[] = {MSG_FLAGS, none};
    EDGES("ARG_FLAG", MSG_FLAG_SET, 0, flag_ok, flag_bad);
    const uint64_t slot_ok[] = {0, MSG_PROGRAM_LOCKS + MSG_FLAGS - 1, none};
    const uint64_t slot_bad[] = {MSG_PROGRAM_LOCKS + MSG_FLAGS, two, 0xffffffffull};
    EDGES("ARG_LOCK_OR_NONE", MSG_WHERE_ASK, 1, slot_ok, slot_bad);
}

/* The length rules at their edges, with counts that would wrap a 32-bit
 * product. */
static void length_edges(void)
{
    uint64_t before = counter("messages_rejected");
    CHECK(accepted(MSG_PAGE_PUSH, 8 + MSG_PAGE, 0, 0, 0) &&
              !accepted(MSG_PAGE_PUSH, 9 + MSG_PAGE, 0, 0, 0) &&
              !accepted(MSG_PAGE_PUSH, UINT32_MAX, 0, 0, 0),
          "LEN_MAX edges");
    CHECK(accepted(MSG_DIFF_ACK, 0, 0, 0, 0) && accepted(MSG_DIFF_ACK, 8 * PAGES, PAGES, 0, 0) &&
              !accepted(MSG_DIFF_ACK, 8, 0, 0, 0),
          "LEN_EACH edges");
    /* 0x20000001 entries of 8 bytes is 8 in 32 bits: a count that wraps. */
    CHECK(!accepted(MSG_DIFF_ACK, 8, 0x20000001ull, 0, 0), "LEN_EACH: a wrapped product accepted");
    CHECK(accepted(MSG_LRC_DIFF_REP, 0, 0, 0, 0) &&
              accepted(MSG_LRC_DIFF_REP, 12 + MSG_DIFF_ENTRY_MAX, 0, 0, 1) &&
              !accepted(MSG_LRC_DIFF_REP, 13 + MSG_DIFF_ENTRY_MAX, 0, 0, 1) &&
              !accepted(MSG_LRC_DIFF_REP, 1, 0, 0, 0),
          "LEN_UPTO_EACH edges");
    CHECK(!accepted(MSG_LRC_DIFF_REP, 12, 0, 0, 1ull << 32), "LEN_UPTO_EACH: count past 32 bits");
    CHECK(counter("messages_rejected") - before == 7, "%llu length rejections, want 7",
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
    cfg.nodes = NODES;
    am_init();
    am_limit_pages(PAGES);
    for (int t = 0; t < MSG_COUNT; t++)
        am_register(t, stub);
    header_rules();
    argument_edges();
    length_edges();
    ga_rules();
    request_ids();
    return check_done("msg_rules");
}
