/*
 * tsrun - starts a Tessera job of N node processes on this host and watches
 * it until every node has exited.
 *
 * tsrun creates the job secret, listens on a loopback port, starts the
 * nodes with TSR_NODE/TSR_NODES/TSR_BOOT/TSR_SECRET set, and once all of
 * them have registered sends each the table of endpoints (they then connect
 * the mesh themselves). Afterwards it is the job's watchdog: the first node
 * to die, exit non-zero or exit without tsr_finalize makes it tell every
 * other node why (BOOT_ABORT), and kill whatever still runs a few seconds
 * later. Its exit status is the first non-zero status of any node.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot_proto.h"
#include "util/cpu.h"
#include "util/io.h"

#define KILL_GRACE_S 3.0
/* A node that exits with this status stopped because another node failed
 * (util/log.h); tsrun waits this long for the failure that caused it. */
#define PEER_FAILED_STATUS 3
#define CAUSE_WAIT_S 1.0
#define REGISTER_TIMEOUT_S 60.0

typedef struct line_buf {
    int fd;        /* read end of the node's stdout or stderr pipe, -1 at EOF */
    int out;       /* where tsrun writes: 1 or 2 */
    char buf[8192];
    size_t len;
} line_buf;

typedef struct node {
    pid_t pid;
    int conn;      /* boot connection, -1 until registered / after EOF */
    int registered, finished, exited;
    int status;    /* exit status as a shell reports it */
    boot_endpoint ep;
    line_buf io[2];
} node;

static struct {
    int n;
    int prefix;
    double timeout;
    char **argv;
} opt;

static node *nodes;
static int listen_fd, sigchld_pipe[2];
static char secret[BOOT_SECRET_LEN + 1];
static int exit_status, stopping, live;
static double kill_at = -1;
static int consequence = -1; /* first node that stopped because of another */
static double consequence_at;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tsrun -n N [options] program [args...]\n"
            "Runs program as an N-node Tessera job on this host.\n\n"
            "  -n, --nodes N        number of node processes (required)\n"
            "  -p, --prefix         prefix every output line with [node]\n"
            "  -s, --stats          print each node's statistics at exit (TSR_STATS=1)\n"
            "  -j, --stats-json F   append each node's statistics as JSON to F\n"
            "  -m, --memory SIZE    shared address space per job, e.g. 16G (TSR_MEMORY)\n"
            "  -t, --timeout SECS   stop the job if it runs longer than SECS\n"
            "  -h, --help           this text\n\n"
            "Exit status: the first non-zero status of any node, 0 if all succeed.\n"
            "Environment variables: see docs/CONFIG.md.\n");
}

static long parse_long(const char *what, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        fprintf(stderr, "tsrun: %s must be an integer in [%ld, %ld], got '%s'\n", what, lo, hi, s);
        exit(2);
    }
    return v;
}

static void parse_args(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"nodes", required_argument, 0, 'n'},      {"prefix", no_argument, 0, 'p'},
        {"stats", no_argument, 0, 's'},            {"stats-json", required_argument, 0, 'j'},
        {"memory", required_argument, 0, 'm'},     {"timeout", required_argument, 0, 't'},
        {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "+n:psj:m:t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': opt.n = (int)parse_long("-n", optarg, 1, 4096); break;
        case 'p': opt.prefix = 1; break;
        case 's': setenv("TSR_STATS", "1", 1); break;
        case 'j': setenv("TSR_STATS_JSON", optarg, 1); break;
        case 'm': setenv("TSR_MEMORY", optarg, 1); break;
        case 't': opt.timeout = (double)parse_long("--timeout", optarg, 1, 1L << 30); break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (!opt.n) {
        fprintf(stderr, "tsrun: -n N is required\n");
        usage(stderr);
        exit(2);
    }
    if (optind >= argc) {
        fprintf(stderr, "tsrun: no program given\n");
        usage(stderr);
        exit(2);
    }
    opt.argv = argv + optind;
}

