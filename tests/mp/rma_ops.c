/* The transport's one-sided interface (transport/rma.h), under whatever
 * backend the line gives: over ucx with TSR_FETCH=direct every peer's
 * segments can be read, a get of a page brings the bytes its home wrote,
 * a put reaches the marks, and what leaves a peer's segments, or writes
 * anything but its marks, is refused here with -1 before it leaves (the
 * peer's published bounds). Elsewhere no peer can be read so. */
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
        rma_op write_page = {&one, (uint64_t)p << PAGE_SHIFT, 1, RMA_PAGES, 1, 0};
        expect(transport_rma(peer, &write_page, 1) == -1,
               "a put to the peer's pages was not refused");
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
