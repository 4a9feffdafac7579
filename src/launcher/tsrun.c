/*
 * tsrun - starts a Tessera job of N node processes on this host, or on
 * other hosts through ssh (launcher/remote.c), and watches it until every
 * node has exited.
 *
 * tsrun creates the job secret, listens on a port (loopback, or its address
 * toward the hosts), starts the nodes with TSR_NODE/TSR_NODES/TSR_BOOT/
 * TSR_SECRET set (a remote node gets the secret on its input), and once all of
 * them have registered sends each the table of endpoints (they then connect
 * the mesh themselves) and closes its port. Afterwards it is the job's
 * watchdog: the first node to die, exit non-zero or exit without
 * tsr_finalize makes it tell every other node why (BOOT_ABORT), and kill
 * whatever still runs a few seconds later. Its exit status is the first
 * non-zero status of any node.
 *
 * Nothing outside tsrun's control can stall its one loop: registrations
 * pass through a gate (boot/gate.h) that never waits for a stranger, every
 * descriptor it watches fits its descriptor limit, and every deadline (the
 * start-up limit, -t, the kill grace) is checked on each turn of the loop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot_proto.h"
#include "boot/budget.h"
#include "boot/gate.h"
#include "launcher/jobstats.h"
#include "launcher/jobtrace.h"
#include "launcher/options.h"
#include "launcher/remote.h"
#include "transport/shm.h"
#include "util/aslr.h"
#include "util/cpu.h"
#include "util/io.h"
#include "util/lines.h"
#include "util/log.h"

#define KILL_GRACE_S 3.0
/* A node that stopped because another failed (BOOT_STOP) names the cause;
 * tsrun waits this long for the cause's own exit, which says more. */
#define CAUSE_WAIT_S 1.0
/* After the last node exited, how long its output may still drain (a
 * grandchild that kept the pipe open must not keep tsrun alive). */
#define DRAIN_S 1.0
#define TICK_MS 200

typedef struct node {
    pid_t pid;
    int conn;      /* boot connection, -1 until registered / after EOF */
    int registered, finished, exited;
    int consequence; /* it said it stops because another node failed */
    boot_endpoint ep;
    boot_note in;  /* the note being received on conn */
    size_t in_have;
    char *said;    /* why it ends, in its own words (BOOT_DIED), or NULL */
    line_relay io[2]; /* its stdout and stderr with -p */
} node;

static tsrun_options opt;

static node *nodes;
static int started, live, nregistered, sigchld_pipe[2];
static gate reg_gate;
static char secret[BOOT_SECRET_LEN + 1];
static int exit_status, stopping;
static boot_note abort_note;
static double kill_at = -1;
/* The node that a stopping node named, while tsrun waits for its exit. */
static struct {
    int node, reporter;
    double at;
    char why[sizeof abort_note.reason];
} suspect = {-1, -1, 0, ""};

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

/* Opens the registration port; its address goes to the nodes as TSR_BOOT.
 * The backlog holds every node at once (the kernel caps it at
 * net.core.somaxconn). */
static int open_listener(uint32_t addr, char *boot_addr, size_t len)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = addr};
    socklen_t salen = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
        listen(fd, opt.n + TSRUN_GATE_CAP) || getsockname(fd, (struct sockaddr *)&sa, &salen)) {
        perror("tsrun: cannot listen for the nodes");
        exit(1);
    }
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    snprintf(boot_addr, len, "%s:%u", ip, ntohs(sa.sin_port));
    log_debug("waiting for the nodes' registrations on port %u", ntohs(sa.sin_port));
    return fd;
}

/* tsrun itself cannot go on (fork, pipe or poll failed): every node it
 * started is killed and reaped, so that none is left behind. */
