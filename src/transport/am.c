/*
 * am.c - the active-message layer: the handler table, the check of every
 * received message against its type's rule (msg.h), message counting and
 * the choice between sending to a peer and delivering to oneself.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "transport/clock.h"
#include "transport/core.h"
#include "transport/holdup.h"
#include "transport/request.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

STATS_COUNTER(messages_rejected, "messages dropped for breaking their type's rule");
STATS_COUNTER(replies_dropped, "replies dropped: their request was not outstanding");
/* What a node sends over the network rather than within its host: what one
 * node per host with threads saves against one node per core. */
STATS_COUNTER(host_bytes_sent, "bytes sent to nodes of other hosts (headers included)");

static am_handler_fn handlers[MSG_COUNT];
/* Replies whose handlers the waiting thread may run itself (am_direct). */
static am_accept_fn direct[MSG_COUNT];

/* The application's view of shared memory (am_guard_range), and its pages
 * (am_limit_pages). */
static const char *guard_lo, *guard_hi;
static uint32_t npages;

static const char *const names[MSG_COUNT] = {
#define TSR_MSG_NAME(name, a0, a1, a2, pl, len, args, meaning) #name,
    TSR_MESSAGES(TSR_MSG_NAME)
#undef TSR_MSG_NAME
};

static const struct {
    msg_len_rule len;
    uint8_t args[3];
} rules[MSG_COUNT] = {
#define TSR_MSG_RULE(name, a0, a1, a2, pl, len, args, meaning) {len, args},
    TSR_MESSAGES(TSR_MSG_RULE)
#undef TSR_MSG_RULE
};

const char *msg_name(int type)
{
    return type >= 0 && type < MSG_COUNT ? names[type] : "MSG_UNKNOWN";
}

void am_register(int type, am_handler_fn fn) { handlers[type] = fn; }

void am_register_direct(int type, am_handler_fn fn, am_accept_fn accepts)
{
    if (rules[type].args[1] != ARG_REPLY)
        log_die("%s cannot be taken by its waiter: it names no request", msg_name(type));
    handlers[type] = fn;
    direct[type] = accepts;
}

/* A message this node receives may follow from one it sent by way of other
 * processes: a barrier arrival goes to the root through a ring, the root
 * releases a third node over TCP, and that node's diff comes back over
 * TCP. ThreadSanitizer follows no message between processes, and it
 * follows a socket and a ring as two separate things, so that chain looks
 * like no order at all. Every message sent releases, and every message
 * handled acquires, one address: it then sees what is true, that this
 * node's writes before a send happened before whatever a handler does
 * after a message that the send caused. Nothing outside that build. */
#ifdef __SANITIZE_THREAD__
#include <sanitizer/tsan_interface.h>
static char causality;
static void sent_causally(void) { __tsan_release(&causality); }
static void received_causally(void) { __tsan_acquire(&causality); }
#else
static void sent_causally(void) {}
static void received_causally(void) {}
#endif

static void fill(am_msg *m, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *payload,
                 size_t len)
{
    sent_causally();
    if (len > UINT32_MAX)
        log_die_status(1, "message %s of %zu bytes exceeds the 4 GiB limit", msg_name(type), len);
    m->next = NULL;
    m->hdr = (tsr_msg_hdr){(uint32_t)len, (uint16_t)type, (uint16_t)cfg.node, {a0, a1, a2},
                           trace_on ? trace_stamp() : holdup_stamp()};
    m->payload = payload;
    m->sent = 0;
    m->heap = 0;
}

/* The shutdown handshake (MSG_BYE) is not counted: it follows the moment
 * tsr_finalize takes the statistics, and a peer that takes them later would
 * count as received what its sender never counted as sent. Heartbeats and
 * the stall detector's questions and answers are not counted either: they
 * come at any time, that moment included. */
static int counted(int type)
{
    return type != MSG_BYE && type != MSG_HEARTBEAT && type != MSG_WHERE_ASK && type != MSG_WHERE;
}

/* Counted before the backend has it, so that a message's count always
 * precedes its receipt: the nodes' sums balance once every message is
 * received, whichever thread sent it. */
