/*
 * options.c - tsrun's command line and the variables it reads itself:
 * what the user asked for, or a one-line refusal with exit status 2.
 */
#include "launcher/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/remote.h"
#include "util/aslr.h"
#include "util/log.h"

/* The Makefile passes both (from SO_VERSION and git); a build outside it
 * says so rather than guessing. */
#ifndef TSR_VERSION_TEXT
#define TSR_VERSION_TEXT "unknown"
#endif
#ifndef TSR_COMMIT
#define TSR_COMMIT "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tsrun -n N [options] program [args...]\n"
            "       tsrun -H HOSTS | --hostfile FILE [-n N] [options] program [args...]\n"
            "Runs program as an N-node Tessera job on this host, or on the hosts given.\n\n"
            "  -n, --nodes N        number of node processes (default with hosts: their slots)\n"
            "  -H, --hosts LIST     hosts reached by ssh, e.g. a,b:4 (b runs 4 nodes)\n"
            "      --hostfile FILE  hosts one a line, Open MPI's syntax: 'b slots=4'\n"
            "      --ssh CMD        the ssh command, split at spaces (TSR_SSH; default ssh)\n"
            "      --stdin WHO      who reads tsrun's input: a node id, all, none\n"
            "                       (default: node 0 with hosts, shared by all on one host)\n"
            "  -p, --prefix         prefix every output line with [node]\n"
            "  -s, --stats          print the job's statistics at exit, one table of the\n"
            "                       counters not zero, nodes side by side (TSR_STATS=1;\n"
            "                       TSR_STATS=all for every counter)\n"
            "  -j, --stats-json F   append each node's statistics, every counter, as JSON to F\n"
            "      --trace F        write the job's timeline to F, a Chrome trace for Perfetto\n"
            "                       (TSR_TRACE; docs/TRACE.md)\n"
            "      --profile        end with the sharing profile: the pages, allocations,\n"
            "                       locks and barriers that cost the most (TSR_PROFILE=1)\n"
            "      --profile-json F and write it as JSON to F (TSR_PROFILE_JSON)\n"
            "      --merge-trace F  run nothing: merge the N parts F.part0... that the nodes of\n"
            "                       a job started without tsrun (srun, mpirun) left into F\n"
            "  -m, --memory SIZE    shared address space per job, e.g. 16G (TSR_MEMORY)\n"
            "  -t, --timeout SECS   stop the job if it runs longer than SECS\n"
            "  -V, --version        the version, and the commit tsrun was built from\n"
            "  -h, --help           this text\n\n"
            "Exit status: the first failing node's status (128+signal if killed, 1 if it\n"
            "exited 0 without tsr_finalize), 124 after -t, 2 for a request tsrun refuses.\n"
            "Environment variables: see docs/CONFIG.md.\n");
}

void refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tsrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

void refuse_if(int failed, const char *why)
{
    if (failed)
        refuse("%s", why);
}

/* An option that the nodes read as a TSR_* variable. */
static void set_env(const char *name, const char *value)
{
    if (setenv(name, value, 1))
        refuse("cannot set %s: %s", name, strerror(errno));
}

/* An ssh command has a word to run: a blank one would fail at each
 * host's start as "command not found" (127) instead of being refused. */
static const char *ssh_command(const char *what, const char *cmd)
{
    if (!cmd[strspn(cmd, " \t")])
        refuse("%s takes a command, such as 'ssh -p 2222', not '%s'", what, cmd);
    return cmd;
}

static long parse_long(const char *what, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        refuse("%s must be an integer in [%ld, %ld], got '%s'", what, lo, hi, s);
    return v;
}

static long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *s = getenv(name);
    return s && *s ? parse_long(name, s, lo, hi) : dflt;
}

static int stats_all(void)
{
    const char *s = getenv("TSR_STATS");
    return s && !strcmp(s, "all");
}

void options_parse(int argc, char **argv, tsrun_options *opt)
{
    static const struct option longopts[] = {
        {"nodes", required_argument, 0, 'n'},      {"prefix", no_argument, 0, 'p'},
        {"stats", no_argument, 0, 's'},            {"stats-json", required_argument, 0, 'j'},
        {"memory", required_argument, 0, 'm'},     {"timeout", required_argument, 0, 't'},
        {"hosts", required_argument, 0, 'H'},      {"hostfile", required_argument, 0, 'F'},
        {"ssh", required_argument, 0, 'S'},        {"stdin", required_argument, 0, 'I'},
        {"help", no_argument, 0, 'h'},             {"version", no_argument, 0, 'V'},
        {"trace", required_argument, 0, 'T'},      {"profile", no_argument, 0, 'P'},
        {"profile-json", required_argument, 0, 'J'}, {"merge-trace", required_argument, 0, 'M'},
        {0, 0, 0, 0}};
    int c;
    char why[256];
    const char *hosts = getenv("TSR_HOSTS"), *ssh = getenv("TSR_SSH");
    if (ssh && *ssh)
        ssh_command("TSR_SSH", ssh);
    if (hosts && *hosts && remote_add_hosts(hosts, why, sizeof why))
        refuse("TSR_HOSTS='%s': %s", hosts, strncmp(why, "-H: ", 4) ? why : why + 4);
    while ((c = getopt_long(argc, argv, "+n:psj:m:t:hVH:", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': opt->n = (int)parse_long("-n", optarg, 1, 4096); break;
        case 'p': opt->prefix = 1; break;
        case 's': set_env("TSR_STATS", stats_all() ? "all" : "1"); break;
        case 'j': set_env("TSR_STATS_JSON", optarg); break;
        case 'm': set_env("TSR_MEMORY", optarg); break;
        case 'T': set_env("TSR_TRACE", optarg); break;
        case 'P': set_env("TSR_PROFILE", "1"); break;
        case 'J': set_env("TSR_PROFILE_JSON", optarg); break;
        case 'M': set_env("TSR_TRACE", optarg); opt->merge_only = 1; break;
        case 't': opt->timeout = (double)parse_long("--timeout", optarg, 1, 1L << 30); break;
        case 'H': refuse_if(remote_add_hosts(optarg, why, sizeof why), why); break;
        case 'F': refuse_if(remote_add_hostfile(optarg, why, sizeof why), why); break;
        case 'S': remote_set_ssh(ssh_command("--ssh", optarg)); break;
        case 'I': refuse_if(remote_set_stdin(optarg, why, sizeof why), why); break;
        case 'h': usage(stdout); exit(0);
        case 'V': printf("tsrun (Tessera) %s, commit %s\n", TSR_VERSION_TEXT, TSR_COMMIT); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (!opt->n)
        opt->n = remote_slots();
    if (!opt->n) {
        fprintf(stderr, "tsrun: -n N is required\n");
        usage(stderr);
        exit(2);
    }
    if (opt->merge_only)
        return;
    if (optind >= argc) {
        fprintf(stderr, "tsrun: no program given\n");
        usage(stderr);
        exit(2);
    }
    opt->argv = argv + optind;
    opt->startup_limit = (double)env_long("TSR_CONNECT_TIMEOUT", 30, 1, 3600);
    log_verbose = (int)env_long("TSR_VERBOSE", 0, 0, 9);
    if (aslr_keep() < 0)
        refuse("TSR_ASLR='%s' is not one of: off, keep", getenv("TSR_ASLR"));
}

/* A program named without a slash is looked up in PATH, as exec would. */
void check_program(const char *prog)
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