/* A program named without a slash is looked up in PATH, as exec would. */
static void check_program(const char *prog)
{
    if (strchr(prog, '/')) {
        if (access(prog, X_OK)) {
            fprintf(stderr, "tsrun: cannot execute '%s': %s\n", prog, strerror(errno));
            exit(127);
        }
        return;
    }
    const char *path = getenv("PATH");
    char buf[4096];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, len ? p : ".", prog);
        if (!access(buf, X_OK))
            return;
        p += len + (colon != NULL);
    }
    fprintf(stderr, "tsrun: cannot execute '%s': not found in PATH\n", prog);
    exit(127);
}

static void make_secret(void)
{
    unsigned char raw[BOOT_SECRET_LEN / 2];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        perror("tsrun: getrandom");
        exit(1);
    }
    for (size_t i = 0; i < sizeof raw; i++)
        sprintf(secret + 2 * i, "%02x", raw[i]);
}

static uint16_t open_listener(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&sa, sizeof sa) ||
        listen(listen_fd, 256) || getsockname(listen_fd, (struct sockaddr *)&sa, &len)) {
        perror("tsrun: cannot listen on loopback");
        exit(1);
    }
    return ntohs(sa.sin_port);
}

static void on_sigchld(int sig)
{
    int saved = errno;
    ssize_t unused = write(sigchld_pipe[1], "c", 1);
    (void)unused;
    errno = saved;
}

static void on_interrupt(int sig)
{
    for (int i = 0; i < opt.n; i++)
        if (nodes[i].pid > 0 && !nodes[i].exited)
            kill(nodes[i].pid, SIGTERM);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void start_node(int i, uint16_t port)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (opt.prefix && (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))) {
        perror("tsrun: pipe");
        exit(1);
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("tsrun: fork");
        exit(1);
    }
    if (pid == 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "%d", i);
        setenv("TSR_NODE", buf, 1);
        snprintf(buf, sizeof buf, "%d", opt.n);
        setenv("TSR_NODES", buf, 1);
        snprintf(buf, sizeof buf, "127.0.0.1:%u", port);
        setenv("TSR_BOOT", buf, 1);
        setenv("TSR_SECRET", secret, 1);
        if (opt.prefix) {
            dup2(out[1], 1);
            dup2(err[1], 2);
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execvp(opt.argv[0], opt.argv);
        fprintf(stderr, "tsrun: node %d: cannot execute '%s': %s\n", i, opt.argv[0],
                strerror(errno));
        _exit(127);
    }
    node *nd = &nodes[i];
    nd->pid = pid;
    nd->conn = -1;
    nd->io[0] = (line_buf){opt.prefix ? out[0] : -1, 1, {0}, 0};
    nd->io[1] = (line_buf){opt.prefix ? err[0] : -1, 2, {0}, 0};
    if (opt.prefix) {
        close(out[1]);
        close(err[1]);
    }
}

/* The first failure stops the job: every other node is told who failed and
 * why, and is killed if it has not gone KILL_GRACE_S seconds later. */
static void job_failed(int who, const char *why)
{
    if (stopping)
        return;
    stopping = 1;
    if (!exit_status && who < 0)
        exit_status = 124;
    if (who >= 0)
        fprintf(stderr, "tsrun: node %d %s; stopping the job\n", who, why);
    else
        fprintf(stderr, "tsrun: %s; stopping the job\n", why);
    boot_note note = {BOOT_MAGIC, BOOT_ABORT, who < 0 ? BOOT_NO_NODE : (uint32_t)who, {0}};
    snprintf(note.reason, sizeof note.reason, "%s", why);
    for (int i = 0; i < opt.n; i++)
        if (i != who && nodes[i].conn >= 0 && nodes[i].registered && !nodes[i].exited)
            io_write_all(nodes[i].conn, &note, sizeof note);
    kill_at = now_s() + KILL_GRACE_S;
}

