/*
 * remote.c - tsrun's nodes on other hosts, started through ssh, and where
 * tsrun's standard input goes.
 *
 * A remote node is an ssh client that tsrun starts like a local node: its
 * exit is the node's exit (ssh passes the remote status on, and says 255
 * when it could not reach the host), and its stdout and stderr are the
 * node's. The remote command is
 *
 *     cd CWD && exec env TSR_NODE=.. TSR_...=.. sh -c 'read secret; exec prog' prog args
 *
 * The job secret is the first line of ssh's standard input, so that it
 * appears on no command line (ps shows those to every user) and in no file;
 * the rest of that input is what tsrun forwards of its own (--stdin).
 */
#include "launcher/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot/iface.h"
#include "util/aslr.h"
#include "util/io.h"

#define MAX_SSH_WORDS 64
/* The remote shell's part: the secret from the first line of standard
 * input into the environment, then the program ($0) with its arguments. */
#define READ_SECRET_AND_EXEC "IFS= read -r TSR_SECRET && export TSR_SECRET && exec \"$0\" \"$@\""
/* ssh's exit status when it failed itself (could not connect, refused). */
#define SSH_FAILED 255

extern char **environ;

static struct {
    host_list hosts;
    const char *ssh;        /* --ssh or TSR_SSH: the ssh command, split at spaces */
    int stdin_to;           /* STDIN_INHERIT, STDIN_NONE, STDIN_ALL or a node id */
    int nodes;
    int *stdin_fd;          /* per node: write end of its stdin pipe, or -1 */
} rem = {.stdin_to = STDIN_INHERIT};

int remote_add_hosts(const char *spec, char *why, size_t len)
{
    return hosts_parse_list(&rem.hosts, spec, why, len);
}

int remote_add_hostfile(const char *path, char *why, size_t len)
{
    return hosts_parse_file(&rem.hosts, path, why, len);
}

void remote_set_ssh(const char *cmd) { rem.ssh = cmd; }

int remote_set_stdin(const char *who, char *why, size_t len)
{
    char *end;
    long v = strtol(who, &end, 10);
    if (!strcmp(who, "all"))
        rem.stdin_to = STDIN_ALL;
    else if (!strcmp(who, "none"))
        rem.stdin_to = STDIN_NONE;
    else if (end != who && !*end && v >= 0 && v < 4096)
        rem.stdin_to = (int)v;
    else {
        snprintf(why, len, "--stdin takes a node id, 'all' or 'none', not '%s'", who);
        return -1;
    }
    return 0;
}

int remote_slots(void) { return rem.hosts.slots; }

const char *remote_host(int node)
{
    return rem.hosts.count ? hosts_of_node(&rem.hosts, node) : NULL;
}

/* The address of a host name, without its user@ part. */
static int resolve(const char *name, uint32_t *addr)
{
    const char *at = strchr(name, '@');
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(at ? at + 1 : name, NULL, &hints, &res);
    if (rc)
        return rc;
    *addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
    freeaddrinfo(res);
    return 0;
}

/* Where tsrun listens: TSR_ADDR or TSR_IFACE if set, else its address
 * toward the first host it can resolve that is not itself (loopback for a
 * job that stays on this host). A name only ssh knows (a Host of its
 * configuration) is left to ssh; if no host resolves, the address of the
 * default route is used. */
static int listen_addr(uint32_t *addr, char *why, size_t len)
{
    const char *a = getenv("TSR_ADDR"), *i = getenv("TSR_IFACE");
    if ((a && *a) || (i && *i))
        return iface_listen_addr(a, i, -1, addr, why, len);
    *addr = htonl(INADDR_LOOPBACK);
    const char *unresolved = NULL;
    for (int h = 0; h < rem.hosts.count; h++) {
        uint32_t dest;
        if (resolve(rem.hosts.host[h].name, &dest)) {
            unresolved = rem.hosts.host[h].name;
            continue;
        }
        if ((ntohl(dest) >> 24) == 127)
            continue;
        if (iface_toward(dest, addr)) {
            snprintf(why, len, "no route to host '%s'", rem.hosts.host[h].name);
            return -1;
        }
        return 0;
    }
    /* 192.0.2.1 (TEST-NET-1) stands for "anywhere": only the route is asked. */
    if (unresolved && iface_toward(htonl(0xc0000201), addr)) {
        snprintf(why, len, "cannot tell which address of this host reaches '%s', which only ssh "
                 "resolves, and there is no default route: set TSR_ADDR or TSR_IFACE", unresolved);
        return -1;
    }
    return 0;
}

