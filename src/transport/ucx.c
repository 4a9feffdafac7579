/*
 * ucx.c - the UCX backend (TSR_TRANSPORT=ucx): every message is a UCX
 * active message between this node's worker and each peer's.
 *
 * UCX chooses the wire (verbs, RoCE, shared memory, TCP) from UCX_TLS,
 * UCX_NET_DEVICES and its other variables. The workers' addresses go over
 * the bootstrap's authenticated TCP mesh (boot.c), which then stays open
 * only to say when a peer is gone, as under udp.
 *
 * A UCX worker is not async-signal-safe: only the thread that holds the
 * core's serve lock calls UCX (the comm thread, or an application thread
 * in am_poll while it sleeps), so the worker is SERIALIZED. Other threads,
 * the fault path among them, queue their message and wake the comm thread;
 * the serving thread, replying from a handler, sends at once once what
 * others queued has gone.
 *
 * Nothing trusted from the wire: an active message names its sender in
 * its header, which UCX does not check, so each carries the token the
 * receiver chose for that sender and gave it over its TCP connection, and
 * a sequence number (UCX delivers one endpoint's eager messages in order;
 * a gap would be a bug, which stops the job rather than reorder a
 * protocol).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/backend.h"
#include "transport/core.h"
#include "transport/stream.h"
#include "transport/ucx.h"
#include "util/config.h"
#include "util/io.h"
#include "util/log.h"
#include "util/spin.h"

/* UCX is opened only when a job asks for it (load_ucx): linked into every
 * program, its memory hooks (libucm's mmap, munmap and madvise, which
 * replace the C library's as it loads) ran under every transport, broke
 * the shared globals' remapping at tsr_finalize and crashed each new
 * thread under ThreadSanitizer. */
ucx_funcs ucx_api;

#define AM_ID 0x7e5 /* the one active-message id Tessera uses */
#define HELLO_MAGIC 0x55435831u /* "UCX1" */
/* How long a stopping node gives its MSG_ABORT to leave. */
#define ABORT_FLUSH_S 0.5
/* How long a peer's MSG_BYE may trail the end of its TCP connection. */
#define MESH_GRACE_S 1.0

/* What goes in each active message's header: ours, and the receiver's
 * token for this sender with the sender's sequence number toward it. */
typedef struct ucx_hdr {
    tsr_msg_hdr hdr;
    uint64_t token, seq;
} ucx_hdr;

/* One send UCX has not finished: the header must live until then (UCX 1.13
 * has no flag to copy it), and a message the transport owns is freed. */
typedef struct ucx_send {
    ucx_hdr h;
    am_msg *owned;
    int dest;
} ucx_send;

typedef struct ucx_peer {
    ucp_ep_h ep;
    uint64_t token_in, token_out, seq_in, seq_out;
    int failed; /* UCX reported the endpoint failed */
} ucx_peer;

ucp_context_h ucx_context;
ucp_worker_h ucx_worker;
static ucx_peer *peers;
static int wake_fd = -1, worker_fd = -1;
static _Atomic int in_flight; /* sends UCX has not completed */
/* Messages other threads posted, oldest first, for the comm thread. */
static spin_t queue_lock;
static am_msg *queue_head, *queue_tail;
static log_rate drop_rate = {.what = "dropped UCX active messages"};

/* The poll set: wake-up eventfd, the worker's event fd, the core's, the mesh. */
static struct pollfd *pfd;
enum { SLOT_WAKE, SLOT_WORKER, SLOT_CORE, SLOT_MESH = SLOT_CORE + CORE_POLLFDS };

/* Stops the node naming `what` and UCX's reason unless st is UCS_OK. */
void ucx_check(ucs_status_t st, const char *what)
{
    if (st != UCS_OK)
        log_die("UCX transport: %s: %s (UCX_TLS=%s; `ucx_info -d` lists what UCX finds here)",
                what, ucx_api.ucs_status_string(st), getenv("UCX_TLS") ? getenv("UCX_TLS") : "unset");
}

