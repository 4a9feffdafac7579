/*
 * sync.c - libFuzzer target: sequences of lock and barrier messages from
 * the job's other nodes, through the real receive path (the TCP backend
 * and its byte stream, am_dispatch's rules) to the real handlers of
 * sync/lock.c and sync/barrier.c, with the protocols' payload checks
 * behind them. Node 0 is both a lock manager and the barrier root and
 * never takes a lock itself; its three peers are the far ends of socket
 * pairs, which this target writes and reads.
 *
 * The state checks (who holds, who asked, who owes a bounce, who arrived)
 * only show over several messages, so each input is a sequence of records,
 * each one message:
 *
 *   u8 type (one of the synchronization types), u8 sender (1..3),
 *   u8 wide, u8 payload length, u64 arg[3], then the payload.
 *
 * Argument i is the record's whole 64-bit value if bit i of `wide` is set
 * (-1, the job's size, a huge id, a wrapped count: the rules of msg.h must
 * stop them), else that value reduced to the small range the state checks
 * need (lock % 8, node % 4, cycle % 4; epoch % 2 for barrier messages).
 *
 * Arrivals all carry the same collective call (a zero signature). After
 * each input, every peer sends an echo request and reads until its
 * answer: by then node 0 has handled everything the peer sent. The state
 * carries from one input to the next, as a running node's would.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot.h"
#include "coherence/protocol.h"
#include "memory/region.h"
#include "sync/stall.h"
#include "sync/sync.h"
#include "transport/core.h"
#include "transport/stream.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/io.h"

#define PAGES 64
#define NODES 4

static int far_end[NODES];

static const int types[] = {MSG_LOCK_ACQ,   MSG_LOCK_FWD,      MSG_LOCK_BOUNCE,
                            MSG_LOCK_GRANT, MSG_LOCK_REL,      MSG_LOCK_PEEK,
                            MSG_LOCK_DATA,  MSG_BARRIER_ARRIVE, MSG_BARRIER_DONE,
                            MSG_FLAG_SET,   MSG_FLAG_CLEAR,    MSG_FLAG_WAIT,
                            MSG_FLAG_UP,    MSG_WHERE_ASK,     MSG_WHERE,
                            MSG_LOCK_TRY,   MSG_LOCK_REFUSED};

static void setup(void)
{
    static int peer_fd[NODES];
    cfg.node = 0;
    cfg.nodes = NODES;
    cfg.heartbeat_s = 0;
    cfg.transport = TRANSPORT_TCP;
    cfg.send_queue = (size_t)1 << 30;
    region.npages = PAGES;
    peer_fd[0] = -1;
    for (int j = 1; j < NODES; j++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
            abort();
        peer_fd[j] = sv[0];
        far_end[j] = sv[1];
    }
    boot = (tsr_boot){.peer_fd = peer_fd, .listen_fd = -1, .launcher_fd = -1};
    boot.gate.listen_fd = -1;
    am_init();
    am_limit_pages(PAGES);
    lrc_protocol.init();
    lock_init();
    barrier_init();
    flag_init();
    stall_init();
    transport_start();
}

/* Writes one message from peer src to node 0, as src's stream would. */
static void send_from(int src, int type, const uint64_t arg[3], const void *payload, uint32_t len)
{
    static char buf[STREAM_BYTES(255)];
    tsr_msg_hdr h = {len, (uint16_t)type, (uint16_t)src, {arg[0], arg[1], arg[2]}, 0};
    memset(buf, 0, sizeof buf);
    memcpy(buf, &h, sizeof h);
    if (len)
        memcpy(buf + STREAM_HDR, payload, len);
    if (io_write_all(far_end[src], buf, STREAM_BYTES(len)))
        abort();
}

/* Peer src's echo comes back once node 0 has handled all src sent; what
 * node 0 sent src meanwhile (grants, forwards, answers) is read and dropped. */
static void settle(int src)
{
    static const uint64_t args[3] = {0, 0, 0};
    send_from(src, MSG_ECHO_REQ, args, NULL, 0);
    for (;;) {
        tsr_msg_hdr h;
        if (io_read_full(far_end[src], &h, sizeof h, now_s() + 10))
            abort(); /* node 0 stopped answering: a hang */
        size_t rest = STREAM_PAD8(h.len);
        while (rest) {
            char skip[4096];
            size_t n = rest < sizeof skip ? rest : sizeof skip;
            if (io_read_full(far_end[src], skip, n, now_s() + 10))
                abort();
            rest -= n;
        }
        if (h.type == MSG_ECHO_REP)
            return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    enum { RECORD = 4 + 3 * 8 };
    while (size >= RECORD) {
        uint8_t type = data[0], src = data[1], wide = data[2];
        uint32_t len = data[3];
        uint64_t arg[3];
        memcpy(arg, data + 4, sizeof arg);
        data += RECORD;
        size -= RECORD;
        if (len > size)
            len = (uint32_t)size;
        int s = 1 + src % (NODES - 1);
        int t = types[type % (sizeof types / sizeof *types)];
        uint64_t small[3] = {8, NODES, 4};
        if (t == MSG_BARRIER_ARRIVE || t == MSG_BARRIER_DONE)
            small[0] = 2;
        for (int i = 0; i < 3; i++)
            if (!(wide >> i & 1))
                arg[i] %= small[i];
        /* Every arrival makes the same collective call: one that does not
         * stops the job as misuse (sync/collective.c), which is no bug. */
        uint8_t payload[255];
        memcpy(payload, data, len);
        /* The first entry's call, after the counters and its head (gather.c). */
        size_t sig_at = NODES * sizeof(uint32_t) + 4 * sizeof(uint32_t),
               sig_end = sig_at + sizeof(coll_sig);
        if (t == MSG_BARRIER_ARRIVE && len > sig_at)
            memset(payload + sig_at, 0, (len < sig_end ? len : sig_end) - sig_at);
        send_from(s, t, arg, payload, len);
        data += len;
        size -= len;
    }
    for (int j = 1; j < NODES; j++)
        settle(j);
    return 0;
}
