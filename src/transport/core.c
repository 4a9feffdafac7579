/*
 * core.c - the transport core: the communication thread and its wait
 * policy, messages to this node itself, failure relay, the shutdown
 * handshake, heartbeats, and tsrun's connection and the stranger gate,
 * whatever backend moves the bytes (backend.h).
 *
 * The comm thread turns the backend's progress() over and over, which
 * delivers this node's messages to itself as well as its peers'; between
 * turns, every tick, it sends heartbeats and looks for peers that have gone
 * silent (on a ring: heartbeat.c).
 */
#include "transport/core.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "boot/boot_proto.h"
#include "stats/stats.h"
#include "stats/trace.h"
#include "transport/backend.h"
#include "transport/heartbeat.h"
#include "transport/holdup.h"
#include "transport/rma.h"
#include "util/spin.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/io.h"
#include "util/log.h"
#include "util/thread.h"

STATS_COUNTER(replies_taken, "replies the waiting thread took off the link itself (shm, tcp)");
STATS_COUNTER(reply_waits, "waits of this node's threads for answers not yet in, each of which "
                           "lets the comm thread poll (TSR_PROGRESS=hybrid)");
STATS_COUNTER(comm_wakeups, "sleeping comm threads this node woke, its own or a peer's (shm doorbells)");
STATS_COUNTER(polls, "polls (tsr_poll) that found messages waiting and the comm thread asleep");
STATS_COUNTER(polled_messages, "messages an application thread delivered in a poll");

static const tsr_backend *backend;
static pthread_t comm_thread;
static _Atomic int comm_stop;
static _Atomic int comm_blocked;
static _Atomic uint64_t reply_expected_ns;
static uint64_t last_busy_ns; /* the comm thread's last turn that did something */
static _Atomic int waiting;   /* threads of this node in waiter_wait */
static spin_t self_lock;
static am_msg *self_head, *self_tail;
static waiter bye_wait;
/* Held by the thread that runs the handlers of what arrives on the links:
 * the comm thread, except while it sleeps, or an application thread in
 * am_poll meanwhile. Handlers thus never run two at a time, as if all ran
 * on one thread (the direct replies of wait.c excepted, as before). */
static pthread_mutex_t serve_lock = PTHREAD_MUTEX_INITIALIZER;
enum { SERVE_NONE, SERVE_COMM, SERVE_POLL };
static __thread int serving;
static _Atomic int poll_open; /* the links are there to poll */

/* Per peer: said MSG_BYE; this node said its own, and stopped waiting for
 * the peer's (each once, however it is reached). */
typedef struct peer_life {
    _Atomic int bye, bye_sent, bye_counted;
} peer_life;

static peer_life *life;
/* Set once this node sent its MSG_BYE: it sends nothing more (a peer that
 * has all its byes closes its links), but still watches the others. */
static _Atomic int leaving;

static uint64_t now_ns(void) { return (uint64_t)(now_s() * 1e9); }

const char *transport_name(void) { return backend ? backend->name : "none"; }

static int memory_fd[2] = {-1, -1};

void transport_share_memory(int data_fd, int meta_fd)
{
    memory_fd[0] = data_fd;
    memory_fd[1] = meta_fd;
}

void core_shared_memory(int fds[2])
{
    fds[0] = memory_fd[0];
    fds[1] = memory_fd[1];
}

int transport_peer_memory(int node, int *pid, int fds[2])
{
    return backend && backend->peer_memory ? backend->peer_memory(node, pid, fds) : -1;
}

int core_rma_ready(int node)
{
    return backend && backend->rma_ready ? backend->rma_ready(node) : RMA_NO_ACCESS;
}

void core_rma(int node, rma_batch *b) { backend->rma(node, b); }

void core_post(int dest, am_msg *m) { backend->post(dest, m); }

void core_post_unordered(int dest, am_msg *m)
{
    (backend->post_unordered ? backend->post_unordered : backend->post)(dest, m);
}

int core_multicast(const int *dests, int n, const am_msg *m)
{
    return backend->multicast && backend->multicast(dests, n, m);
}

