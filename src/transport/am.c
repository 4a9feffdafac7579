/*
 * am.c - the active-message layer: the handler table, message counting and
 * the choice between sending to a peer and delivering to oneself.
 */
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "transport/core.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

static am_handler_fn handlers[MSG_COUNT];

/* The application's view of shared memory (am_guard_range). */
static const char *guard_lo, *guard_hi;

static const char *const names[MSG_COUNT] = {
#define TSR_MSG_NAME(name, a0, a1, a2, pl, meaning) #name,
    TSR_MESSAGES(TSR_MSG_NAME)
#undef TSR_MSG_NAME
};

const char *msg_name(int type)
{
    return type >= 0 && type < MSG_COUNT ? names[type] : "MSG_UNKNOWN";
}

void am_register(int type, am_handler_fn fn) { handlers[type] = fn; }

static void fill(am_msg *m, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *payload,
                 size_t len)
{
    if (len > UINT32_MAX)
        log_die("message %s of %zu bytes exceeds the 4 GiB limit", msg_name(type), len);
    m->next = NULL;
    m->hdr = (tsr_msg_hdr){(uint32_t)len, (uint16_t)type, (uint16_t)cfg.node, {a0, a1, a2}};
    m->payload = payload;
    m->sent = 0;
    m->heap = 0;
}

/* The shutdown handshake (MSG_BYE) is not counted: it follows the moment
 * tsr_finalize takes the statistics, and a peer that takes them later would
 * count as received what its sender never counted as sent. Heartbeats are
 * not counted either: they come at any time, that moment included. */
static int counted(int type) { return type != MSG_BYE && type != MSG_HEARTBEAT; }

static void count_sent(const am_msg *m)
{
    if (!counted(m->hdr.type))
        return;
    STAT_ADD(messages_sent, 1);
    STAT_ADD(bytes_sent, sizeof(tsr_msg_hdr) + m->hdr.len);
}

/* A heap copy of m (header and payload in one block) owned by the transport. */
static am_msg *copy_msg(const am_msg *m)
{
    am_msg *c = malloc(sizeof *c + m->hdr.len);
    if (!c)
        log_die("out of memory queueing a %u-byte message", m->hdr.len);
    *c = *m;
    if (m->hdr.len) /* an empty message's payload may be NULL */
        memcpy(c + 1, m->payload, m->hdr.len);
    c->payload = c + 1;
    c->heap = 1;
    return c;
}

void am_guard_range(const void *base, size_t size)
{
    guard_lo = base;
    guard_hi = guard_lo + size;
}

static int guarded(const void *payload, size_t len)
{
    const char *p = payload;
    return len && p < guard_hi && p + len > guard_lo;
}

void am_send(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *payload,
             size_t len)
{
    am_msg m;
    fill(&m, type, a0, a1, a2, payload, len);
    if (dest == cfg.node) {
        core_post_self(copy_msg(&m)); /* not counted: it does not leave the process */
        return;
    }
    count_sent(&m);
    if (guarded(payload, len)) {
        /* Copied here, with no lock held: the copy may fault, and the fault
         * handler sends messages of its own (see am_guard_range). */
        core_post(dest, copy_msg(&m));
        return;
    }
    /* Try to write it at once; the backend copies it (via am_msg.heap = -1)
     * only if the socket cannot take all of it now. */
    m.heap = -1;
    core_post(dest, &m);
}

void am_post(int dest, am_msg *m, int type, uint64_t a0, uint64_t a1, uint64_t a2,
             const void *payload, size_t len)
{
    fill(m, type, a0, a1, a2, payload, len);
    if (dest == cfg.node) {
        /* Handed to this node's own comm thread as it is: never copied, never
         * freed, and not counted (it does not leave the process). */
        core_post_self(m);
        return;
    }
    count_sent(m);
    core_post(dest, m);
}

void am_expect_reply(void) { core_expect_reply(); }

/* Used by backends for messages that must be queued but live on the caller's
 * stack (heap == -1). */
am_msg *am_detach(am_msg *m) { return copy_msg(m); }

void am_dispatch(int src, const tsr_msg_hdr *h, void *payload)
{
    if (src != cfg.node && counted(h->type)) {
        STAT_ADD(messages_received, 1);
        STAT_ADD(bytes_received, sizeof *h + h->len);
    }
    if (h->type >= MSG_COUNT || !handlers[h->type])
        log_die_status(1, "protocol error: message type %u from node %d has no handler", h->type,
                       src);
    handlers[h->type](src, h, payload);
}

void am_abort(const char *cause)
{
    /* The core's MSG_ABORT handler tells every other node, then exits. */
    if (handlers[MSG_ABORT]) {
        tsr_msg_hdr h = {(uint32_t)strlen(cause), MSG_ABORT, (uint16_t)cfg.node,
                         {(uint64_t)-1, 0, 0}};
        am_dispatch(cfg.node, &h, (void *)cause);
    }
    log_die_status(TSR_EXIT_PEER_FAILED, "stopping: %s", cause);
}

typedef struct echo_ctx {
    waiter w;
    void *reply;
} echo_ctx;

static void on_echo_req(int src, const tsr_msg_hdr *h, void *payload)
{
    am_send(src, MSG_ECHO_REP, 0, h->arg[1], 0, payload, h->len);
}

static void on_echo_rep(int src, const tsr_msg_hdr *h, void *payload)
{
    echo_ctx *ctx = (echo_ctx *)(uintptr_t)h->arg[1];
    memcpy(ctx->reply, payload, h->len);
    waiter_done(&ctx->w);
}

void am_echo(int dest, const void *buf, size_t len, void *reply)
{
    echo_ctx ctx = {.reply = reply};
    waiter_init(&ctx.w, 1);
    am_send(dest, MSG_ECHO_REQ, 0, (uintptr_t)&ctx, 0, buf, len);
    waiter_wait(&ctx.w);
}

void am_init(void)
{
    am_register(MSG_ECHO_REQ, on_echo_req);
    am_register(MSG_ECHO_REP, on_echo_rep);
}