static void count_sent(int dest, const am_msg *m)
{
    if (!counted(m->hdr.type))
        return;
    STAT_ADD(messages_sent, 1);
    STAT_ADD(bytes_sent, sizeof(tsr_msg_hdr) + m->hdr.len);
    if (boot.host && boot.host[dest] != boot.host[cfg.node])
        COUNTER_ADD(host_bytes_sent, sizeof(tsr_msg_hdr) + m->hdr.len);
    TRACE_MARK(EV_SEND, dest, m->hdr.type, m->hdr.stamp);
}

/* And once the backend has it (written, or queued behind the earlier
 * messages to that node): a thread that sees this count go up knows the
 * message is on its way, so a test waits for that instead of sleeping. */
static void count_posted(int type)
{
    if (counted(type))
        STAT_ADD(posted, 1);
}

/* A heap copy of m (header and payload in one block) owned by the transport.
 * The comm thread copies too, so running out of memory stops the node with
 * one write(2) and _exit (log_die_status): no exit handler, no stdio lock
 * that the application thread may hold. */
static am_msg *copy_msg(const am_msg *m)
{
    am_msg *c = malloc(sizeof *c + m->hdr.len);
    if (!c)
        log_die_status(1, "out of memory queueing a %u-byte message", m->hdr.len);
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

/* am_send and am_send_unordered: the message goes to this node's own
 * comm thread, or to the backend by `post`. */
static void send_by(void (*post)(int, am_msg *), int dest, int type, uint64_t a0, uint64_t a1,
                    uint64_t a2, const void *payload, size_t len)
{
    am_msg m;
    fill(&m, type, a0, a1, a2, payload, len);
    if (dest == cfg.node) {
        core_post_self(copy_msg(&m)); /* not counted: it does not leave the process */
        return;
    }
    count_sent(dest, &m);
    if (guarded(payload, len)) {
        /* Copied here, with no lock held: the copy may fault, and the fault
         * handler sends messages of its own (see am_guard_range). */
        post(dest, copy_msg(&m));
    } else {
        /* Try to write it at once; the backend copies it (via am_msg.heap =
         * -1) only if the socket cannot take all of it now. */
        m.heap = -1;
        post(dest, &m);
    }
    count_posted(type);
}

void am_send(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2, const void *payload,
             size_t len)
{
    send_by(core_post, dest, type, a0, a1, a2, payload, len);
}

void am_send_unordered(int dest, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                       const void *payload, size_t len)
{
    send_by(core_post_unordered, dest, type, a0, a1, a2, payload, len);
}

void am_multicast(const int *dests, int n, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                  const void *payload, size_t len)
{
    am_msg m;
    fill(&m, type, a0, a1, a2, payload, len);
    int others = 0;
    for (int i = 0; i < n; i++)
        if (dests[i] == cfg.node)
            core_post_self(copy_msg(&m));
        else
            others++;
    /* The backend copies the message; one in shared memory is copied here
     * first, with no lock held (see am_guard_range). */
    am_msg *c = guarded(payload, len) ? copy_msg(&m) : &m;
    int native = others && core_multicast(dests, n, c);
    if (c != &m)
        free(c);
    for (int i = 0; i < n; i++) {
        if (dests[i] == cfg.node)
            continue;
        if (native) {
            count_sent(dests[i], &m);
            count_posted(type);
        }
        else
            am_send(dests[i], type, a0, a1, a2, payload, len);
    }
}

int am_multicast_native(void) { return core_multicast_native(); }

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
    count_sent(dest, m);
    core_post(dest, m);
    count_posted(type);
}

void am_expect_reply(void) { core_expect_reply(); }

/* Used by backends for messages that must be queued but live on the caller's
 * stack (heap == -1). */
am_msg *am_detach(am_msg *m) { return copy_msg(m); }

void am_limit_pages(uint32_t pages) { npages = pages; }

/* Rejections are logged at most LOG_RATE_BURST a second: a broken peer must
 * not bury the job's output. Only the comm thread rejects. */
static log_rate reject_rate = {.what = "rejected or dropped messages"};

void am_reject(int src, const tsr_msg_hdr *h, const char *rule, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, rule);
    vsnprintf(why, sizeof why, rule, ap);
    va_end(ap);
    COUNTER_ADD(messages_rejected, 1);
    log_rated(&reject_rate, "rejected %s from node %d: %s", msg_name(h->type), src, why);
}