int core_serving(void) { return serving != SERVE_NONE; }

void core_sleep_begin(void)
{
    serving = SERVE_NONE;
    pthread_mutex_unlock(&serve_lock);
}

void core_sleep_end(void)
{
    pthread_mutex_lock(&serve_lock);
    serving = SERVE_COMM;
}

void core_count_dispatch(void)
{
    if (serving == SERVE_POLL)
        COUNTER_ADD(polled_messages, 1);
}

/* Signals are blocked while the handlers run here: one whose handler
 * touched shared memory would fault and wait for a reply that only the
 * holder of serve_lock, this thread, could deliver. */
void am_poll(void)
{
    if (!atomic_load_explicit(&poll_open, memory_order_relaxed) || !backend->receive || serving ||
        pthread_mutex_trylock(&serve_lock))
        return;
    if (backend->arrived()) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        serving = SERVE_POLL;
        COUNTER_ADD(polls, 1);
        backend->receive();
        serving = SERVE_NONE;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    pthread_mutex_unlock(&serve_lock);
}

int core_multicast_native(void) { return backend->multicast_native && backend->multicast_native(); }

void core_post_self(am_msg *m)
{
    spin_lock(&self_lock);
    m->next = NULL;
    if (self_tail)
        self_tail->next = m;
    else
        __atomic_store_n(&self_head, m, __ATOMIC_RELEASE);
    self_tail = m;
    spin_unlock(&self_lock);
    backend->wake();
}

int core_pending(void) { return __atomic_load_n(&self_head, __ATOMIC_ACQUIRE) != NULL; }

void core_expect_reply(void)
{
    atomic_store_explicit(&reply_expected_ns, now_ns(), memory_order_relaxed);
    if (atomic_load_explicit(&comm_blocked, memory_order_relaxed))
        backend->wake();
}

int core_replies_begin(int peer) { return backend->poll_begin && backend->poll_begin(peer); }

int core_take_replies(int peer)
{
    int n = backend->take_replies(peer);
    if (n > 0) /* most looks find nothing, and need no locked add */
        COUNTER_ADD(replies_taken, n);
    return n;
}

void core_count_wakeup(void) { COUNTER_ADD(comm_wakeups, 1); }

void core_replies_end(int peer) { backend->poll_end(peer); }

unsigned core_take_yield(void) { return backend->take_yield; }

void core_wait_begin(void)
{
    atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
    COUNTER_ADD(reply_waits, 1);
}

void core_wait_end(void) { atomic_fetch_sub_explicit(&waiting, 1, memory_order_relaxed); }

int core_drain_self(void)
{
    if (!core_pending())
        return 0;
    spin_lock(&self_lock);
    am_msg *m = self_head;
    int any = m != NULL;
    __atomic_store_n(&self_head, NULL, __ATOMIC_RELAXED);
    self_tail = NULL;
    spin_unlock(&self_lock);
    while (m) {
        /* A caller-owned message (am_post) may be gone once its handler has
         * replied: read what we need from it first. */
        am_msg *next = m->next;
        int heap = m->heap;
        am_dispatch(cfg.node, &m->hdr, (void *)m->payload);
        if (heap == 1)
            free(m);
        m = next;
    }
    return any;
}

void core_heard(int src) { heartbeat_heard(src); }

int core_mesh_ended(int peer)
{
    char c;
    ssize_t n = read(boot.peer_fd[peer], &c, 1);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n > 0)
        log_die_status(1, "protocol error: node %d wrote on its TCP connection, which the %s "
                       "transport does not use (does node %d run with another TSR_TRANSPORT?)",
                       peer, backend->name, peer);
    return 1;
}

int core_peer_left(int peer) { return atomic_load(&life[peer].bye); }

/* Tells every other node that `failed` failed (-1: no one node, the job is
 * stopped as a whole), `cause` saying how, e.g. "was killed by signal 9",
 * so that it names that node rather than this one, whose link it will see
 * close next: every stopping node relays the cause, whichever way it
 * learned it. Best effort: the process is ending. */
