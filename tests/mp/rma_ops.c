/* The transport's one-sided interface (transport/rma.h), under whatever
 * backend the line gives: over ucx with TSR_FETCH=direct every peer's
 * segments can be read, a get of a page brings the bytes its home wrote,
 * a put reaches the marks, and what leaves a peer's segments, or writes
 * what the peer did not register for writing, is refused here with -1
 * before any of its batch leaves (the peer's published bounds). Under
 * TSR_DIFF_PUT=onesided a put reaches the peer's pages and an increment
 * its page table's words; under message both are refused. Elsewhere no
 * peer can be read so. */
#include <stddef.h>
/* tsr-test: hlrc */
#include <stdio.h>
#include <string.h>

#include "memory/region.h"
#include "tessera.h"
#include "transport/core.h"
#include "transport/rma.h"
#include "util/config.h"

#define PAGE 4096

static int bad;

static void expect(int cond, const char *what)
{
    if (!cond && bad++ < 10)
        printf("node %d: %s\n", tsr_node(), what);
}

/* Writes to the peer's page p and version words, as a one-sided diff
 * does (TSR_DIFF_PUT=onesided), or finds them refused; a batch with one
 * refused operation writes nothing. */
static void check_writes(int peer, uint32_t p, int writable, char *want)
{
    char buf[PAGE], z = 'Z';
    uint32_t old = 0;
    size_t len;
    transport_exposed(RMA_META, &len);
    uint64_t version = (uint64_t)p * sizeof(page_meta) + offsetof(page_meta, version);
    rma_op refused[2] = {{&z, (uint64_t)p << PAGE_SHIFT, 1, RMA_PAGES, RMA_PUT, 0},
                         {buf, len, 1, RMA_META, RMA_GET, 0}};
    rma_op get = {buf, (uint64_t)p << PAGE_SHIFT, PAGE, RMA_PAGES, RMA_GET, 1};
    expect(transport_rma(peer, refused, 2) == -1 && transport_rma(peer, &get, 1) == 0 &&
               !memcmp(buf, want, PAGE),
           "a batch with an operation off a segment was not refused whole");
    rma_op odd = {&old, version + 1, 4, RMA_META, RMA_INC32, 0};
    expect(transport_rma(peer, &odd, 1) == -1, "an increment of an unaligned word was not refused");
    expect(transport_rma_writable(peer) == writable, "writes are not what the line promises");
    page_meta m;
    rma_op ops[3] = {{&z, (uint64_t)p << PAGE_SHIFT, 1, RMA_PAGES, RMA_PUT, 0},
                     {&old, version, 4, RMA_META, RMA_INC32, 1},
                     {&m, (uint64_t)p * sizeof m, sizeof m, RMA_META, RMA_GET, 1}};
    rma_op flushed[2] = {ops[0], {NULL, 0, 0, RMA_PAGES, RMA_FLUSH, 0}};
    rma_op early[2] = {flushed[1], get};
    expect(transport_rma(peer, early, 2) == -1, "a flush before its batch's end was not refused");
    if (!writable) {
        expect(transport_rma(peer, ops, 1) == -1, "a put to the peer's pages was not refused");
        expect(transport_rma(peer, ops + 1, 1) == -1, "an increment was not refused");
        return;
    }
    want[0] = z;
    expect(transport_rma(peer, flushed, 2) == 0 && transport_rma(peer, &get, 1) == 0 &&
               !memcmp(buf, want, PAGE),
           "a put and a flush ended before the put landed");
    expect(transport_rma(peer, ops, 3) == 0 && transport_rma(peer, &get, 1) == 0 &&
               !memcmp(buf, want, PAGE) && m.version == old + 1,
           "a put to the peer's page and an increment of its version did not land");
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), peer = (me + 1) % n;
    int can = cfg.fetch_direct && n > 1 && !strcmp(transport_name(), "ucx");
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    /* A page homed at each node, which writes it (each allocation is
     * collective: every node makes all of them). */
    char *pages[64];
    for (int i = 0; i < n && i < 64; i++) {
        at.home_node = i;
        pages[i] = tsr_alloc_attr(PAGE, &at);
    }
    memset(pages[me], 'a' + me, PAGE);
    tsr_barrier();
    expect(transport_rma_ready(peer) == can, "one-sided access is not what the line promises");
    if (can) {
        uint32_t p = page_of(pages[peer]);
        size_t len;
        transport_exposed(RMA_PAGES, &len);
        char buf[PAGE], want[PAGE];
        uint8_t one = 1, mark = 0;
        memset(want, 'a' + peer, PAGE);
        rma_op get = {buf, (uint64_t)p << PAGE_SHIFT, PAGE, RMA_PAGES, 0, 0};
        expect(transport_rma(peer, &get, 1) == 0 && !memcmp(buf, want, PAGE),
               "a get of the peer's page did not bring what the peer wrote");
        rma_op past = {buf, len - PAGE / 2, PAGE, RMA_PAGES, 0, 0};
        expect(transport_rma(peer, &past, 1) == -1, "a get past the peer's pages was not refused");
        rma_op wrong = {buf, 0, PAGE, RMA_SEGS, 0, 0};
        expect(transport_rma(peer, &wrong, 1) == -1, "a get of no segment was not refused");
        check_writes(peer, p, cfg.diff_put, want);
        rma_op put_get[2] = {{&one, p, 1, RMA_MARKS, 1, 0}, {&mark, p, 1, RMA_MARKS, 0, 1}};
        expect(transport_rma(peer, put_get, 2) == 0 && mark == 1,
               "a put to a mark, fenced before its get, was not read back");
    }
    tsr_barrier();
    tsr_finalize();
    if (!bad)
        printf("rma_ops: node %d ok (%s)\n", me, can ? "one-sided" : "none");
    return bad != 0;
}