static void send_table(void)
{
    boot_table t = {BOOT_MAGIC, BOOT_TABLE, (uint32_t)opt.n, 0};
    boot_endpoint *ep = calloc((size_t)opt.n, sizeof *ep);
    for (int i = 0; i < opt.n; i++)
        ep[i] = nodes[i].ep;
    for (int i = 0; i < opt.n; i++) {
        io_write_all(nodes[i].conn, &t, sizeof t);
        io_write_all(nodes[i].conn, ep, (size_t)opt.n * sizeof *ep);
    }
    free(ep);
}

/* A registration arrives whole (it is small) or the connection is refused. */
static int pending_conns[4096], npending;

static void accept_registrations(void)
{
    int fd;
    while ((fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        if (npending == (int)(sizeof pending_conns / sizeof *pending_conns)) {
            close(fd);
            continue;
        }
        pending_conns[npending++] = fd;
    }
}

static int registered_count(void)
{
    int c = 0;
    for (int i = 0; i < opt.n; i++)
        c += nodes[i].registered;
    return c;
}

static void read_registration(int k)
{
    int fd = pending_conns[k];
    pending_conns[k] = pending_conns[--npending];
    boot_hello h;
    int got = io_read_full(fd, &h, sizeof h, now_s() + 2.0) == 0;
    if (!got || h.magic != BOOT_MAGIC || h.type != BOOT_HELLO ||
        memcmp(h.secret, secret, BOOT_SECRET_LEN) || h.node >= (uint32_t)opt.n ||
        nodes[h.node].registered || nodes[h.node].pid != h.pid) {
        fprintf(stderr, "tsrun: refused a registration that is not from a node of this job\n");
        close(fd);
        return;
    }
    node *nd = &nodes[h.node];
    nd->conn = fd;
    nd->registered = 1;
    nd->ep = (boot_endpoint){h.addr, h.port, 0};
    if (registered_count() == opt.n)
        send_table();
}

/* Reads BOOT_FIN (or end of file) from a node's boot connection. */
static void read_node_conn(node *nd)
{
    boot_note note;
    ssize_t r = recv(nd->conn, &note, sizeof note, MSG_DONTWAIT | MSG_WAITALL);
    if (r == (ssize_t)sizeof note && note.magic == BOOT_MAGIC && note.type == BOOT_FIN) {
        nd->finished = 1;
        return;
    }
    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    close(nd->conn);
    nd->conn = -1;
}

static void describe_exit(int status, char *buf, size_t len, int finished)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (!finished)
        snprintf(buf, len, "exited without calling tsr_finalize");
    else
        buf[0] = 0;
}

static void reap_children(void)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < opt.n; i++) {
            node *nd = &nodes[i];
            if (nd->pid != pid)
                continue;
            if (nd->conn >= 0)
                read_node_conn(nd); /* BOOT_FIN is written before exit */
            nd->exited = 1;
            live--;
            nd->status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
            char why[160];
            describe_exit(status, why, sizeof why, nd->finished);
            if (!why[0])
                continue;
            /* A node stopped because of another's failure: report the cause
             * rather than this consequence, if the cause shows up soon. */
            if (nd->status == PEER_FAILED_STATUS && !stopping) {
                if (consequence < 0) {
                    consequence = i;
                    consequence_at = now_s();
                }
                continue;
            }
            if (!exit_status)
                exit_status = nd->status ? nd->status : 1;
            job_failed(i, why);
        }
    }
}

static void emit_lines(int node_id, line_buf *lb, int flush_all)
{
    size_t start = 0;
    for (size_t i = 0; i < lb->len; i++) {
        if (lb->buf[i] != '\n')
            continue;
        dprintf(lb->out, "[%d] %.*s\n", node_id, (int)(i - start), lb->buf + start);
        start = i + 1;
    }
    if (flush_all || (start == 0 && lb->len == sizeof lb->buf)) {
        if (start < lb->len)
            dprintf(lb->out, "[%d] %.*s\n", node_id, (int)(lb->len - start), lb->buf + start);
        start = lb->len;
    }
    memmove(lb->buf, lb->buf + start, lb->len - start);
    lb->len -= start;
}

