/*
 * boot.c - joins a job started by tsrun. Every node listens on an ephemeral
 * port, registers it with tsrun together with the job secret, receives the
 * table of all endpoints, then connects to every lower-numbered node and
 * accepts every higher-numbered one. Lower ids accept, so no node waits on a
 * node that is itself waiting: the dependencies only point downwards.
 * Under TSR_CONNECT=demand with the tcp backend the mesh is not built: the
 * table is kept, and the gate hands each peer's connection, its hello
 * checked here, to the transport (tcp_dial.h).
 */
#include "boot/boot.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot_proto.h"
#include "boot/iface.h"
#include "boot/rendezvous.h"
#include "stats/stats.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/io.h"
#include "util/log.h"

/* Extra time a node waits for the node table beyond TSR_CONNECT_TIMEOUT:
 * tsrun, which counts the same limit from before the nodes start, is the
 * one to name a node that never registered. */
#define TABLE_GRACE_S 5.0

tsr_boot boot = {.peer_fd = NULL, .listen_fd = -1, .launcher_fd = -1, .gate = {.listen_fd = -1}};
/* Not a peer that said its hello: a node id in range and not this one's. */
#define PEER_ID_OK(n) ((n) < (uint32_t)cfg.nodes && (n) != (uint32_t)cfg.node)

static gate_judge mesh_judge;

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* connect(2) on a non-blocking fd, by deadline: a listener whose queue is
 * full drops the SYN, and a blocking connect would retry for minutes, past
 * TSR_CONNECT_TIMEOUT (interrupted by a signal, the connection goes on in
 * the background too, and is waited for the same way). */
static int wait_connected(int fd, const struct sockaddr_in *sa, double deadline)
{
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
        return 0;
    if (errno != EINPROGRESS && errno != EINTR)
        return -1;
    int ready = io_wait(fd, POLLOUT, deadline), err;
    socklen_t len = sizeof err;
    if (ready <= 0) {
        errno = ready ? errno : ETIMEDOUT;
        return -1;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
        return -1;
    errno = err;
    return err ? -1 : 0;
}

/* One connection attempt: a blocking socket, or -1 (errno set). */
static int dial(const struct sockaddr_in *sa, double deadline)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        log_die("socket: %m");
    if (wait_connected(fd, sa, deadline) == 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        set_nodelay(fd);
        return fd;
    }
    int err = errno;
    close(fd);
    errno = err;
    return -1;
}

static int connect_to(uint32_t addr, uint16_t port, double deadline)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = port, .sin_addr.s_addr = addr};
    for (;;) {
        int fd = dial(&sa, deadline);
        if (fd >= 0 || now_s() > deadline)
            return fd;
        io_sleep(0.01);
    }
}

/* Waits until the gate at addr:port answers the hello on *fd. A gate
 * closes a newcomer unanswered when too many wait to speak or when its
 * hello came late (boot/gate.h), which an honest node meets when the host
 * is overloaded between its connect and its write: it then connects again
 * and repeats the hello, until deadline. One attempt per refusal, so a
 * listener that is gone fails at once. Returns 0 when the answer's first
 * byte waits, or -1 (errno set). */
static int await_answer(int *fd, uint32_t addr, uint16_t port, const boot_hello *h,
                        double deadline)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = port, .sin_addr.s_addr = addr};
    for (;;) {
        char byte;
        if (io_wait(*fd, POLLIN, deadline) <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        ssize_t r = recv(*fd, &byte, 1, MSG_PEEK);
        if (r > 0)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno != ECONNRESET)
            return -1;
        log_debug("refused at port %u before the answer; connecting again", ntohs(port));
        close(*fd);
        io_sleep(0.01);
        if ((*fd = dial(&sa, deadline)) < 0)
            return -1;
        if (io_write_all(*fd, h, sizeof *h) && errno != EPIPE && errno != ECONNRESET)
            return -1; /* refused again before the hello: the next look sees it */
    }
}

uint32_t boot_parse_addr(const char *s, uint16_t *port)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    if (!colon || colon - s >= (long)sizeof host)
        log_die("TSR_BOOT='%s' is not host:port", s);
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = 0;
    struct in_addr in;
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (inet_pton(AF_INET, host, &in) != 1 || end == colon + 1 || *end || p <= 0 || p > 65535)
        log_die("TSR_BOOT='%s' is not an IPv4 host:port", s);
    *port = htons((uint16_t)p);
    return in.s_addr;
}

/* Listens on an ephemeral port of `addr`; returns the port in network
 * order. The backlog holds every higher-numbered node at once, whatever
 * strangers queue beside them (the kernel caps it at net.core.somaxconn). */
