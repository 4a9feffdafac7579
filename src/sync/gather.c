/*
 * gather.c - a barrier's arrivals climb the tree its departure comes down
 * (tree.h). Each node gathers its own arrival and those of the parts its
 * children head, and once all of its part is in sends its parent one
 * MSG_BARRIER_ARRIVE: the counters of messages sent, summed, and one entry
 * per node. So node 0 reads at most TREE_DEGREE arrivals a barrier where
 * it read N - 1 (each with N counters: 4 MB at 1,024 nodes), and no node
 * more; the arrivals take as many rounds up as the departure takes down.
 *
 * The entries keep each node's call and frames as it made them: node 0
 * checks the calls against each other and merges the frames (barrier.c),
 * as when every node sent its own; an inner node reads the frames only to
 * check them, since what the protocols merge (notices, intervals) is
 * theirs. Every node's comm thread does the gathering, node 0's included;
 * a node's own arrival comes from its application thread as a message to
 * itself, uncounted.
 *
 * Two cases send before the part is complete. A protocol may need each
 * arrival at node 0 as it comes (coh_barrier_eager: LRC's collection round
 * counts a node waiting in a barrier as taking part, and the round must
 * end before the nodes in it can arrive); its round's start flushes what
 * is gathered (gather_flush). And node 0 takes any entries of a child's
 * part in any number of messages; it alone knows who has arrived. A node
 * parked for a fork (barrier.c) sleeps through the barrier after the one it
 * parked at, with every other node but the root: nothing is gathered for
 * that one below the root, and its MSG_FORK moves this node on.
 */
#include <stdlib.h>
#include <string.h>

#include "coherence/coherence.h"
#include "stats/stats.h"
#include "sync/gather.h"
#include "sync/tree.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(arrivals_sent, "barrier arrivals sent to another node (MSG_BARRIER_ARRIVE, each "
                             "for the part of the tree the sender heads)");
STATS_COUNTER(arrivals_received, "barrier arrivals received from another node");

#define ROOT 0

/* An entry: node, park, frames' length, zero, the call, the frames padded
 * to 8. */
#define ENTRY_HEAD (4 * sizeof(uint32_t) + sizeof(coll_sig))

/* The comm thread's (handlers run one at a time). This node heads
 * [cfg.node, hi) and gathers barrier `epoch`: have[j - cfg.node] once
 * node j's arrival came; `sent` sums and `entries` holds those not yet
 * sent up. seen[]: the nodes of the message being checked. */
static struct {
    int parent, hi;
    uint64_t epoch;
    unsigned char *have;
    int nhave, npending, eager;
    uint32_t *sent;
    pbuf entries;
    unsigned char *seen;
} up;

static size_t counts_len(void) { return ((size_t)cfg.nodes * sizeof(uint32_t) + 7) & ~(size_t)7; }

static size_t padded8(size_t n) { return (n + 7) & ~(size_t)7; }

static void put_entry(pbuf *m, const arrival *a)
{
    static const char zero[8];
    uint32_t hd[4] = {(uint32_t)a->node, a->park, (uint32_t)a->len, 0};
    pbuf_put(m, hd, sizeof hd);
    pbuf_put(m, &a->sig, sizeof a->sig);
    pbuf_put(m, a->frames, a->len);
    pbuf_put(m, zero, padded8(a->len) - a->len);
}

/* The entry at *at of a message whose entries end at `end`: 0, or -1 if
 * it does not fit. */
static int take_entry(const char **at, const char *end, arrival *a)
{
    uint32_t hd[4];
    if ((size_t)(end - *at) < ENTRY_HEAD)
        return -1;
    memcpy(hd, *at, sizeof hd);
    memcpy(&a->sig, *at + sizeof hd, sizeof a->sig);
    *at += ENTRY_HEAD;
    if (hd[3] || padded8(hd[2]) > (size_t)(end - *at))
        return -1;
    *a = (arrival){(int)hd[0], hd[1], a->sig, *at, hd[2]};
    *at += padded8(hd[2]);
    return 0;
}

/* The part [lo, hi) that `src` heads below this node (src itself, or a
 * child): 0, or -1 if src is neither. */
static int part_of(int src, int *lo, int *hi)
{
    if (src == cfg.node) {
        *lo = src;
        *hi = src + 1;
        return 0;
    }
    int child[TREE_DEGREE], child_hi[TREE_DEGREE];
    int k = tree_children(cfg.node, up.hi, child, child_hi);
    for (int c = 0; c < k; c++)
        if (child[c] == src) {
            *lo = src;
            *hi = child_hi[c];
            return 0;
        }
    return -1;
}

/* The rules of an entry wherever it arrives: a node of the sender's part,
 * not yet in, a park flag as barrier.c allows them, frames the protocols
 * accept; at the root, barrier.c's own. */
static const char *entry_refused(uint64_t epoch, int lo, int hi, const arrival *a)
{
    if (a->node < lo || a->node >= hi)
        return "an arrival of a node outside the part of the tree its sender heads";
    if (up.seen[a->node] || (cfg.node != ROOT && up.have[a->node - cfg.node]))
        return "a second arrival of one node at one barrier";
    uint32_t park = a->park;
    uint64_t kind = a->sig.kind;
    if (park > 1 || (park && a->node == ROOT) || (kind == COLL_SERVE && !park) ||
        (park && kind != COLL_SERVE && kind != COLL_JOIN))
        return "a park flag other than 0 or 1, from the root, or not on tsr_serve's or "
               "tsr_join's arrival";
    if (coh_payload_check(PL_ARRIVAL, -1, a->frames, a->len))
        return "a malformed arrival";
    return cfg.node == ROOT ? barrier_refuses(epoch, a) : NULL;
}

