/*
 * boot.c - joins a job started by tsrun. Every node listens on an ephemeral
 * port, registers it with tsrun together with the job secret, receives the
 * table of all endpoints, then connects to every lower-numbered node and
 * accepts every higher-numbered one. Lower ids accept, so no node waits on a
 * node that is itself waiting: the dependencies only point downwards.
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
#include "util/config.h"
#include "util/cpu.h"
#include "util/io.h"
#include "util/log.h"

tsr_boot boot = {NULL, -1, -1};

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* connect(2) that survives a signal: interrupted, the connection goes on in
 * the background, so wait for its outcome rather than start another. */
static int connect_once(int fd, const struct sockaddr_in *sa, double deadline)
{
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
        return 0;
    if (errno != EINTR)
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

static int connect_to(uint32_t addr, uint16_t port, double deadline)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = port, .sin_addr.s_addr = addr};
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            log_die("socket: %m");
        if (connect_once(fd, &sa, deadline) == 0) {
            set_nodelay(fd);
            return fd;
        }
        int err = errno;
        close(fd);
        if (now_s() > deadline) {
            errno = err;
            return -1;
        }
        io_sleep(0.01);
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

/* Listens on an ephemeral port of TSR_BOOT's interface (loopback for a job
 * on one host); returns the port in network order. */
static uint16_t open_listener(uint32_t addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = addr};
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 128) ||
        getsockname(fd, (struct sockaddr *)&sa, &len))
        log_die("cannot listen for peers: %m");
    boot.listen_fd = fd;
    return sa.sin_port;
}

static int secret_ok(const char *s)
{
    /* Compare every byte so that timing tells nothing about the secret. */
    unsigned char diff = 0;
    for (int i = 0; i < BOOT_SECRET_LEN; i++)
        diff |= (unsigned char)(s[i] ^ cfg.secret[i]);
    return diff == 0;
}

static void fill_secret(char *dst)
{
    memset(dst, 0, BOOT_SECRET_LEN);
    memcpy(dst, cfg.secret, strnlen(cfg.secret, BOOT_SECRET_LEN));
}

static boot_endpoint *register_with_launcher(uint32_t addr, uint16_t port)
{
    uint16_t lport;
    uint32_t laddr = boot_parse_addr(cfg.boot, &lport);
    double deadline = now_s() + cfg.connect_timeout_s;
    boot.launcher_fd = connect_to(laddr, lport, deadline);
    if (boot.launcher_fd < 0)
        log_die("cannot reach tsrun at %s: %m", cfg.boot);
    boot_hello h = {BOOT_MAGIC, BOOT_HELLO, (uint32_t)cfg.node, getpid(), addr, port, 0, {0}};
    fill_secret(h.secret);
    boot_table t;
    if (io_write_all(boot.launcher_fd, &h, sizeof h) ||
        io_read_full(boot.launcher_fd, &t, sizeof t, deadline) || t.magic != BOOT_MAGIC)
        log_die("tsrun at %s did not send the node table (another node failed to start?)",
                cfg.boot);
    if (t.type != BOOT_TABLE || t.nodes != (uint32_t)cfg.nodes)
        log_die("tsrun sent a malformed node table");
    boot_endpoint *ep = calloc((size_t)cfg.nodes, sizeof *ep);
    if (!ep || io_read_full(boot.launcher_fd, ep, (size_t)cfg.nodes * sizeof *ep, deadline))
        log_die("tsrun's node table was cut short");
    return ep;
}

static void connect_lower(const boot_endpoint *ep, double deadline)
{
    for (int j = 0; j < cfg.node; j++) {
        int fd = connect_to(ep[j].addr, ep[j].port, deadline);
        if (fd < 0)
            log_die("cannot connect to node %d: %m", j);
        boot_hello h = {BOOT_MAGIC, MESH_HELLO, (uint32_t)cfg.node, getpid(), 0, 0, 0, {0}};
        fill_secret(h.secret);
        boot_note ack;
        if (io_write_all(fd, &h, sizeof h) || io_read_full(fd, &ack, sizeof ack, deadline) ||
            ack.magic != BOOT_MAGIC || ack.type != MESH_ACK || ack.node != (uint32_t)j)
            log_die("node %d did not accept this node's connection", j);
        boot.peer_fd[j] = fd;
    }
}