static uint16_t open_listener(uint32_t addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = addr};
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
        listen(fd, cfg.nodes + BOOT_GATE_CAP) || getsockname(fd, (struct sockaddr *)&sa, &len))
        log_die("cannot listen for peers: %m");
    boot.listen_fd = fd;
    return sa.sin_port;
}

static void fill_secret(char *dst)
{
    memset(dst, 0, BOOT_SECRET_LEN);
    memcpy(dst, cfg.secret, strnlen(cfg.secret, BOOT_SECRET_LEN));
}

/* boot_stop, telling tsrun `type` (BOOT_STOP or BOOT_HUNG). */
static void stop_noting(uint32_t type, int failed, const char *cause, int reporter)
    __attribute__((noreturn));
static void stop_noting(uint32_t type, int failed, const char *cause, int reporter)
{
    boot_note note = {BOOT_MAGIC, type, failed < 0 ? BOOT_NO_NODE : (uint32_t)failed, {0}};
    snprintf(note.reason, sizeof note.reason, "%s", cause);
    if (boot.launcher_fd >= 0)
        io_write_all(boot.launcher_fd, &note, sizeof note);
    char by[40] = "";
    if (reporter >= 0)
        snprintf(by, sizeof by, " (reported by node %d)", reporter);
    if (failed < 0)
        log_die_status(TSR_EXIT_PEER_FAILED, "stopping: %s%s", cause, by);
    log_die_status(TSR_EXIT_PEER_FAILED, "stopping: node %d %s%s", failed, cause, by);
}

void boot_stop(int failed, const char *cause, int reporter)
{
    stop_noting(BOOT_STOP, failed, cause, reporter);
}

void boot_stop_hung(int failed, const char *cause) { stop_noting(BOOT_HUNG, failed, cause, -1); }

/* log_last_words' hook: tsrun repeats why this node ends when it reports
 * its exit (BOOT_DIED). One write on a socket, no allocation: safe in a
 * signal handler and from any thread. */
static void tell_launcher_why(const char *why)
{
    if (boot.launcher_fd < 0)
        return;
    boot_note note = {BOOT_MAGIC, BOOT_DIED, (uint32_t)cfg.node, {0}};
    size_t len = strnlen(why, sizeof note.reason - 1);
    memcpy(note.reason, why, len);
    io_write_all(boot.launcher_fd, &note, sizeof note);
}

/* tsrun stopped the job while this node waited for the table: the header
 * read so far is the start of a BOOT_ABORT note. */
static void launcher_aborted(const boot_table *t, double deadline)
{
    boot_note note;
    memcpy(&note, t, sizeof *t);
    if (io_read_full(boot.launcher_fd, (char *)&note + sizeof *t, sizeof note - sizeof *t,
                     deadline))
        log_die("tsrun's word that the job stops was cut short");
    note.reason[sizeof note.reason - 1] = 0;
    boot_stop(note.node == BOOT_NO_NODE ? -1 : (int)note.node, note.reason, -1);
}

/* Listens on the address peers reach this host by (boot/iface.h): the
 * local end of reach_fd, the connection to tsrun, unless TSR_ADDR or
 * TSR_IFACE say otherwise. Returns the port; *addr is the address. */
static uint16_t listen_for_peers(int reach_fd, uint32_t *addr)
{
    char why[160];
    if (iface_listen_addr(cfg.addr, cfg.iface, reach_fd, addr, why, sizeof why))
        log_die("%s", why);
    uint16_t port = open_listener(*addr);
    gate_open(&boot.gate, boot.listen_fd, BOOT_GATE_CAP, mesh_judge, NULL);
    char ip[INET_ADDRSTRLEN];
    log_debug("peers reach this node at %s", inet_ntop(AF_INET, addr, ip, sizeof ip));
    log_debug("listening for peers on port %u", ntohs(port));
    return port;
}

static boot_endpoint *register_with_launcher(void)
{
    uint16_t lport;
    uint32_t laddr = boot_parse_addr(cfg.boot, &lport), addr;
    double deadline = now_s() + cfg.connect_timeout_s;
    boot.launcher_fd = connect_to(laddr, lport, deadline);
    if (boot.launcher_fd < 0)
        log_die("cannot reach tsrun at %s: %m", cfg.boot);
    uint16_t port = listen_for_peers(boot.launcher_fd, &addr);
    boot_hello h = {BOOT_MAGIC, BOOT_HELLO, (uint32_t)cfg.node, getpid(), addr, port, 0, {0}};
    fill_secret(h.secret);
    boot_table t;
    deadline += TABLE_GRACE_S;
    if (io_write_all(boot.launcher_fd, &h, sizeof h) ||
        await_answer(&boot.launcher_fd, laddr, lport, &h, deadline) ||
        io_read_full(boot.launcher_fd, &t, sizeof t, deadline) || t.magic != BOOT_MAGIC)
        log_die("tsrun at %s did not send the node table", cfg.boot);
    if (t.type == BOOT_ABORT)
        launcher_aborted(&t, deadline);
    if (t.type != BOOT_TABLE || t.nodes != (uint32_t)cfg.nodes)
        log_die("tsrun sent a malformed node table");
    boot_endpoint *ep = calloc((size_t)cfg.nodes, sizeof *ep);
    if (!ep)
        log_die("out of memory (the node table)");
    if (io_read_full(boot.launcher_fd, ep, (size_t)cfg.nodes * sizeof *ep, deadline))
        log_die("tsrun's node table was cut short");
    return ep;
}