static const char *len_broken(const tsr_msg_hdr *h)
{
    msg_len_rule r = rules[h->type].len;
    uint64_t n = r.kind == LEN_K_EACH || r.kind == LEN_K_UPTO_EACH ? h->arg[r.arg] : 0;
    switch (r.kind) {
    case LEN_K_MAX:
        return h->len > r.size ? "payload longer than its type allows" : NULL;
    case LEN_K_EACH:
        return n > UINT32_MAX || h->len != n * r.size ? "payload length does not match its count"
                                                      : NULL;
    default: /* LEN_K_UPTO_EACH */
        return n > UINT32_MAX || h->len > n * r.size ? "payload longer than its count allows"
                                                     : NULL;
    }
}

static int lock_broken(uint64_t a)
{
    return a >= MSG_PROGRAM_LOCKS && (a < MSG_FLAG_LOCKS || a >= MSG_FLAG_LOCKS + MSG_FLAGS);
}

/* Whether argument a breaks `rule`; every value that indexes a table is
 * bounded here, before any handler reads it. */
static int arg_bad(int rule, uint64_t a)
{
    switch (rule) {
    case ARG_PAGE:
        return a >= npages;
    case ARG_COUNT:
        return a > npages;
    case ARG_PAGE32:
        return (uint32_t)a >= npages;
    case ARG_LOCK:
        return lock_broken(a);
    case ARG_NODE:
        return a >= (uint64_t)cfg.nodes;
    case ARG_NODE_OR_ALL:
        return a != UINT64_MAX && a >= (uint64_t)cfg.nodes;
    case ARG_U32:
        return a > UINT32_MAX;
    case ARG_FLAG:
        return a >= MSG_FLAGS;
    case ARG_LOCK_OR_NONE:
        return a != UINT64_MAX && a >= MSG_PROGRAM_LOCKS + MSG_FLAGS;
    case ARG_GA_GET:
    case ARG_GA_PUT:
        return (a & 0xffff) >= MSG_GA_SEGS ||
               (rule == ARG_GA_GET && ((a >> 16 & 0xffff) == 0 || (a >> 16 & 0xffff) > MSG_GA_CHUNK));
    default: /* ARG_ANY; ARG_REPLY is checked against the request table */
        return 0;
    }
}

static const char *arg_broken(int rule, uint64_t a)
{
    static const char *const what[] = {
        [ARG_PAGE] = "a page off the region",
        [ARG_PAGE32] = "a page off the region",
        [ARG_COUNT] = "more entries than the region has pages",
        [ARG_LOCK] = "a lock id out of range",
        [ARG_NODE] = "a node outside the job",
        [ARG_NODE_OR_ALL] = "a node outside the job",
        [ARG_U32] = "a number past 32 bits",
        [ARG_FLAG] = "a flag id out of range",
        [ARG_LOCK_OR_NONE] = "a lock slot out of range",
        [ARG_GA_GET] = "a segment id or read length out of range",
        [ARG_GA_PUT] = "a segment id out of range",
    };
    return arg_bad(rule, a) ? what[rule] : NULL;
}

