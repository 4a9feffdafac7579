/*
 * multicast.c - one message to many nodes (multicast.h).
 *
 * The tree is binomial over the list [root, dests...]: position i passes
 * the message to positions i + 2^k for every 2^k > i, so the root sends
 * about log2(n) copies, every other node at most as many, and the last
 * node is reached after about log2(n) hops. The list travels with the
 * message; each receiver checks that it came from its parent in the list,
 * so a forged list cannot make a node receive it twice or loop.
 */
#include "multicast/multicast.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(multicast_sends, "messages sent for multicasts begun here (TSR_MULTICAST)");
STATS_COUNTER(multicast_forwards, "messages passed on down multicast trees begun elsewhere");

#define TREE_MAX_NODES 4096
static uint8_t allowed[MSG_COUNT];

/* The tree message's head: the inner arguments and the node list. */
static size_t head_bytes(uint32_t n) { return 24 + (((size_t)n * 2 + 7) & ~(size_t)7); }

/* Sends the tree message (head + inner payload, as it came) to the
 * children of list position `at`. */
static void pass_on(const tsr_msg_hdr *h, const void *tree, const uint16_t *list, uint32_t n,
                    uint32_t at, stats_counter *count)
{
    for (uint32_t step = 1; step < n; step <<= 1) {
        if (step <= at || at + step >= n)
            continue;
        am_send(list[at + step], MSG_TREE, h->arg[0], h->arg[1], h->arg[2], tree, h->len);
        COUNTER_ADD(*count, 1);
    }
}

static void send_tree(const int *dests, int n, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                      const void *payload, size_t len)
{
    uint32_t nodes = (uint32_t)n + 1;
    size_t head = head_bytes(nodes);
    char *tree = calloc(1, head + len);
    if (!tree)
        log_die("out of memory (multicast of %zu bytes)", len);
    uint64_t args[3] = {a0, a1, a2};
    memcpy(tree, args, sizeof args);
    uint16_t *list = (uint16_t *)(tree + 24);
    list[0] = (uint16_t)cfg.node;
    for (int i = 0; i < n; i++)
        list[i + 1] = (uint16_t)dests[i];
    memcpy(tree + head, payload, len);
    tsr_msg_hdr h = {(uint32_t)(head + len), MSG_TREE, (uint16_t)cfg.node,
                     {(uint64_t)type, (uint64_t)cfg.node, nodes}, 0};
    pass_on(&h, tree, list, nodes, 0, &multicast_sends);
    free(tree);
}

/* This node's position in a received list, or 0 when the list is not a
 * tree that reaches this node from src (0 is the root's). */
static uint32_t position(int src, const tsr_msg_hdr *h, const uint16_t *list, uint32_t n)
{
    uint8_t seen[TREE_MAX_NODES] = {0};
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (list[i] >= cfg.nodes || seen[list[i]]++)
            return 0;
        if (list[i] == cfg.node)
            at = i;
    }
    if (!at || list[0] != h->arg[1])
        return 0;
    uint32_t parent = at;
    while (parent & (parent - 1))
        parent &= parent - 1; /* the highest power of two in `at` */
    return list[at - parent] == src ? at : 0;
}

static void on_tree(int src, const tsr_msg_hdr *h, void *payload)
{
    uint64_t type = h->arg[0], n = h->arg[2];
    if (type >= MSG_COUNT || !allowed[type] || n < 2 || n > (uint64_t)cfg.nodes ||
        h->len < head_bytes((uint32_t)n)) {
        am_reject(src, h, "not a multicast type, or a node list of the wrong size");
        return;
    }
    const uint16_t *list = (const uint16_t *)((const char *)payload + 24);
    uint32_t at = position(src, h, list, (uint32_t)n);
    if (!at) {
        am_reject(src, h, "a node list that is no tree reaching this node from the sender");
        return;
    }
    pass_on(h, payload, list, (uint32_t)n, at, &multicast_forwards);
    tsr_msg_hdr inner = {(uint32_t)(h->len - head_bytes((uint32_t)n)), (uint16_t)type,
                         (uint16_t)list[0], {0, 0, 0}, 0};
    memcpy(inner.arg, payload, sizeof inner.arg);
    am_deliver(list[0], &inner, (char *)payload + head_bytes((uint32_t)n));
}

void mc_check(void)
{
    if (cfg.multicast == MULTICAST_IP && !am_multicast_native())
        log_die("TSR_MULTICAST=ip: the transport (TSR_TRANSPORT) has no multicast; use "
                "TSR_MULTICAST=tree, or a transport with it (docs/OMPNOW.md)");
}

void mc_init(void)
{
    stats_register(&multicast_sends);
    stats_register(&multicast_forwards);
    am_register(MSG_TREE, on_tree);
}

void mc_allow(int type) { allowed[type] = 1; }

void mc_send(const int *dests, int n, int type, uint64_t a0, uint64_t a1, uint64_t a2,
             const void *payload, size_t len)
{
    if (len > MC_MAX_BYTES)
        log_die("multicast of %zu bytes: more than %u", len, MC_MAX_BYTES);
    if (cfg.multicast == MULTICAST_TREE && n > 1) {
        send_tree(dests, n, type, a0, a1, a2, payload, len);
        return;
    }
    COUNTER_ADD(multicast_sends, cfg.multicast == MULTICAST_IP ? 1 : n);
    am_multicast(dests, n, type, a0, a1, a2, payload, len);
}

void mc_send_others(int except, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                    const void *payload, size_t len)
{
    int *dests = malloc((size_t)cfg.nodes * sizeof *dests), n = 0;
    if (!dests)
        log_die_status(1, "out of memory (multicast)");
    for (int node = 0; node < cfg.nodes; node++)
        if (node != cfg.node && node != except)
            dests[n++] = node;
    mc_send(dests, n, type, a0, a1, a2, payload, len);
    free(dests);
}