static const char *peer_name(int fd, char *buf, size_t len)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    if (getpeername(fd, (struct sockaddr *)&sa, &sl))
        return "an unknown address";
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    snprintf(buf, len, "%s:%u", ip, ntohs(sa.sin_port));
    return buf;
}

/* Why a MESH_HELLO is refused, or NULL if it is acceptable now. */
static const char *mesh_hello_fault(const boot_hello *h)
{
    if (h->magic != BOOT_MAGIC || h->type != MESH_HELLO)
        return "not a Tessera hello";
    if (!secret_ok(h->secret))
        return "bad job secret";
    if (h->node <= (uint32_t)cfg.node || h->node >= (uint32_t)cfg.nodes)
        return "node id out of range";
    if (boot.peer_fd[h->node] >= 0)
        return "that node is already connected";
    return NULL;
}

static void accept_higher(double deadline)
{
    int missing = cfg.nodes - 1 - cfg.node;
    while (missing > 0) {
        if (io_wait(boot.listen_fd, POLLIN, deadline) <= 0)
            log_die("timed out waiting for %d higher-numbered node(s) to connect", missing);
        int fd = accept4(boot.listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue; /* EINTR, or the connection was reset before accept */
        boot_hello h;
        char who[64];
        const char *why = io_read_full(fd, &h, sizeof h, now_s() + 5) ? "no hello" : mesh_hello_fault(&h);
        if (why) {
            log_warn("refused connection from %s: %s", peer_name(fd, who, sizeof who), why);
            close(fd);
            continue;
        }
        boot_note ack = {BOOT_MAGIC, MESH_ACK, (uint32_t)cfg.node, {0}};
        if (io_write_all(fd, &ack, sizeof ack))
            log_die("node %u dropped its connection while joining", h.node);
        set_nodelay(fd);
        boot.peer_fd[h.node] = fd;
        missing--;
    }
}

void boot_start(void)
{
    boot.peer_fd = malloc((size_t)cfg.nodes * sizeof *boot.peer_fd);
    if (!boot.peer_fd)
        log_die("out of memory");
    for (int i = 0; i < cfg.nodes; i++)
        boot.peer_fd[i] = -1;
    if (!cfg.boot)
        return;
    if (strlen(cfg.secret) != BOOT_SECRET_LEN ||
        strspn(cfg.secret, "0123456789abcdefABCDEF") != BOOT_SECRET_LEN)
        log_die("TSR_SECRET must be %d hex characters", BOOT_SECRET_LEN);
    uint16_t unused;
    uint32_t addr = boot_parse_addr(cfg.boot, &unused);
    uint16_t port = open_listener(addr);
    log_debug("listening for peers on port %u", ntohs(port));
    boot_endpoint *ep = register_with_launcher(addr, port);
    double deadline = now_s() + cfg.connect_timeout_s;
    connect_lower(ep, deadline);
    accept_higher(deadline);
    free(ep);
}

int boot_stranger_accept(void)
{
    return accept4(boot.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

void boot_stranger_refuse(int fd)
{
    boot_hello h;
    char who[64];
    ssize_t n = recv(fd, &h, sizeof h, MSG_DONTWAIT);
    const char *why = "the job's mesh is complete";
    if (n != (ssize_t)sizeof h)
        why = "no job secret presented";
    else if (h.magic != BOOT_MAGIC || !secret_ok(h.secret))
        why = "bad job secret";
    log_warn("refused connection from %s: %s", peer_name(fd, who, sizeof who), why);
    close(fd);
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

void boot_fin(void)
{
    if (boot.launcher_fd < 0)
        return;
    boot_note fin = {BOOT_MAGIC, BOOT_FIN, (uint32_t)cfg.node, {0}};
    io_write_all(boot.launcher_fd, &fin, sizeof fin);
}
