/*
 * dispatch.c - libFuzzer target: random bytes as a received message (a
 * 32-byte header, then the payload) through am_dispatch, the checks every
 * message passes before a handler runs (msg.h's rules, request ids).
 *
 * The runtime is the transport alone: four nodes, a region of PAGES pages,
 * stub handlers that read every payload byte they are given (AddressSanitizer
 * then sees a length that does not match the buffer), and a few requests
 * outstanding, so that replies can match. A handler that runs checks that
 * its message keeps the rule dispatch promised.
 */
#include <stdint.h>
#include <string.h>

#include "transport/request.h"
#include "transport/transport.h"
#include "util/config.h"

#define PAGES 1000
#define NODES 4

static volatile uint8_t sink;

static void stub(int src, const tsr_msg_hdr *h, void *payload)
{
    const uint8_t *p = payload;
    for (uint32_t i = 0; i < h->len; i++)
        sink ^= p[i];
    if (h->src != src || src >= NODES)
        __builtin_trap();
}

static void setup(void)
{
    cfg.node = 0;
    cfg.nodes = NODES;
    am_init();
    am_limit_pages(PAGES);
    for (int t = 0; t < MSG_COUNT; t++)
        am_register(t, stub);
    static const int replies[] = {MSG_PAGE_REP, MSG_DIFF_ACK, MSG_MU_GRANT, MSG_ECHO_REP};
    static int ctx;
    for (int i = 0; i < 8; i++)
        req_open(i % NODES, replies[i % 4], &ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    tsr_msg_hdr h;
    if (size < sizeof h)
        return 0;
    memcpy(&h, data, sizeof h);
    /* The backend delivers exactly the payload the header announced. */
    h.len = (uint32_t)(size - sizeof h);
    am_dispatch(h.src % NODES, &h, (void *)(data + sizeof h));
    return 0;
}