static int linked(int peer) { return !backend->linked || backend->linked(peer); }

static void relay(int failed, const char *cause)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (j != failed && j != cfg.node && !atomic_load(&life[j].bye) && linked(j))
            am_send(j, MSG_ABORT, (uint64_t)failed, 0, 0, cause, strlen(cause));
}

/* Stops this node because `failed` failed, as `reporter` (or -1) said. */
static void stop_because(int failed, const char *cause, int reporter) __attribute__((noreturn));
static void stop_because(int failed, const char *cause, int reporter)
{
    relay(failed, cause);
    boot_stop(failed, cause, reporter);
}

/* A peer that never answers may be stopped, not gone: tsrun is told to
 * end it (BOOT_HUNG). */
void core_peer_hung(int peer, const char *cause)
{
    relay(peer, cause);
    boot_stop_hung(peer, cause);
}

void core_link_closed(int peer)
{
    if (atomic_load(&life[peer].bye))
        return;
    stop_because(peer, "failed (connection lost: it crashed, was killed, or exited without "
                       "tsr_finalize)", -1);
}

static void on_abort(int src, const tsr_msg_hdr *h, void *payload)
{
    char cause[BOOT_REASON_LEN];
    snprintf(cause, sizeof cause, "%.*s", (int)(h->len < sizeof cause ? h->len : sizeof cause - 1),
             (char *)payload);
    /* ARG_NODE_OR_ALL: a node of the job, or -1 when the whole job failed. */
    stop_because((int)(int64_t)h->arg[0], cause, src);
}

/* A peer's MSG_BYE ends this node's wait for it, as does having no link
 * to it when the wait begins (on demand): whichever comes first. */
static void bye_counted(int peer)
{
    if (!atomic_exchange(&life[peer].bye_counted, 1))
        waiter_done(&bye_wait);
}

static void on_bye(int src, const tsr_msg_hdr *h, void *payload)
{
    atomic_store(&life[src].bye, 1);
    bye_counted(src);
}

static void say_bye(int peer)
{
    if (!atomic_exchange(&life[peer].bye_sent, 1))
        am_send(peer, MSG_BYE, 0, 0, 0, NULL, 0);
}

/* A link that opens while this node leaves (its peer had a message for
 * it) gets the MSG_BYE the others got: `leaving` is stored before the
 * links are looked at, and a link marked open before `leaving` is read
 * here, so one of the two sees the other. */
void core_link_opened(int peer)
{
    if (atomic_load(&leaving))
        say_bye(peer);
}

/* On demand, waits until the links this node wanted are open. The comm
 * thread opens them meanwhile, or stops the node at TSR_CONNECT_TIMEOUT. */
static void await_links(void)
{
    while (backend->connecting())
        io_sleep(0.001);
}

/* On demand, the links to this node's watchers open now, before the
 * program runs (a message that says nothing, not counted as a beat):
 * beats then never open a link, which after tsr_finalize's barriers a
 * leaving watcher would not know of (transport_quiesce). */
static void link_watchers(void)
{
    for (int k = 1; cfg.heartbeat_s && k <= heartbeat_watchers(); k++)
        am_send(heartbeat_watcher(k), MSG_HEARTBEAT, 0, 0, 0, NULL, 0);
    await_links();
}

void transport_started(void)
{
    if (boot.on_demand)
        link_watchers();
    heartbeat_started();
    boot_started();
}

int transport_quiesce(void)
{
    if (!boot.on_demand)
        return 0;
    await_links();
    return 1;
}

/* Every HEARTBEAT_CHECK_S: a node whose launcher is gone stops; then
 * the heartbeats' turn. */
static void tick(double now)
{
    char why[128];
    if (!heartbeat_due(now))
        return;
    if (boot_launcher_gone(why, sizeof why))
        stop_because(cfg.node, why, -1);
    heartbeat_tick(now, atomic_load(&leaving));
}

static void launcher_news(void)
{
    char why[BOOT_REASON_LEN];
    int failed = boot_launcher_news(why, sizeof why);
    stop_because(failed, why, -1);
}