void ucx_wake(void)
{
    uint64_t one = 1;
    ssize_t unused = write(wake_fd, &one, sizeof one);
    (void)unused;
}

ucp_ep_h ucx_peer_ep(int j) { return peers[j].ep; }

int ucx_peer_failed(int j) { return peers[j].failed; }

static void release(ucx_send *s)
{
    sendq_shrank(s->dest, STREAM_BYTES(s->h.hdr.len));
    if (s->owned && s->owned->heap == 1)
        free(s->owned);
    free(s);
    atomic_fetch_sub(&in_flight, 1);
}

static void sent(void *request, ucs_status_t status, void *user_data)
{
    /* A failed send belongs to a failed peer, which its endpoint's error
     * handler reports. */
    release(user_data);
    ucx_api.ucp_request_free(request);
}

/* An abort is the last thing a stopping node sends, and the process ends
 * next: it leaves UCX before that (bounded: the peer may be gone too),
 * or a peer would name this node as the failed one rather than the node
 * the abort names. Releasing the request runs sent() at its completion. */
static void last_words(ucs_status_ptr_t r)
{
    double until = now_s() + ABORT_FLUSH_S;
    while (ucx_api.ucp_request_check_status(r) == UCS_INPROGRESS && now_s() < until)
        ucx_api.ucp_worker_progress(ucx_worker);
}

/* Gives m to UCX. A message on am_send's stack (heap -1) is sent only if
 * UCX can finish it now; otherwise it is copied and sent again. */
static void send_now(int dest, am_msg *m)
{
    ucx_peer *p = &peers[dest];
    ucx_send *s = malloc(sizeof *s);
    if (!s)
        log_die("UCX transport: out of memory sending %s", msg_name(m->hdr.type));
    *s = (ucx_send){{m->hdr, p->token_out, p->seq_out}, m->heap == 1 ? m : NULL, dest};
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA,
                               .flags = UCP_AM_SEND_FLAG_EAGER,
                               .cb.send = sent,
                               .user_data = s};
    if (m->heap == -1)
        prm.op_attr_mask |= UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    atomic_fetch_add(&in_flight, 1);
    sendq_grew(dest, STREAM_BYTES(m->hdr.len));
    ucs_status_ptr_t r = ucx_api.ucp_am_send_nbx(p->ep, AM_ID, &s->h, sizeof s->h, m->payload,
                                         m->hdr.len, &prm);
    if (UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE && m->heap == -1) {
        release(s);
        send_now(dest, am_detach(m));
        return;
    }
    p->seq_out++;
    if (UCS_PTR_IS_PTR(r)) {
        if (m->hdr.type == MSG_ABORT)
            last_words(r);
        return; /* sent() releases it */
    }
    if (UCS_PTR_IS_ERR(r))
        log_debug("ucx: sending %s to node %d: %s", msg_name(m->hdr.type), dest,
                  ucx_api.ucs_status_string(UCS_PTR_STATUS(r)));
    release(s);
}

/* The comm thread sends what other threads queued, in their order. */
static int send_queued(void)
{
    if (!__atomic_load_n(&queue_head, __ATOMIC_ACQUIRE))
        return 0;
    spin_lock(&queue_lock);
    am_msg *m = queue_head;
    __atomic_store_n(&queue_head, NULL, __ATOMIC_RELAXED);
    queue_tail = NULL;
    spin_unlock(&queue_lock);
    while (m) {
        am_msg *next = m->next;
        int dest = (int)m->sent; /* where ucx_post kept it */
        m->sent = 0;
        sendq_shrank(dest, STREAM_BYTES(m->hdr.len));
        send_now(dest, m);
        m = next;
    }
    return 1;
}