static void read_output(int node_id, line_buf *lb)
{
    ssize_t r = read(lb->fd, lb->buf + lb->len, sizeof lb->buf - lb->len);
    if (r > 0) {
        lb->len += (size_t)r;
        emit_lines(node_id, lb, 0);
        return;
    }
    if (r < 0 && errno == EINTR)
        return;
    emit_lines(node_id, lb, 1);
    close(lb->fd);
    lb->fd = -1;
}

static int outputs_open(void)
{
    for (int i = 0; i < opt.n; i++)
        if (nodes[i].io[0].fd >= 0 || nodes[i].io[1].fd >= 0)
            return 1;
    return 0;
}

/* No node failed on its own, yet one stopped because of a failure: name it. */
static void blame_consequence(void)
{
    if (stopping || consequence < 0)
        return;
    exit_status = PEER_FAILED_STATUS;
    job_failed(consequence, "stopped because another node failed");
}

/* Poll set layout: sigchld pipe, listener, pending registrations, then per
 * node its boot connection and its two output pipes. */
static void watch(double started)
{
    size_t cap = 2 + 4096 + (size_t)opt.n * 3;
    struct pollfd *pfd = calloc(cap, sizeof *pfd);
    while (live > 0 || outputs_open()) {
        int k = 0;
        pfd[k++] = (struct pollfd){sigchld_pipe[0], POLLIN, 0};
        pfd[k++] = (struct pollfd){listen_fd, POLLIN, 0};
        int pend0 = k;
        for (int i = 0; i < npending; i++)
            pfd[k++] = (struct pollfd){pending_conns[i], POLLIN, 0};
        int node0 = k;
        for (int i = 0; i < opt.n; i++) {
            pfd[k++] = (struct pollfd){nodes[i].conn, POLLIN, 0};
            pfd[k++] = (struct pollfd){nodes[i].io[0].fd, POLLIN, 0};
            pfd[k++] = (struct pollfd){nodes[i].io[1].fd, POLLIN, 0};
        }
        double t = now_s();
        if (!stopping && registered_count() < opt.n && t - started > REGISTER_TIMEOUT_S)
            job_failed(-1, "not every node called tsr_init within 60 s");
        if (!stopping && opt.timeout > 0 && t - started > opt.timeout)
            job_failed(-1, "the job exceeded --timeout");
        if (t - consequence_at > CAUSE_WAIT_S)
            blame_consequence();
        if (kill_at > 0 && t > kill_at) {
            for (int i = 0; i < opt.n; i++)
                if (!nodes[i].exited)
                    kill(nodes[i].pid, SIGKILL);
            kill_at = -1;
        }
        if (poll(pfd, (nfds_t)k, 200) <= 0)
            continue;
        if (pfd[0].revents) {
            char buf[64];
            ssize_t unused = read(sigchld_pipe[0], buf, sizeof buf);
            (void)unused;
        }
        for (int i = opt.n - 1; i >= 0; i--) {
            node *nd = &nodes[i];
            struct pollfd *p = &pfd[node0 + 3 * i];
            if (p[1].revents)
                read_output(i, &nd->io[0]);
            if (p[2].revents)
                read_output(i, &nd->io[1]);
            if (p[0].revents && nd->conn >= 0)
                read_node_conn(nd);
        }
        reap_children();
        for (int i = npending - 1; i >= 0; i--)
            if (pfd[pend0 + i].revents)
                read_registration(i);
        if (pfd[1].revents)
            accept_registrations();
    }
    free(pfd);
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    check_program(opt.argv[0]);
    make_secret();
    uint16_t port = open_listener();
    if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK)) {
        perror("tsrun: pipe");
        return 1;
    }
    nodes = calloc((size_t)opt.n, sizeof *nodes);
    signal(SIGCHLD, on_sigchld);
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    signal(SIGPIPE, SIG_IGN);
    double started = now_s();
    for (int i = 0; i < opt.n; i++)
        start_node(i, port);
    live = opt.n;
    watch(started);
    blame_consequence();
    if (stopping && !exit_status)
        exit_status = 1;
    return exit_status;
}