void core_pollfds(struct pollfd *pfd)
{
    pfd[0] = (struct pollfd){boot.launcher_fd, POLLIN, 0};
    gate_pollfds(&boot.gate, pfd + 1);
}

void core_serve(const struct pollfd *pfd)
{
    gate_serve(&boot.gate, pfd + 1);
    if (pfd[0].revents)
        launcher_news();
}

int core_poll(struct pollfd *pfd, nfds_t n, struct pollfd *core_pfd,
              const struct pollfd *wake_pfd, int64_t wait_ns)
{
    struct timespec ts = {(time_t)(wait_ns / 1000000000), (long)(wait_ns % 1000000000)};
    core_pollfds(core_pfd);
    if (wait_ns)
        core_sleep_begin();
    int ready = ppoll(pfd, n, wait_ns < 0 ? NULL : &ts, NULL);
    if (wait_ns)
        core_sleep_end();
    /* The comm thread blocks every signal, so EINTR should not come; if
     * it does, this turn saw nothing and the loop comes round again. */
    if (ready < 0 && errno == EINTR)
        for (nfds_t i = 0; i < n; i++)
            pfd[i].revents = 0;
    else if (ready < 0)
        log_die_status(1, "the communication thread's poll failed: %m");
    core_serve(core_pfd);
    if (ready > 0 && wake_pfd && wake_pfd->revents) {
        uint64_t v;
        ssize_t unused = read(wake_pfd->fd, &v, sizeof v);
        (void)unused;
    }
    return ready;
}

/* Under hybrid, the comm thread polls while a reply is expected here, and
 * for as long after its last message while a thread of this node waits
 * (rather than computes, on a core this poll would take from it): a peer
 * in a conversation (requests one after the other, a lock passed back and
 * forth) is then answered without a wake-up. */
static int spinning(uint64_t now)
{
    if (cfg.progress == PROGRESS_SPIN)
        return 1;
    if (cfg.progress == PROGRESS_BLOCK)
        return 0;
    uint64_t expected = atomic_load_explicit(&reply_expected_ns, memory_order_relaxed);
    uint64_t busy = atomic_load_explicit(&waiting, memory_order_relaxed) ? last_busy_ns : 0;
    uint64_t since = expected > busy ? expected : busy;
    return now < since || now - since < (uint64_t)cfg.spin_us * 1000;
}

/* How long the backend may wait when nothing happens: until the next
 * heartbeat tick, or the gate's next deadline if sooner. */
static int idle_timeout_ms(void)
{
    int ms = cfg.heartbeat_s && cfg.nodes > 1 ? (int)(HEARTBEAT_CHECK_S * 1000) : -1;
    int gate_ms = gate_timeout_ms(&boot.gate);
    if (gate_ms >= 0 && (ms < 0 || gate_ms < ms))
        ms = gate_ms;
    return ms;
}

/* A yield that came back sooner than this found no other thread that
 * wanted the core. Here an empty sched_yield takes 0.16 us (nearly all
 * under 0.2), while one that ran a spinning thread on the same core and
 * came back took 0.5-2 us. A machine whose empty yields take longer only
 * keeps offering its core every WAIT_YIELD_FOR_COMM turns. */
#define YIELD_EMPTY_NS 400

/* Offers the core, as often as the last offers say is worth it: `every`
 * idle turns, doubled (up to WAIT_YIELD_FOR_PEER) by each offer that no
 * thread took, and back to WAIT_YIELD_FOR_COMM after one that a thread
 * took. An empty yield is a system call that delays the next message by
 * its length: when nothing else wanted the core, a peer's comm thread
 * that yielded every 8 idle turns rather than every 64 made a 64-byte AM
 * round trip over shm 0.46-0.54 us rather than 0.39-0.47 (alternated
 * runs). */
static void offer_core(unsigned *every)
{
    uint64_t before = now_ns();
    sched_yield();
    if (now_ns() - before >= YIELD_EMPTY_NS)
        *every = WAIT_YIELD_FOR_COMM;
    else if (*every < WAIT_YIELD_FOR_PEER)
        *every *= 2;
}