static void ucx_post(int dest, am_msg *m)
{
    if (core_serving()) {
        send_queued();
        send_now(dest, m);
        return;
    }
    if (m->heap == -1)
        m = am_detach(m);
    m->next = NULL;
    m->sent = (size_t)dest; /* nothing is ever partly sent here */
    sendq_grew(dest, STREAM_BYTES(m->hdr.len));
    spin_lock(&queue_lock);
    if (queue_tail)
        queue_tail->next = m;
    else
        __atomic_store_n(&queue_head, m, __ATOMIC_RELEASE);
    queue_tail = m;
    spin_unlock(&queue_lock);
    ucx_wake();
}

static int drop(const char *why, int src)
{
    log_rated(&drop_rate, "dropped a UCX active message (claiming node %d): %s", src, why);
    return -1;
}

/* The sender a message claims, if its token and sequence number say so. */
static int sender(const ucx_hdr *u, size_t length, const ucp_am_recv_param_t *param)
{
    int src = u->hdr.src;
    if (src >= cfg.nodes || src == cfg.node)
        return drop("no such peer", src);
    if (u->token != peers[src].token_in)
        return drop("wrong token (not a node of this job)", src);
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
        return drop("sent by rendezvous, which Tessera never uses", src);
    if (u->seq != peers[src].seq_in)
        log_die_status(1, "UCX delivered message %llu from node %d where %llu was due: the "
                       "transport lost or reordered messages", (unsigned long long)u->seq, src,
                       (unsigned long long)peers[src].seq_in);
    peers[src].seq_in++;
    if (u->hdr.len != length)
        return drop("its header's length is not the length received", src);
    return src;
}

/* A message received, waiting for its handler. */
typedef struct ucx_rx {
    struct ucx_rx *next;
    int src;
    tsr_msg_hdr hdr;
    _Alignas(16) char payload[]; /* handlers read payloads as structs */
} ucx_rx;

static ucx_rx *rx_head, *rx_tail;

/* UCX's callback only checks and keeps the message: its handler, which
 * sends, runs once ucp_worker_progress has returned (deliver), not inside
 * UCX's receive path. */
static ucs_status_t on_message(void *arg, const void *header, size_t header_length, void *data,
                               size_t length, const ucp_am_recv_param_t *param)
{
    ucx_hdr u;
    if (header_length != sizeof u) {
        drop("header of the wrong size", -1);
        return UCS_OK;
    }
    memcpy(&u, header, sizeof u);
    int src = sender(&u, length, param);
    if (src < 0)
        return UCS_OK;
    core_heard(src);
    if (am_check(src, &u.hdr))
        return UCS_OK;
    ucx_rx *r = malloc(sizeof *r + length);
    if (!r)
        log_die("UCX transport: out of memory receiving %s", msg_name(u.hdr.type));
    *r = (ucx_rx){NULL, src, u.hdr};
    memcpy(r->payload, data, length);
    if (rx_tail)
        rx_tail->next = r;
    else
        rx_head = r;
    rx_tail = r;
    return UCS_OK;
}

/* Runs the worker until it has nothing more; 1 if it did anything. */
static int collect(void)
{
    int busy = 0;
    while (ucx_api.ucp_worker_progress(ucx_worker))
        busy = 1;
    return busy;
}

/* Runs the handlers of what arrived, then reports the peers UCX found
 * failed; 1 if there was anything. */
static int deliver(void)
{
    int any = rx_head != NULL;
    while (rx_head) {
        ucx_rx *r = rx_head;
        rx_head = r->next;
        if (!rx_head)
            rx_tail = NULL;
        am_dispatch_checked(r->src, &r->hdr, r->payload);
        free(r);
    }
    for (int j = 0; j < cfg.nodes; j++)
        if (peers[j].failed)
            core_link_closed(j); /* returns after the peer's MSG_BYE */
    return any;
}

/* The mesh says only that a peer is gone (after its MSG_BYE, or not):
 * whatever that peer sent before is taken from UCX first. */
static void watch_mesh(int j)
{
    if (!core_mesh_ended(j))
        return;
    /* A peer that leaves sent its MSG_BYE, and flushed it, before its
     * process closed this connection; but the bye travels on UCX's own
     * link, which may deliver it a moment after this one's end. */
    double until = now_s() + MESH_GRACE_S;
    do {
        collect();
        deliver();
    } while (!core_peer_left(j) && now_s() < until);
    core_link_closed(j);
    close(pfd[SLOT_MESH + j].fd);
    boot.peer_fd[j] = pfd[SLOT_MESH + j].fd = -1;
}