static void abandon(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void abandon(const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tsrun: %s; killing the job\n", why);
    for (int i = 0; i < started; i++)
        if (!nodes[i].exited)
            kill(nodes[i].pid, SIGKILL);
    for (int i = 0; i < started; i++)
        if (!nodes[i].exited)
            while (waitpid(nodes[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
    exit(1);
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
    for (int i = 0; i < started; i++)
        if (!nodes[i].exited)
            kill(nodes[i].pid, SIGTERM);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The shm transport's rings (transport/shm.h), or -1. */
static int rings_fd = -1;

/* Makes the rings once, for every node to inherit, when TSR_TRANSPORT may
 * choose them (shm, or auto, the default) and every node is on this host.
 * The nodes judge the variable's value; tsrun only looks for the values
 * that use the rings. */
static void make_rings(void)
{
    const char *t = getenv("TSR_TRANSPORT");
    if (!t || !*t)
        t = "auto";
    if (opt.n == 1 || (strcmp(t, "shm") && strcmp(t, "auto")))
        return;
    for (int i = 0; i < opt.n; i++)
        if (remote_host(i)) {
            if (!strcmp(t, "shm"))
                refuse("TSR_TRANSPORT=shm needs every node on this host, and node %d runs on %s "
                       "(use tcp, or auto)", i, remote_host(i));
            return; /* auto: TCP between hosts */
        }
    rings_fd = shm_create(opt.n);
    if (rings_fd < 0)
        refuse("cannot make the shared memory of TSR_TRANSPORT=%s for %d nodes: %s", t, opt.n,
               strerror(errno));
}

/* Whether the nodes' tcp links open on demand (boot/boot.c's choice, made
 * here before anything starts): TSR_CONNECT is not `start`, and the
 * transport is tcp, or auto with no rings (make_rings) and no host running
 * two nodes; shm, udp and ucx keep the mesh. */
static int links_on_demand(void)
{
    const char *c = getenv("TSR_CONNECT"), *t = getenv("TSR_TRANSPORT");
    if (opt.n == 1 || (c && !strcmp(c, "start")))
        return 0;
    if (t && !strcmp(t, "tcp"))
        return 1;
    if ((t && *t && strcmp(t, "auto")) || rings_fd >= 0)
        return 0;
    for (int i = 0; i < opt.n; i++)
        for (int j = 0; j < i; j++) {
            const char *a = remote_host(i), *b = remote_host(j);
            if (a == b || (a && b && !strcmp(a, b)))
                return 0;
        }
    return 1;
}

/* In node i about to start: what tells it its place in the job, and the
 * rings, kept open across exec. Returns 0, or -1 if the environment could
 * not grow (setenv allocates), which the node must not start without. */
static int node_env(int i, const char *boot_addr)
{
    char id[16], n[16], fd[16];
    /* As wide as the largest id, so that every node's environment, hence
     * its initial stack, has the same size (docs/GLOBALS.md). */
    snprintf(id, sizeof id, "%0*d", snprintf(NULL, 0, "%d", opt.n - 1), i);
    snprintf(n, sizeof n, "%d", opt.n);
    snprintf(fd, sizeof fd, "%d", rings_fd);
    if (setenv("TSR_NODE", id, 1) || setenv("TSR_NODES", n, 1) ||
        setenv("TSR_BOOT", boot_addr, 1) || setenv("TSR_SECRET", secret, 1) ||
        (rings_fd < 0 ? unsetenv("TSR_SHM_FD") : setenv("TSR_SHM_FD", fd, 1)))
        return -1;
    if (rings_fd >= 0)
        fcntl(rings_fd, F_SETFD, 0);
    return 0;
}

static void start_node(int i, const char *boot_addr)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1}, in;
    if (remote_stdin_pipe(i, &in) ||
        (opt.prefix && (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))))
        abandon("cannot start node %d: pipe: %s", i, strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        abandon("cannot start node %d of %d: fork: %s", i, opt.n, strerror(errno));
    if (pid == 0) {
        if (node_env(i, boot_addr)) {
            fprintf(stderr, "tsrun: node %d: cannot set its environment: %s\n", i,
                    strerror(errno));
            _exit(127);
        }
        if (opt.prefix) {
            dup2(out[1], 1);
            dup2(err[1], 2);
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        if (aslr_prepare_exec())
            fprintf(stderr, "tsrun: node %d: cannot disable address-space randomisation: %s\n", i,
                    strerror(errno));
        remote_exec(i, in, opt.argv);
        execvp(opt.argv[0], opt.argv);
        fprintf(stderr, "tsrun: node %d: cannot execute '%s': %s\n", i, opt.argv[0],
                strerror(errno));
        _exit(127);
    }
    remote_started(i, in, secret);
    node *nd = &nodes[i];
    nd->pid = pid;
    nd->conn = -1;
    lines_init(&nd->io[0], opt.prefix ? out[0] : -1, 1, i);
    lines_init(&nd->io[1], opt.prefix ? err[0] : -1, 2, i);
    if (opt.prefix) {
        close(out[1]);
        close(err[1]);
    }
    started++;
}

/* Sends a note to a registered node. A node that does not read cannot hold
 * tsrun: its connection has a send time-out (see registration_judge). */
static void tell(node *nd, const void *buf, size_t len)
{
    if (nd->conn >= 0 && !nd->exited)
        io_write_all(nd->conn, buf, len);
}

/* The first failure stops the job: every other node is told who failed and
 * why, and is killed if it has not gone KILL_GRACE_S seconds later. */
static void job_failed(int who, const char *why)
{
    if (stopping)
        return;
    stopping = 1;
    if (!exit_status)
        exit_status = who < 0 ? 124 : 1;
    char where[300];
    if (who >= 0)
        fprintf(stderr, "tsrun: node %d%s %s; stopping the job\n", who,
                remote_where(who, where, sizeof where), why);
    else
        fprintf(stderr, "tsrun: %s; stopping the job\n", why);
    abort_note = (boot_note){BOOT_MAGIC, BOOT_ABORT, who < 0 ? BOOT_NO_NODE : (uint32_t)who, {0}};
    snprintf(abort_note.reason, sizeof abort_note.reason, "%s", why);
    for (int i = 0; i < opt.n; i++)
        if (i != who)
            tell(&nodes[i], &abort_note, sizeof abort_note);
    /* The failed node, if it is still there, hangs (a node named by its
     * peers' heartbeats, perhaps stopped with SIGSTOP, which defers every
     * other signal): it has nothing left to finish. */
    if (who >= 0 && who < started && !nodes[who].exited)
        kill(nodes[who].pid, SIGKILL);
    /* A node that has not registered cannot be told, and has nothing of
     * the job's to finish. */
    for (int i = 0; i < started; i++)
        if (!nodes[i].registered && !nodes[i].exited)
            kill(nodes[i].pid, SIGKILL);
    kill_at = now_s() + KILL_GRACE_S;
}

static void send_table(void)
{
    boot_table t = {BOOT_MAGIC, BOOT_TABLE, (uint32_t)opt.n, 0};
    boot_endpoint *ep = calloc((size_t)opt.n, sizeof *ep);
    if (!ep)
        abandon("out of memory for the node table");
    for (int i = 0; i < opt.n; i++)
        ep[i] = nodes[i].ep;
    for (int i = 0; i < opt.n; i++) {
        tell(&nodes[i], &t, sizeof t);
        tell(&nodes[i], ep, (size_t)opt.n * sizeof *ep);
    }
    free(ep);
}

/* The gate's judge for tsrun's port: takes a node's BOOT_HELLO. */
static const char *registration_judge(const boot_hello *h, int fd, void *ctx)
{
    if (h->magic != BOOT_MAGIC || h->type != BOOT_HELLO)
        return "not a Tessera registration";
    if (!boot_secret_equal(h->secret, secret))
        return "bad job secret";
    if (h->node >= (uint32_t)opt.n)
        return "node id out of range";
    node *nd = &nodes[h->node];
    if (nd->registered)
        return "that node is already registered";
    if (!remote_host((int)h->node) && nd->pid != h->pid)
        return "not that node's process"; /* a remote node's pid is not ssh's */
    struct timeval limit = {1, 0};
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    nd->conn = fd;
    nd->registered = 1;
    nd->ep = (boot_endpoint){h->addr, h->port, 0};
    if (++nregistered == opt.n)
        send_table();
    return NULL;
}

static void on_note(int i, const boot_note *note)
{
    if (note->magic != BOOT_MAGIC)
        return;
    if (note->type == BOOT_FIN)
        nodes[i].finished = 1;
    if (note->type == BOOT_DIED && !nodes[i].said)
        nodes[i].said = strndup(note->reason, sizeof note->reason - 1);
    if (note->type == BOOT_STAT)
        jobstats_take(i, note);
    if (note->type != BOOT_STOP && note->type != BOOT_HUNG)
        return;
    nodes[i].consequence = 1;
    if (note->type == BOOT_HUNG && note->node < (uint32_t)opt.n) {
        char why[sizeof note->reason + 32];
        snprintf(why, sizeof why, "%.*s (reported by node %d)", (int)sizeof note->reason - 1,
                 note->reason, i);
        job_failed((int)note->node, why);
        return;
    }
    if (note->node == BOOT_NO_NODE && !exit_status) {
        /* The runtime stopped the whole job (collective mismatch, stall). */
        exit_status = 1;
        fprintf(stderr, "tsrun: the job stops: %.*s (reported by node %d)\n",
                (int)sizeof note->reason - 1, note->reason, i);
    }
    if (suspect.node >= 0 || note->node >= (uint32_t)opt.n)
        return;
    suspect.node = (int)note->node;
    suspect.reporter = i;
    suspect.at = now_s();
    memcpy(suspect.why, note->reason, sizeof suspect.why);
    suspect.why[sizeof suspect.why - 1] = 0;
}

/* Reads whatever notes a node sent (BOOT_FIN, BOOT_STOP) up to end of file. */
static void read_node_conn(int i)
{
    node *nd = &nodes[i];
    while (nd->conn >= 0) {
        ssize_t r = recv(nd->conn, (char *)&nd->in + nd->in_have, sizeof nd->in - nd->in_have,
                         MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return;
        if (r <= 0) {
            close(nd->conn);
            nd->conn = -1;
            return;
        }
        nd->in_have += (size_t)r;
        if (nd->in_have == sizeof nd->in) {
            nd->in_have = 0;
            on_note(i, &nd->in);
        }
    }
}

static void describe_exit(const node *nd, int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status))
        /* Before it registered, a node has no way to tell tsrun why. */
        snprintf(buf, len, "exited with status %d%s", WEXITSTATUS(status),
                 nd->registered ? "" : " before joining the job (its own output says why)");
    else if (!nd->registered)
        snprintf(buf, len, "exited without calling tsr_finalize (it never called tsr_init)");
    else if (!nd->finished)
        snprintf(buf, len, "exited without calling tsr_finalize");
    else
        buf[0] = 0;
}

static void node_exited(int i, int status)
{
    node *nd = &nodes[i];
    read_node_conn(i); /* BOOT_FIN or BOOT_STOP is written before exit */
    nd->exited = 1;
    live--;
    char why[160 + BOOT_REASON_LEN];
    if (!remote_describe(i, nd->registered, status, why, sizeof why))
        describe_exit(nd, status, why, sizeof why);
    if (!why[0] || nd->consequence || stopping)
        return;
    if (nd->said) {
        size_t len = strlen(why);
        snprintf(why + len, sizeof why - len, ": %s", nd->said);
    }
    exit_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    if (!exit_status)
        exit_status = 1;
    job_failed(i, why);
}

static void reap_children(void)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        for (int i = 0; i < started; i++)
            if (nodes[i].pid == pid)
                node_exited(i, status);
}

static int outputs_open(void)
{
    for (int i = 0; i < opt.n; i++)
        if (nodes[i].io[0].fd >= 0 || nodes[i].io[1].fd >= 0)
            return 1;
    return 0;
}

static int first_unregistered(void)
{
    for (int i = 0; i < opt.n; i++)
        if (!nodes[i].registered && !nodes[i].exited)
            return i;
    return -1;
}

/* Names the node that a node said failed, as that node reported it. */
static void blame_suspect(void)
{
    char why[sizeof suspect.why + 40];
    snprintf(why, sizeof why, "%s (reported by node %d)", suspect.why, suspect.reporter);
    job_failed(suspect.node, why);
}

/* Every time limit, checked on each turn of the loop whatever happened. */
static void check_deadlines(double started_at)
{
    double t = now_s();
    char why[sizeof suspect.why + 40];
    int late = stopping || nregistered == opt.n ? -1 : first_unregistered();
    if (late >= 0 && t - started_at > opt.startup_limit) {
        snprintf(why, sizeof why, "did not call tsr_init within %.0f s (TSR_CONNECT_TIMEOUT)",
                 opt.startup_limit);
        job_failed(late, why);
    }
    if (opt.timeout > 0 && t - started_at > opt.timeout)
        job_failed(-1, "the job exceeded --timeout");
    if (!stopping && suspect.node >= 0 && t - suspect.at > CAUSE_WAIT_S)
        blame_suspect();
    if (kill_at > 0 && t > kill_at) {
        for (int i = 0; i < started; i++)
            if (!nodes[i].exited)
                kill(nodes[i].pid, SIGKILL);
        kill_at = -1;
    }
}

/* Poll set: the SIGCHLD pipe, the gate, then every open descriptor of the
 * nodes (only open ones: poll refuses a set larger than the descriptor
 * limit). which[k] says whose entry k is: node * 3 + (0 conn, 1-2 output). */
static int fill_pollfds(struct pollfd *pfd, int *which)
{
    int k = 0;
    pfd[k++] = (struct pollfd){sigchld_pipe[0], POLLIN, 0};
    gate_pollfds(&reg_gate, pfd + k);
    k += GATE_POLLFDS(reg_gate.cap);
    for (int i = 0; i < opt.n; i++) {
        int fds[3] = {nodes[i].conn, nodes[i].io[0].fd, nodes[i].io[1].fd};
        for (int j = 0; j < 3; j++)
            if (fds[j] >= 0) {
                which[k] = i * 3 + j;
                pfd[k++] = (struct pollfd){fds[j], POLLIN, 0};
            }
    }
    return k;
}

static void serve_nodes(const struct pollfd *pfd, const int *which, int from, int to)
{
    for (int k = from; k < to; k++) {
        if (!pfd[k].revents)
            continue;
        int i = which[k] / 3, j = which[k] % 3;
        if (j == 0)
            read_node_conn(i);
        else
            lines_read(&nodes[i].io[j - 1]);
    }
}

static void watch(double started_at)
{
    size_t cap = 1 + GATE_POLLFDS(TSRUN_GATE_CAP) + (size_t)opt.n * 3;
    struct pollfd *pfd = calloc(cap, sizeof *pfd);
    int *which = calloc(cap, sizeof *which);
    if (!pfd || !which)
        abandon("out of memory for the poll set");
    double drain_until = -1;
    while (live > 0 || (outputs_open() && now_s() < drain_until)) {
        check_deadlines(started_at);
        int k = fill_pollfds(pfd, which), node0 = 1 + GATE_POLLFDS(reg_gate.cap);
        if (poll(pfd, (nfds_t)k, TICK_MS) < 0) {
            if (errno != EINTR)
                abandon("poll over %d descriptors failed: %s", k, strerror(errno));
            continue;
        }
        if (pfd[0].revents) {
            char buf[64];
            ssize_t unused = read(sigchld_pipe[0], buf, sizeof buf);
            (void)unused;
        }
        serve_nodes(pfd, which, node0, k);
        reap_children();
        /* Once every node registered, or the job stopped (which killed the
         * nodes that had not), no one else may register: the port closes. */
        if ((nregistered == opt.n || stopping) && reg_gate.cap)
            gate_close(&reg_gate);
        gate_serve(&reg_gate, pfd + 1);
        if (live == 0 && drain_until < 0)
            drain_until = now_s() + DRAIN_S;
    }
    /* Every node may have stopped because of another before the suspect's
     * own exit could be waited for (a 512-node start-up whose mesh timed
     * out ended that way, and tsrun exited 0 saying nothing). */
    if (!stopping && suspect.node >= 0)
        blame_suspect();
    for (int i = 0; i < opt.n; i++)
        for (int j = 0; j < 2; j++)
            if (nodes[i].io[j].fd >= 0)
                lines_close(&nodes[i].io[j]);
    free(pfd);
    free(which);
}

int main(int argc, char **argv)
{
    options_parse(argc, argv, &opt);
    if (opt.merge_only)
        return jobtrace_finish(opt.n) ? 1 : 0;
    log_set_name("tsrun");
    check_program(opt.argv[0]);
    /* UCX reads it as its libraries load, before tsr_init (transport/ucx.c). */
    const char *t = getenv("TSR_TRANSPORT");
    if (t && !strcmp(t, "ucx"))
        setenv("UCX_MEM_EVENTS", "no", 0);
    char why[256];
    uint32_t listen_addr;
    refuse_if(remote_setup(opt.n, &listen_addr, why, sizeof why), why);
    make_rings();
    if (budget_fit(opt.n, 2 * opt.prefix + remote_pipes_per_node(), links_on_demand(), why,
                   sizeof why))
        refuse("%s", why);
    make_secret();
    nodes = calloc((size_t)opt.n, sizeof *nodes);
    if (!nodes)
        refuse("out of memory for %d nodes", opt.n);
    jobstats_init(opt.n);
    jobtrace_setup();
    if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK))
        refuse("cannot make a pipe: %s", strerror(errno));
    char boot_addr[32];
    int listen_fd = open_listener(listen_addr, boot_addr, sizeof boot_addr);
    gate_open(&reg_gate, listen_fd, TSRUN_GATE_CAP, registration_judge, NULL);
    signal(SIGCHLD, on_sigchld);
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    signal(SIGPIPE, SIG_IGN);
    double started_at = now_s();
    for (int i = 0; i < opt.n; i++)
        start_node(i, boot_addr);
    live = started;
    if (remote_feed_stdin())
        abandon("cannot start the process that forwards tsrun's input: %s", strerror(errno));
    watch(started_at);
    jobstats_print();
    if (jobtrace_finish(opt.n) && !exit_status)
        exit_status = 1;
    return exit_status;
}