/* Under srun or mpirun, the launcher's process on this host (slurmstepd,
 * orted, mpirun) is this node's parent; 0 under tsrun or alone. */
static pid_t launcher_pid;

/* Started by srun or mpirun: the peers meet in the rendezvous directory. */
static boot_endpoint *meet_without_launcher(void)
{
    launcher_pid = getppid();
    uint32_t addr;
    uint16_t port = listen_for_peers(-1, &addr);
    return rendezvous_exchange(addr, port);
}

/* Every hello goes out before the first acknowledgement is awaited, so
 * that the lower nodes accept in parallel rather than one after another
 * (at 256 nodes this halves the start-up). A peer that does not take part
 * failed to start (or died): this node stops naming it, so that tsrun does
 * not blame this one. */
static void connect_lower(const boot_endpoint *ep, double deadline)
{
    char cause[96];
    boot_hello h;
    boot_mesh_hello(&h);
    for (int j = 0; j < cfg.node; j++) {
        int fd = connect_to(ep[j].addr, ep[j].port, deadline);
        if (fd < 0) {
            snprintf(cause, sizeof cause, "could not be reached while the job started: %m");
            boot_stop(j, cause, -1);
        }
        if (io_write_all(fd, &h, sizeof h))
            boot_stop(j, "dropped a connection while the job started", -1);
        boot.peer_fd[j] = fd;
    }
    for (int j = 0; j < cfg.node; j++) {
        boot_note ack;
        if (await_answer(&boot.peer_fd[j], ep[j].addr, ep[j].port, &h, deadline) ||
            io_read_full(boot.peer_fd[j], &ack, sizeof ack, deadline) || !boot_mesh_ack_ok(&ack, j))
            boot_stop(j, "did not accept a connection while the job started", -1);
    }
}

void boot_mesh_hello(boot_hello *h)
{
    *h = (boot_hello){BOOT_MAGIC, MESH_HELLO, (uint32_t)cfg.node, getpid(), 0, 0, 0, {0}};
    fill_secret(h->secret);
}

int boot_mesh_ack(int fd)
{
    boot_note ack = {BOOT_MAGIC, MESH_ACK, (uint32_t)cfg.node, {0}};
    set_nodelay(fd);
    return io_write_all(fd, &ack, sizeof ack);
}

int boot_mesh_ack_ok(const boot_note *ack, int node)
{
    return ack->magic == BOOT_MAGIC && ack->type == MESH_ACK && ack->node == (uint32_t)node;
}

/* Higher-numbered nodes this node still waits for; 0 once the mesh is
 * complete, after which the gate refuses every connection. */
static int missing;

/* The peer port's judge (boot.gate): takes a higher-numbered node's
 * MESH_HELLO while the mesh is being built, or, on demand, hands any
 * peer's to the transport once it is there to take it. */
static const char *mesh_judge(const boot_hello *h, int fd, void *ctx)
{
    if (h->magic != BOOT_MAGIC || h->type != MESH_HELLO)
        return "not a Tessera hello";
    if (!boot_secret_equal(h->secret, cfg.secret))
        return "bad job secret";
    if (boot.on_demand && PEER_ID_OK(h->node))
        return boot.peer_hello ? boot.peer_hello((int)h->node, fd) : "the transport has not started";
    if (!missing)
        return "the job's mesh is complete";
    if (h->node <= (uint32_t)cfg.node || h->node >= (uint32_t)cfg.nodes)
        return "node id out of range";
    if (boot.peer_fd[h->node] >= 0)
        return "that node is already connected";
    if (boot_mesh_ack(fd))
        boot_stop((int)h->node, "dropped its connection while the job started", -1);
    boot.peer_fd[h->node] = fd;
    missing--;
    return NULL;
}

static int first_missing(void)
{
    for (int j = cfg.node + 1; j < cfg.nodes; j++)
        if (boot.peer_fd[j] < 0)
            return j;
    return -1;
}