/* Returns 1 only for work done: the worker's descriptor, readable while
 * UCX has events whether or not they are ours, is in the poll set only
 * when armed, and its readiness alone is no work (a comm thread that
 * believed so would never offer its core, core.c). */
static int ucx_progress(int timeout_ms)
{
    /* Before the wait only UCX's own work: handlers run after this node's
     * messages to itself, as backend.h asks. */
    int busy = send_queued() | ucx_rma_run();
    busy |= collect() || rx_head != NULL;
    int64_t wait_ns = 0;
    if (timeout_ms && !busy && !core_pending()) {
        ucs_status_t st = ucx_api.ucp_worker_arm(ucx_worker);
        if (st == UCS_OK)
            wait_ns = timeout_ms < 0 ? -1 : (int64_t)timeout_ms * 1000000;
        else if (st != UCS_ERR_BUSY)
            ucx_check(st, "arming the worker's event descriptor");
    }
    pfd[SLOT_WORKER].fd = wait_ns ? worker_fd : -1;
    for (int j = 0; j < cfg.nodes; j++)
        pfd[SLOT_MESH + j].revents = 0;
    core_poll(pfd, (nfds_t)(SLOT_MESH + cfg.nodes), pfd + SLOT_CORE, pfd + SLOT_WAKE, wait_ns);
    busy |= core_drain_self();
    busy |= send_queued() | ucx_rma_run();
    busy |= collect();
    busy |= deliver();
    for (int j = 0; j < cfg.nodes; j++)
        if (pfd[SLOT_MESH + j].fd >= 0 && pfd[SLOT_MESH + j].revents) {
            watch_mesh(j);
            busy = 1;
        }
    return busy;
}

/* For am_poll, under the serve lock while the comm thread sleeps, and so
 * with the worker armed: its descriptor says whether anything came. */
static int ucx_arrived(void)
{
    struct pollfd p = {worker_fd, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
}

static void ucx_receive(void)
{
    collect();
    deliver();
}

static int ucx_idle(void)
{
    return !__atomic_load_n(&queue_head, __ATOMIC_ACQUIRE) && atomic_load(&in_flight) == 0;
}

/* Noted only: what the peer sent before it failed, an abort naming
 * another node perhaps, may wait in rx_head, and goes first (deliver). */
static void peer_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    peers[(intptr_t)arg].failed = 1;
}

/* Opens UCX's libraries, local to this backend. UCX's own handlers for
 * SIGSEGV, SIGBUS, SIGFPE and SIGILL (UCX_ERROR_SIGNALS), installed as it
 * loads, would replace the runtime's fault handler and its last words
 * (util/fatal.c): UCX is told to install none. */
static void load_ucx(void)
{
    static const char *const libs[] = {"libucp.so.0", "libucs.so.0"};
    void *lib[2];
    setenv("UCX_ERROR_SIGNALS", "", 1);
    for (int i = 0; i < 2; i++)
        if (!(lib[i] = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL)))
            log_die("TSR_TRANSPORT=ucx: cannot load UCX: %s (install libucx0, or run "
                    "scripts/deps.sh)", dlerror());