int remote_setup(int nodes, uint32_t *addr, char *why, size_t len)
{
    rem.nodes = nodes;
    if (rem.hosts.count && nodes > rem.hosts.slots) {
        snprintf(why, len, "-n %d needs %d slots but the hosts have %d", nodes, nodes,
                 rem.hosts.slots);
        return -1;
    }
    if (rem.stdin_to >= nodes) {
        snprintf(why, len, "--stdin %d: there is no node %d in a %d-node job", rem.stdin_to,
                 rem.stdin_to, nodes);
        return -1;
    }
    if (rem.hosts.count && rem.stdin_to == STDIN_INHERIT)
        rem.stdin_to = 0; /* as mpirun: a terminal's input goes to one node */
    if (!rem.ssh)
        rem.ssh = getenv("TSR_SSH") && *getenv("TSR_SSH") ? getenv("TSR_SSH") : "ssh";
    rem.stdin_fd = malloc((size_t)nodes * sizeof *rem.stdin_fd);
    if (!rem.stdin_fd) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    for (int i = 0; i < nodes; i++)
        rem.stdin_fd[i] = -1;
    if (!rem.hosts.count) {
        *addr = htonl(INADDR_LOOPBACK);
        return 0;
    }
    return listen_addr(addr, why, len);
}

int remote_pipes_per_node(void)
{
    return rem.hosts.count || rem.stdin_to != STDIN_INHERIT;
}

int remote_stdin_pipe(int node, int *child_end)
{
    int p[2];
    *child_end = -1;
    if (!remote_pipes_per_node())
        return 0;
    if (pipe2(p, O_CLOEXEC))
        return -1;
    rem.stdin_fd[node] = p[1];
    *child_end = p[0];
    return 0;
}

/* Appends raw text to the command being built in buf. */
static int append(char *buf, size_t len, size_t *at, const char *text)
{
    size_t tl = strlen(text);
    if (*at + tl + 1 >= len)
        return -1;
    memcpy(buf + *at, text, tl + 1);
    *at += tl;
    return 0;
}

/* Appends " 's'", s quoted for a POSIX shell. */
static int quote(char *buf, size_t len, size_t *at, const char *s)
{
    int bad = append(buf, len, at, " '");
    for (; !bad && *s; s++)
        bad = append(buf, len, at, *s == '\'' ? "'\\''" : (char[]){*s, 0});
    return bad || append(buf, len, at, "'");
}

/* The remote command. TSR_* variables travel with it, except the secret
 * (on standard input), TSR_ADDR (an address of this host only) and
 * TSR_SSH (meaningless there), and so do UCX_* (UCX_TLS, and the
 * UCX_MEM_EVENTS=no tsrun sets: sshd starts the node with neither); the
 * program runs under `setarch -R` (util-linux) unless TSR_ASLR=keep. */
static int remote_command(char *buf, size_t len, char *const argv[])
{
    char cwd[4096];
    size_t at = 0;
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    buf[0] = 0;
    int bad = append(buf, len, &at, "cd") || quote(buf, len, &at, cwd) ||
              append(buf, len, &at, " && exec env");
    for (char **e = environ; !bad && *e; e++)
        if ((!strncmp(*e, "TSR_", 4) && strncmp(*e, "TSR_SECRET=", 11) &&
             strncmp(*e, "TSR_ADDR=", 9) && strncmp(*e, "TSR_SSH=", 8)) ||
            !strncmp(*e, "UCX_", 4))
            bad = quote(buf, len, &at, *e);
    /* The node's layout must match the others' (api/layout.c): sshd starts
     * it afresh, so the remote side turns randomisation off itself. */
    bad = bad || (aslr_keep() != 1 && append(buf, len, &at, " setarch -R"));
    bad = bad || append(buf, len, &at, " sh -c") || quote(buf, len, &at, READ_SECRET_AND_EXEC);
    for (int i = 0; !bad && argv[i]; i++)
        bad = quote(buf, len, &at, argv[i]);
    return bad;
}