/* am_check, rejecting what breaks the rule only if `report`. */
static int check(int src, const tsr_msg_hdr *h, int report)
{
    if (h->type >= MSG_COUNT || !handlers[h->type]) {
        if (report)
            am_reject(src, h, "unknown type %u", h->type);
        return -1;
    }
    if (h->src != src || src < 0 || src >= cfg.nodes) {
        if (report)
            am_reject(src, h, "names node %u as its sender", h->src);
        return -1;
    }
    const char *why = len_broken(h);
    if (why) {
        if (report)
            am_reject(src, h, "%s (%u bytes)", why, h->len);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if ((why = arg_broken(rules[h->type].args[i], h->arg[i]))) {
            if (report)
                am_reject(src, h, "argument %d is %s (%llu)", i, why,
                          (unsigned long long)h->arg[i]);
            return -1;
        }
    return 0;
}

int am_check(int src, const tsr_msg_hdr *h) { return check(src, h, 1); }

/* Quiet: whatever it refuses goes to the comm thread, which rejects it
 * with its reason (logging is not for the fault path). */
int am_direct(int src, const tsr_msg_hdr *h)
{
    return h->type < MSG_COUNT && direct[h->type] && !check(src, h, 0) &&
           !req_mismatch(src, h) && direct[h->type](h);
}

/* A reply whose request is not outstanding (unknown, stale, answered) is
 * only dropped and counted: a lossy transport will duplicate replies
 * legitimately. One from the wrong node or of the wrong type is forged, and
 * rejected; its request stays outstanding for the true reply. */
static int reply_matches(int src, const tsr_msg_hdr *h)
{
    if (rules[h->type].args[1] != ARG_REPLY)
        return 1;
    const char *why = req_mismatch(src, h);
    if (!why)
        return 1;
    if (!req_ctx(h->arg[1])) {
        COUNTER_ADD(replies_dropped, 1);
        log_rated(&reject_rate, "dropped %s from node %d: %s", msg_name(h->type), src, why);
    } else {
        am_reject(src, h, "%s", why);
    }
    return 0;
}

/* Runs the handler of a message whose header was checked. */
static void run(int src, const tsr_msg_hdr *h, void *payload)
{
    received_causally();
    if (reply_matches(src, h))
        handlers[h->type](src, h, payload);
}

static void count_received(int src, const tsr_msg_hdr *h)
{
    if (src != cfg.node && counted(h->type)) {
        STAT_ADD(messages_received, 1);
        STAT_ADD(bytes_received, sizeof *h + h->len);
        holdup_note(h->stamp);
        TRACE_MARK(EV_RECV, src, h->type, h->stamp);
        core_count_dispatch();
    }
}

void am_dispatch_checked(int src, const tsr_msg_hdr *h, void *payload)
{
    count_received(src, h);
    run(src, h, payload);
}

void am_dispatch_direct(int src, const tsr_msg_hdr *h, void *payload)
{
    received_causally();
    count_received(src, h);
    handlers[h->type](src, h, payload);
}

void am_dispatch(int src, const tsr_msg_hdr *h, void *payload)
{
    if (!am_check(src, h))
        am_dispatch_checked(src, h, payload);
}

void am_deliver(int src, const tsr_msg_hdr *h, void *payload)
{
    if (!am_check(src, h))
        run(src, h, payload);
}

void am_abort(const char *cause)
{
    /* The core's MSG_ABORT handler tells every other node, then exits. */
    if (handlers[MSG_ABORT]) {
        tsr_msg_hdr h = {(uint32_t)strlen(cause), MSG_ABORT, (uint16_t)cfg.node,
                         {(uint64_t)-1, 0, 0}, 0};
        am_dispatch(cfg.node, &h, (void *)cause);
    }
    log_die_status(TSR_EXIT_PEER_FAILED, "stopping: %s", cause);
}

typedef struct echo_ctx {
    waiter w;
    void *reply;
    size_t len;
} echo_ctx;

static void on_echo_req(int src, const tsr_msg_hdr *h, void *payload)
{
    am_send(src, MSG_ECHO_REP, 0, h->arg[1], 0, payload, h->len);
}

/* The echo of as many bytes as were sent. */
static int echo_fits(const tsr_msg_hdr *h)
{
    const echo_ctx *ctx = req_ctx(h->arg[1]);
    return h->len == ctx->len;
}

static void on_echo_rep(int src, const tsr_msg_hdr *h, void *payload)
{
    echo_ctx *ctx = req_ctx(h->arg[1]);
    if (!echo_fits(h)) {
        am_reject(src, h, "echo of %u bytes for %zu sent", h->len, ctx->len);
        return;
    }
    req_close(h->arg[1]);
    memcpy(ctx->reply, payload, h->len);
    waiter_done(&ctx->w);
}

void am_echo(int dest, const void *buf, size_t len, void *reply)
{
    if (len > MSG_BYTES_MAX)
        log_die("am_echo: %zu bytes is more than the %u an echo may carry", len, MSG_BYTES_MAX);
    echo_ctx ctx = {.reply = reply, .len = len};
    waiter_init_taken(&ctx.w, dest);
    am_send(dest, MSG_ECHO_REQ, 0, req_open(dest, MSG_ECHO_REP, &ctx), 0, buf, len);
    waiter_wait(&ctx.w);
}

void am_init(void)
{
    stats_register(&messages_rejected);
    stats_register(&replies_dropped);
    stats_register(&host_bytes_sent);
    am_register(MSG_ECHO_REQ, on_echo_req);
    am_register_direct(MSG_ECHO_REP, on_echo_rep, echo_fits);
    clock_init();
}