/* The barrier a message may be for: the one gathered, or, with nothing of
 * it in yet, the next (a child woken by its MSG_FORK before this node by
 * its own). */
static const char *epoch_refused(uint64_t epoch)
{
    if (cfg.node == ROOT || epoch == up.epoch)
        return NULL;
    if (epoch == up.epoch + 1 && !up.nhave) {
        up.epoch = epoch;
        return NULL;
    }
    return "an arrival at another barrier than the one this node gathers";
}

static const char *message_refused(int src, const tsr_msg_hdr *h, const char *payload)
{
    int lo, hi;
    if (part_of(src, &lo, &hi))
        return "an arrival neither from this node nor from a child of it in the tree";
    if (h->arg[1] < 1 || h->arg[1] > (uint64_t)(hi - lo) || h->len < counts_len())
        return "an arrival whose count of entries is not that of its sender's part";
    const char *why = epoch_refused(h->arg[0]);
    const char *at = payload + counts_len(), *end = payload + h->len;
    arrival a;
    for (uint64_t k = 0; !why && k < h->arg[1]; k++) {
        why = take_entry(&at, end, &a) ? "a malformed arrival" : entry_refused(h->arg[0], lo, hi, &a);
        if (!why)
            up.seen[a.node] = 1;
    }
    if (!why && at != end)
        why = "an arrival longer than its entries";
    at = payload + counts_len();
    for (uint64_t k = 0; k < h->arg[1] && !take_entry(&at, end, &a); k++)
        if (a.node >= 0 && a.node < cfg.nodes)
            up.seen[a.node] = 0;
    return why;
}

static void send_up(void)
{
    pbuf m = {0};
    pbuf_put(&m, up.sent, counts_len());
    pbuf_put(&m, up.entries.p, up.entries.len);
    am_send(up.parent, MSG_BARRIER_ARRIVE, up.epoch, (uint64_t)up.npending, 0, m.p, m.len);
    COUNTER_ADD(arrivals_sent, 1);
    pbuf_free(&m);
    memset(up.sent, 0, counts_len());
    up.entries.len = 0;
    up.npending = 0;
}

/* Below the root: keeps the entries, and sends them up once the part is
 * in, or at once when a protocol needs them at the root now. */
static void keep(const uint32_t *sent, const char *at, const char *end, uint64_t n)
{
    for (int j = 0; j < cfg.nodes; j++)
        up.sent[j] += sent[j];
    for (uint64_t k = 0; k < n; k++) {
        arrival a;
        take_entry(&at, end, &a);
        up.have[a.node - cfg.node] = 1;
        up.nhave++;
        up.npending++;
        put_entry(&up.entries, &a);
    }
    int complete = up.nhave == up.hi - cfg.node;
    if (complete || up.eager || coh_barrier_eager())
        send_up();
    if (complete) {
        memset(up.have, 0, (size_t)(up.hi - cfg.node));
        up.nhave = up.eager = 0;
        up.epoch++;
    }
}

static void on_arrive(int src, const tsr_msg_hdr *h, void *payload)
{
    const char *why = message_refused(src, h, payload);
    if (why) {
        am_reject(src, h, "%s", why);
        return;
    }
    if (src != cfg.node)
        COUNTER_ADD(arrivals_received, 1);
    uint32_t *sent = malloc(counts_len());
    if (!sent)
        log_die_status(1, "out of memory (barrier)");
    memcpy(sent, payload, counts_len());
    const char *at = (const char *)payload + counts_len(), *end = (const char *)payload + h->len;
    if (cfg.node != ROOT) {
        keep(sent, at, end, h->arg[1]);
    } else {
        barrier_counted(sent);
        for (uint64_t k = 0; k < h->arg[1]; k++) {
            arrival a;
            take_entry(&at, end, &a);
            barrier_arrived(&a);
        }
    }
    free(sent);
}

void gather_arrive(uint64_t epoch, uint32_t park, const uint32_t *sent, const coll_sig *sig,
                   const pbuf *frames)
{
    pbuf m = {0};
    pbuf_put(&m, sent, (size_t)cfg.nodes * sizeof *sent);
    static const char zero[8];
    pbuf_put(&m, zero, counts_len() - (size_t)cfg.nodes * sizeof *sent);
    put_entry(&m, &(arrival){cfg.node, park, *sig, frames->p, frames->len});
    am_send(cfg.node, MSG_BARRIER_ARRIVE, epoch, 1, 0, m.p, m.len);
    pbuf_free(&m);
}

void gather_skip(uint64_t next)
{
    if (cfg.node != ROOT && next > up.epoch && !up.nhave)
        up.epoch = next;
}

void gather_flush(void)
{
    if (cfg.node == ROOT)
        return;
    up.eager = 1;
    if (up.npending)
        send_up();
}

void gather_init(void)
{
    tree_place(cfg.node, cfg.nodes, &up.parent, &up.hi);
    up.have = calloc((size_t)(up.hi - cfg.node), 1);
    up.seen = calloc((size_t)cfg.nodes, 1);
    up.sent = calloc(1, counts_len());
    if (!up.have || !up.seen || !up.sent)
        log_die("out of memory (barrier)");
    stats_register(&arrivals_sent);
    stats_register(&arrivals_received);
    am_register(MSG_BARRIER_ARRIVE, on_arrive);
}