void remote_exec(int node, int child_end, char *const argv[])
{
    if (child_end >= 0)
        dup2(child_end, 0);
    const char *host = remote_host(node);
    if (!host)
        return;
    static char cmd[1 << 17], words[4096];
    char *av[MAX_SSH_WORDS + 6], *save = NULL;
    int n = 0;
    unsetenv("TSR_SECRET");
    snprintf(words, sizeof words, "%s", rem.ssh);
    for (char *w = strtok_r(words, " \t", &save); w && n < MAX_SSH_WORDS;
         w = strtok_r(NULL, " \t", &save))
        av[n++] = w;
    if (!n || remote_command(cmd, sizeof cmd, argv)) {
        fprintf(stderr, "tsrun: node %d: the ssh command or the program's command line is "
                        "empty or too long\n", node);
        _exit(127);
    }
    av[n++] = "-o";
    av[n++] = "BatchMode=yes";
    av[n++] = "-x";
    av[n++] = (char *)host;
    av[n++] = cmd;
    av[n] = NULL;
    execvp(av[0], av);
    fprintf(stderr, "tsrun: node %d: cannot execute the ssh command '%s': %s\n", node, av[0],
            strerror(errno));
    _exit(127);
}

void remote_started(int node, int child_end, const char *secret)
{
    if (child_end < 0)
        return;
    close(child_end);
    int fd = rem.stdin_fd[node];
    if (remote_host(node)) {
        char line[80];
        int len = snprintf(line, sizeof line, "%s\n", secret);
        io_write_all(fd, line, (size_t)len); /* fits the empty pipe: never blocks */
    }
    if (rem.stdin_to != STDIN_ALL && rem.stdin_to != node) {
        close(fd);
        rem.stdin_fd[node] = -1;
    }
}

/* The feeder: copies tsrun's standard input to each chosen node until end
 * of file, dropping a node whose pipe closed (it exited). A node that does
 * not read holds the feeder only, never tsrun. It dies with tsrun, however
 * tsrun ends, rather than wait on a terminal nobody types into. */
static void feed(pid_t tsrun)
{
    char buf[65536];
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != tsrun)
        _exit(0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    for (int fd = 3; fd < (int)rl.rlim_cur; fd++) {
        int keep = 0;
        for (int i = 0; i < rem.nodes; i++)
            keep |= rem.stdin_fd[i] == fd;
        if (!keep)
            close(fd);
    }
    for (;;) {
        ssize_t r = read(0, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            _exit(0);
        int open = 0;
        for (int i = 0; i < rem.nodes; i++) {
            if (rem.stdin_fd[i] >= 0 && io_write_all(rem.stdin_fd[i], buf, (size_t)r)) {
                close(rem.stdin_fd[i]);
                rem.stdin_fd[i] = -1;
            }
            open += rem.stdin_fd[i] >= 0;
        }
        if (!open)
            _exit(0);
    }
}

int remote_feed_stdin(void)
{
    int any = 0;
    for (int i = 0; i < rem.nodes; i++)
        any |= rem.stdin_fd[i] >= 0;
    if (!any)
        return 0;
    pid_t tsrun = getpid(), feeder = fork();
    if (feeder < 0)
        return -1;
    if (feeder == 0)
        feed(tsrun);
    for (int i = 0; i < rem.nodes; i++)
        if (rem.stdin_fd[i] >= 0)
            close(rem.stdin_fd[i]);
    return 0;
}

const char *remote_where(int node, char *buf, size_t len)
{
    const char *host = node >= 0 ? remote_host(node) : NULL;
    snprintf(buf, len, host ? " (on host %s)" : "", host);
    return buf;
}

int remote_describe(int node, int registered, int status, char *buf, size_t len)
{
    const char *host = remote_host(node);
    if (!host || !WIFEXITED(status) || WEXITSTATUS(status) != SSH_FAILED)
        return 0;
    if (registered)
        snprintf(buf, len, "was lost: ssh to %s ended with status %d (the node was killed, or "
                 "the host or the connection failed)", host, SSH_FAILED);
    else
        snprintf(buf, len, "could not be started: ssh to %s failed (status %d)", host,
                 SSH_FAILED);
    return 1;
}