static void *comm_main(void *arg)
{
    trace_thread_name("comm");
    core_sleep_end();
    unsigned idle_turns = 0, yield_every = WAIT_YIELD_FOR_COMM;
    uint64_t now = now_ns();
    while (!atomic_load(&comm_stop) || !backend->idle()) {
        int spin = spinning(now);
        /* Set only around a turn that may block: a spinning turn does not
         * pay for a locked store. */
        if (!spin)
            atomic_store(&comm_blocked, 1);
        int busy = backend->progress(spin ? 0 : idle_timeout_ms());
        if (!spin)
            atomic_store(&comm_blocked, 0);
        idle_turns = busy || !spin ? 0 : idle_turns + 1;
        /* A look at the clock costs as much as the rest of an idle turn
         * here: once a turn that did something or slept, and every 16th
         * idle one. */
        if (idle_turns % 16 == 0) {
            now = now_ns();
            if (busy && cfg.progress == PROGRESS_HYBRID)
                last_busy_ns = now;
            tick((double)now * 1e-9);
        }
        /* Let the threads we are waiting for run now and then (as a waiting
         * thread does): one every 8 turns rather than 64 gives the core back
         * soon enough to a waiting thread of this node or to a peer that
         * shares it (part of wait.c's measured gain), but only while such
         * a thread takes it (offer_core). */
        if (idle_turns % yield_every == yield_every - 1)
            offer_core(&yield_every);
        else if (idle_turns)
            cpu_relax();
    }
    core_sleep_begin();
    return NULL;
}

static const tsr_backend *choose(void)
{
    switch (cfg.transport) {
    case TRANSPORT_SHM:
        return &shm_backend;
    case TRANSPORT_UDP:
        return &udp_backend;
    case TRANSPORT_UCX:
#ifdef TSR_HAVE_UCX
        return &ucx_backend;
#else
        log_die("TSR_TRANSPORT=ucx: this Tessera was built without UCX (install libucx-dev, "
                "e.g. scripts/deps.sh ucx, then rebuild: the Makefile finds it with pkg-config)");
#endif
    case TRANSPORT_AUTO:
        /* The rings between the nodes of each host, TCP between hosts
         * (shm_hosts.h): TCP alone when no host has two nodes. */
        return cfg.shm_fd >= 0 || cfg.nodes == 1 || boot_hosts_shared() ? &shm_backend
                                                                   : &tcp_backend;
    default:
        return &tcp_backend;
    }
}

void transport_start(void)
{
    backend = choose();
    if (boot.on_demand && backend != &tcp_backend) /* boot.c's tcp_on_demand disagrees */
        log_die("connections on demand need the tcp backend, not %s", backend->name);
    life = calloc((size_t)cfg.nodes, sizeof *life);
    if (!life)
        log_die("cannot set up the transport: out of memory");
    sendq_init();
    stats_register(&replies_taken);
    stats_register(&reply_waits);
    stats_register(&comm_wakeups);
    stats_register(&polls);
    stats_register(&polled_messages);
    heartbeat_init();
    holdup_init();
    am_register(MSG_BYE, on_bye);
    am_register(MSG_ABORT, on_abort);
    waiter_init(&bye_wait, (uint32_t)cfg.nodes - 1);
    backend->start();
    log_debug("transport: %s", backend->name);
    thread_start(&comm_thread, comm_main, "the communication thread");
    atomic_store(&poll_open, 1);
}

void transport_shutdown(void)
{
    atomic_store(&leaving, 1);
    for (int i = 0; i < cfg.nodes; i++)
        if (i != cfg.node && linked(i))
            say_bye(i);
        else if (i != cfg.node)
            bye_counted(i);
    waiter_wait(&bye_wait);
    atomic_store(&poll_open, 0);
    atomic_store(&comm_stop, 1);
    backend->wake();
    pthread_join(comm_thread, NULL);
    backend->stop();
    free(life);
    life = NULL;
    heartbeat_free();
}