#define UCX_LOAD(f)                                                                  \
    if (!(*(void **)&ucx_api.f = dlsym(lib[strncmp(#f, "ucs_", 4) == 0], #f)))           \
        log_die("TSR_TRANSPORT=ucx: UCX's library has no %s: UCX 1.13 or later is needed", #f);
    UCX_FUNCS(UCX_LOAD)
}

static void open_context(void)
{
    load_ucx();
    /* UCX's memory hooks, installed as its libraries load unless
     * UCX_MEM_EVENTS=no (which tsrun sets), crash a program whose globals
     * are shared (TSR_SHARE_GLOBALS): Tessera needs no memory events. */
    const char *events = getenv("UCX_MEM_EVENTS");
    if (cfg.share_globals && (!events || strcmp(events, "no")))
        log_die("TSR_SHARE_GLOBALS=1 with TSR_TRANSPORT=ucx needs UCX_MEM_EVENTS=no in every "
                "node's environment (tsrun sets it; pass it with srun --export or mpirun -x)");
    ucp_config_t *conf;
    ucx_check(ucx_api.ucp_config_read(NULL, NULL, &conf), "reading UCX's configuration");
    ucp_params_t prm = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                        .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP | ucx_rma_features(conf)};
    ucs_status_t st = ucx_api.ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &prm, conf, &ucx_context);
    ucx_api.ucp_config_release(conf);
    ucx_check(st, "ucp_init found no transport for active messages");
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    ucx_check(ucx_api.ucp_worker_create(ucx_context, &wp, &ucx_worker), "creating the worker");
    ucx_check(ucx_api.ucp_worker_get_efd(ucx_worker, &worker_fd), "getting the worker's event descriptor");
    ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                               UCP_AM_HANDLER_PARAM_FIELD_CB,
                                 .id = AM_ID,
                                 .cb = on_message};
    ucx_check(ucx_api.ucp_worker_set_am_recv_handler(ucx_worker, &hp), "setting the message handler");
}

/* The hello each node sends each peer over the mesh: its token for that
 * peer, then its worker's address. */
typedef struct ucx_hello {
    uint32_t magic, addr_len;
    uint64_t token;
} ucx_hello;

static void send_hello(int j, const void *addr, size_t addr_len)
{
    if (getrandom(&peers[j].token_in, sizeof peers[j].token_in, 0) != sizeof(uint64_t))
        log_die("cannot set up the UCX transport: getrandom: %m");
    ucx_hello h = {HELLO_MAGIC, (uint32_t)addr_len, peers[j].token_in};
    if (io_write_all(boot.peer_fd[j], &h, sizeof h) || io_write_all(boot.peer_fd[j], addr, addr_len) ||
        ucx_rma_send_keys(boot.peer_fd[j]))
        boot_stop(j, "failed (connection lost while the UCX transport started)", -1);
}

/* Keeps UCX from printing the refusal connect_peer expects of transports
 * without peer failure handling (UCX 1.13's shared memory). */
static ucs_log_func_rc_t quiet(const char *file, unsigned line, const char *function,
                               ucs_log_level_t level, const ucs_log_component_config_t *comp,
                               const char *message, va_list ap)
{
    return UCS_LOG_FUNC_RC_STOP;
}

/* Learns peer j's token and worker address and connects to it. Peer
 * failure handling where UCX has it; where it does not (UCX 1.13's shared
 * memory transports), the endpoint goes without: the TCP mesh still ends
 * the job when a peer dies, and heartbeats when one stops. */
static void connect_peer(int j, double deadline)
{
    ucx_hello h;
    const char *lost = "failed (no UCX address received while the transport started: another "
                       "TSR_TRANSPORT?)";
    if (io_read_full(boot.peer_fd[j], &h, sizeof h, deadline) || h.magic != HELLO_MAGIC ||
        h.addr_len == 0 || h.addr_len > (1u << 20))
        boot_stop(j, lost, -1);
    void *addr = malloc(h.addr_len);
    if (!addr || io_read_full(boot.peer_fd[j], addr, h.addr_len, deadline))
        boot_stop(j, lost, -1);
    peers[j].token_out = h.token;
    ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                                        UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                                        UCP_EP_PARAM_FIELD_ERR_HANDLER,
                          .address = addr,
                          .err_mode = UCP_ERR_HANDLING_MODE_PEER,
                          .err_handler = {peer_failed, (void *)(intptr_t)j}};
    ucx_api.ucs_log_push_handler(quiet);
    ucs_status_t st = ucx_api.ucp_ep_create(ucx_worker, &ep, &peers[j].ep);
    ucx_api.ucs_log_pop_handler();
    if (st == UCS_ERR_UNREACHABLE) {
        ep.err_mode = UCP_ERR_HANDLING_MODE_NONE;
        st = ucx_api.ucp_ep_create(ucx_worker, &ep, &peers[j].ep);
        log_debug("ucx: no peer failure handling toward node %d (the mesh and heartbeats watch it)", j);
    }
    ucx_check(st, "connecting to a peer's worker");
    free(addr);
    if (ucx_rma_read_keys(j, boot.peer_fd[j], deadline))
        boot_stop(j, lost, -1);
}

static void ucx_start(void)
{
    peers = calloc((size_t)cfg.nodes, sizeof *peers);
    pfd = calloc((size_t)(SLOT_MESH + cfg.nodes), sizeof *pfd);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!peers || !pfd || wake_fd < 0)
        log_die("cannot set up the UCX transport: %m");
    open_context();
    ucx_rma_register();
    pfd[SLOT_WAKE] = (struct pollfd){wake_fd, POLLIN, 0};
    pfd[SLOT_WORKER] = (struct pollfd){worker_fd, POLLIN, 0};
    ucp_address_t *addr;
    size_t addr_len;
    ucx_check(ucx_api.ucp_worker_get_address(ucx_worker, &addr, &addr_len), "getting the worker's address");
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node)
            send_hello(j, addr, addr_len);
    ucx_api.ucp_worker_release_address(ucx_worker, addr);
    double deadline = now_s() + cfg.connect_timeout_s;
    for (int j = 0; j < cfg.nodes; j++) {
        pfd[SLOT_MESH + j] = (struct pollfd){boot.peer_fd[j], POLLIN, 0};
        if (j != cfg.node)
            connect_peer(j, deadline);
    }
    for (int j = 0; j < cfg.nodes; j++)
        if (boot.peer_fd[j] >= 0)
            fcntl(boot.peer_fd[j], F_SETFL, fcntl(boot.peer_fd[j], F_GETFL) | O_NONBLOCK);
    log_debug("ucx: worker address of %zu bytes sent to %d peers", addr_len, cfg.nodes - 1);
}