static void accept_higher(double deadline)
{
    struct pollfd pfd[GATE_POLLFDS(BOOT_GATE_CAP)];
    missing = cfg.nodes - 1 - cfg.node;
    while (missing > 0) {
        int ms = (int)((deadline - now_s()) * 1000), gate_ms = gate_timeout_ms(&boot.gate);
        if (ms <= 0)
            boot_stop(first_missing(), "did not connect while the job started", -1);
        int wait_ms = gate_ms >= 0 && gate_ms < ms ? gate_ms : ms;
        gate_pollfds(&boot.gate, pfd);
        if (poll(pfd, GATE_POLLFDS(BOOT_GATE_CAP), wait_ms) < 0 && errno != EINTR)
            log_die("poll: %m");
        gate_serve(&boot.gate, pfd);
    }
}

int boot_hosts_shared(void)
{
    for (int j = 0; j < cfg.nodes; j++)
        if (boot.host[j] != j)
            return 1;
    return 0;
}

/* Connections on demand are the tcp backend's (core.c's choice of it):
 * shm between hosts, udp and ucx keep the mesh, which they read to learn
 * that a peer has gone. */
static int tcp_on_demand(void)
{
    return cfg.connect_on_demand && cfg.nodes > 1 &&
           (cfg.transport == TRANSPORT_TCP ||
            (cfg.transport == TRANSPORT_AUTO && cfg.shm_fd < 0 && !boot_hosts_shared()));
}

/* Nodes that peers reach at one address share a host (a host's nodes
 * listen on its address toward the job, boot/iface.h). */
static void find_hosts(const boot_endpoint *ep)
{
    for (int i = 0; i < cfg.nodes; i++) {
        boot.host[i] = i;
        for (int j = 0; j < i && boot.host[i] == i; j++)
            if (ep[j].addr == ep[i].addr)
                boot.host[i] = j;
    }
}

void boot_start(void)
{
    boot.peer_fd = malloc((size_t)cfg.nodes * sizeof *boot.peer_fd);
    boot.host = calloc((size_t)cfg.nodes, sizeof *boot.host);
    if (!boot.peer_fd || !boot.host)
        log_die("out of memory");
    for (int i = 0; i < cfg.nodes; i++)
        boot.peer_fd[i] = -1;
    if (!cfg.boot && !cfg.job_key[0])
        return;
    if (cfg.boot && (strlen(cfg.secret) != BOOT_SECRET_LEN ||
                     strspn(cfg.secret, "0123456789abcdefABCDEF") != BOOT_SECRET_LEN))
        log_die("TSR_SECRET must be %d hex characters", BOOT_SECRET_LEN);
    log_on_last_words(tell_launcher_why);
    boot_endpoint *ep = cfg.boot ? register_with_launcher() : meet_without_launcher();
    find_hosts(ep);
    boot.on_demand = tcp_on_demand();
    if (boot.on_demand) {
        boot.ep = ep; /* the rendezvous ends at boot_started */
        return;
    }
    double deadline = now_s() + cfg.connect_timeout_s;
    connect_lower(ep, deadline);
    accept_higher(deadline);
    rendezvous_done();
    free(ep);
}

/* Without the mesh, tsr_init's last barrier is what shows that every
 * node has read the rendezvous' files. */
void boot_started(void)
{
    if (boot.on_demand)
        rendezvous_done();
}

int boot_launcher_news(char *why, size_t len)
{
    boot_note note;
    if (io_read_full(boot.launcher_fd, &note, sizeof note, now_s() + 1) == 0 &&
        note.magic == BOOT_MAGIC && note.type == BOOT_ABORT) {
        note.reason[sizeof note.reason - 1] = 0;
        snprintf(why, len, "%s", note.reason);
        return note.node == BOOT_NO_NODE ? -1 : (int)note.node;
    }
    snprintf(why, len, "lost contact with tsrun");
    return -1;
}

int boot_launcher_gone(char *why, size_t len)
{
    if (!launcher_pid || getppid() == launcher_pid)
        return 0;
    snprintf(why, len, "lost its launcher: its parent, process %d (slurmstepd, orted or mpirun), "
             "ended", (int)launcher_pid);
    return 1;
}

static void send_stat(const char *name, uint64_t value, int ns, void *ctx)
{
    boot_stat s = {BOOT_MAGIC, BOOT_STAT, ns ? BOOT_STAT_NS : BOOT_STAT_COUNT, {0}, value, {0}};
    snprintf(s.name, sizeof s.name, "%s", name);
    io_write_all(boot.launcher_fd, &s, sizeof s);
}

int boot_send_stats(void)
{
    if (boot.launcher_fd < 0)
        return 0;
    stats_each(send_stat, NULL);
    return 1;
}

void boot_fin(void)
{
    if (boot.launcher_fd < 0)
        return;
    boot_note fin = {BOOT_MAGIC, BOOT_FIN, (uint32_t)cfg.node, {0}};
    io_write_all(boot.launcher_fd, &fin, sizeof fin);
}