/* Progresses the worker until r is done or the deadline passes: a peer
 * that has gone fails or outlasts it, which no longer matters then. */
static void settle(ucs_status_ptr_t r, double deadline)
{
    while (UCS_PTR_IS_PTR(r) && ucx_api.ucp_request_check_status(r) == UCS_INPROGRESS && now_s() < deadline)
        ucx_api.ucp_worker_progress(ucx_worker);
    if (UCS_PTR_IS_PTR(r))
        ucx_api.ucp_request_free(r);
}

/* Flushes what this node sent (its MSG_BYE among it) before the endpoints
 * close; a peer that already left fails the flush, which is fine now. */
static void ucx_stop(void)
{
    ucp_request_param_t prm = {0};
    double deadline = now_s() + 2;
    settle(ucx_api.ucp_worker_flush_nbx(ucx_worker, &prm), deadline);
    ucx_rma_stop();
    for (int j = 0; j < cfg.nodes; j++) {
        if (peers[j].ep)
            settle(ucx_api.ucp_ep_close_nbx(peers[j].ep, &prm), deadline);
        if (boot.peer_fd[j] >= 0)
            close(boot.peer_fd[j]);
    }
    ucx_api.ucp_worker_destroy(ucx_worker);
    ucx_api.ucp_cleanup(ucx_context);
    close(wake_fd);
    free(peers);
    free(pfd);
}

const tsr_backend ucx_backend = {.name = "ucx",
                                 .start = ucx_start,
                                 .post = ucx_post,
                                 .progress = ucx_progress,
                                 .arrived = ucx_arrived,
                                 .receive = ucx_receive,
                                 .wake = ucx_wake,
                                 .idle = ucx_idle,
                                 .rma_ready = ucx_rma_ready,
                                 .rma = ucx_rma_post,
                                 .stop = ucx_stop};
