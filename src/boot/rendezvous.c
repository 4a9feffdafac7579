/*
 * rendezvous.c - joins a job started by another launcher (Slurm's srun,
 * Open MPI's or MPICH's mpirun) instead of tsrun.
 *
 * Such a launcher tells each process its rank and the job's size in its
 * environment, and nothing else Tessera can use without linking MPI or
 * PMIx. So the processes meet through a directory that every host sees (a
 * home or project directory on a cluster's shared file system): each writes
 * its endpoint into a file of the job's own subdirectory and reads everyone
 * else's, and node 0 writes the job secret there first. The directory and
 * files are private to the user (0700, 0600), which keeps the secret from
 * other users as tsrun's environment does. Node 0 removes the subdirectory
 * once the mesh is complete, when every node has read every file.
 */
#include "boot/rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/boot_proto.h"
#include "util/config.h"
#include "boot/pmi.h"
#include "util/cpu.h"
#include "util/io.h"
#include "util/log.h"

/* The launchers Tessera recognises, most specific first: mpirun inside a
 * Slurm allocation exports both its own variables and Slurm's. `job` names
 * the variable that tells one job from another (NULL: MPICH's Hydra exports
 * none, so the job's name is asked of Hydra over PMI; see pmi.c). Slurm's SLURM_STEP_ID is required too: a batch
 * script has SLURM_PROCID but is not a parallel step. */
static const struct launcher {
    const char *name, *rank, *size, *job, *step;
} launchers[] = {
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_NAMESPACE", NULL},
    {"MPICH", "PMI_RANK", "PMI_SIZE", NULL, NULL},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_JOB_ID", "SLURM_STEP_ID"},
};

static char job_dir[4096];
static char job_secret[BOOT_SECRET_LEN + 1];

static long env_rank(const char *var, long lo, long hi, const char *who)
{
    const char *s = getenv(var);
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : -1;
    if (!s || errno || end == s || *end || v < lo || v > hi)
        log_die("%s='%s' (set by %s) is not an integer in [%ld, %ld]", var, s ? s : "", who, lo,
                hi);
    return v;
}

/* Job ids become a directory name: only characters safe in one. */
static void set_key(char *key, size_t len, const char *launcher, const char *id, const char *step)
{
    snprintf(key, len, "%s-%s%s%s", launcher, id, step ? "." : "", step ? step : "");
    for (char *c = key; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '-' || *c == '_'))
            *c = '_';
}

/* The job's name from Hydra, kept in TSR_JOB_ID: PMI is finished once
 * asked, and this process may yet restart itself (aslr_restart) and come
 * here again. NULL if Hydra cannot tell. */
static const char *hydra_job_id(void)
{
    char name[256];
    if (pmi_job_name(name, sizeof name) || setenv("TSR_JOB_ID", name, 1))
        return NULL;
    return getenv("TSR_JOB_ID");
}

int rendezvous_detect(int *node, int *nodes, char *key, size_t len)
{
    for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
        const struct launcher *l = &launchers[i];
        if (!getenv(l->rank) || !getenv(l->size) || (l->step && !getenv(l->step)))
            continue;
        *nodes = (int)env_rank(l->size, 1, TSR_MAX_NODES, l->name);
        *node = (int)env_rank(l->rank, 0, *nodes - 1, l->name);
        const char *id = getenv("TSR_JOB_ID");
        if ((!id || !*id) && l->job)
            id = getenv(l->job);
        if ((!id || !*id) && !l->job)
            id = hydra_job_id();
        if (!id || !*id)
            log_die("started by %s, which gives no job id: set TSR_JOB_ID to a value unique "
                    "to this job for every process (docs/CONFIG.md)", l->name);
        set_key(key, len, l->name[0] == 'S' ? "slurm" : l->name[0] == 'O' ? "ompi" : "mpich",
                id, l->step && !getenv("TSR_JOB_ID") ? getenv(l->step) : NULL);
        log_debug("started by %s as node %d of %d", l->name, *node, *nodes);
        return 1;
    }
    return 0;
}

/* A directory of this user's that no one else may read or write. */
static void private_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0700) && errno != EEXIST)
        log_die("TSR_RENDEZVOUS: cannot create %s: %m", path);
    if (stat(path, &st) || !S_ISDIR(st.st_mode))
        log_die("TSR_RENDEZVOUS: %s is not a directory", path);
    if (st.st_uid != getuid() || (st.st_mode & 077))
        log_die("TSR_RENDEZVOUS: %s must belong to this user with mode 0700, as the job "
                "secret passes through it", path);
}

/* Writes a whole file under its final name at once (rename), so that a
 * reader never sees half of it. */
static void publish(const char *name, const char *text)
{
    char tmp[4200], path[4200];
    snprintf(path, sizeof path, "%s/%s", job_dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.%d", job_dir, name, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || io_write_all(fd, text, strlen(text)) || fsync(fd) || close(fd) ||
        rename(tmp, path))
        log_die("rendezvous: cannot write %s: %m", path);
}

/* Reads a published file: returns 0 with its text, or -1 while it is not
 * there. */
static int fetch(const char *name, char *text, size_t len)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", job_dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* The directory may be a network file system: a read may be short, or
     * interrupted by a signal. */
    size_t have = 0;
    ssize_t n = 1;
    while (have < len - 1 && n != 0) {
        n = read(fd, text + have, len - 1 - have);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0)
            have += (size_t)n;
    }
    close(fd);
    text[have] = 0;
    return n >= 0 && have > 0 ? 0 : -1;
}

static void make_secret(void)
{
    unsigned char raw[BOOT_SECRET_LEN / 2];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        log_die("getrandom: %m");
    for (size_t i = 0; i < sizeof raw; i++)
        sprintf(job_secret + 2 * i, "%02x", raw[i]);
    publish("secret", job_secret);
}

/* A rendezvous that failed takes back what this node published, and the
 * job's directory once it is empty (the last node to give up removes it):
 * a failed start leaves nothing behind. */
static void withdraw(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/node.%d", job_dir, cfg.node);
    unlink(path);
    if (cfg.node == 0) {
        snprintf(path, sizeof path, "%s/secret", job_dir);
        unlink(path);
    }
    rmdir(job_dir);
}

/* Parses "a.b.c.d port" as node i's endpoint; a file that says anything
 * else stops the job naming it. */
static void parse_endpoint(int i, const char *text, boot_endpoint *ep)
{
    char host[64];
    unsigned port;
    struct in_addr in;
    if (sscanf(text, "%63s %u", host, &port) != 2 || port == 0 || port > 65535 ||
        inet_pton(AF_INET, host, &in) != 1) {
        withdraw();
        log_die("rendezvous: %s/node.%d does not hold an address and port", job_dir, i);
    }
    *ep = (boot_endpoint){in.s_addr, htons((uint16_t)port), 0};
}

/* Waits until the secret and every node's endpoint are published. */
static void gather(boot_endpoint *ep, char *have, double deadline)
{
    char name[32], text[128];
    int left = cfg.nodes + !job_secret[0];
    while (left > 0) {
        if (!job_secret[0] && !fetch("secret", text, sizeof text)) {
            if (strlen(text) != BOOT_SECRET_LEN) {
                withdraw();
                log_die("rendezvous: %s/secret is not a job secret", job_dir);
            }
            memcpy(job_secret, text, sizeof job_secret);
            left--;
        }
        for (int i = 0; i < cfg.nodes; i++) {
            snprintf(name, sizeof name, "node.%d", i);
            if (!have[i] && !fetch(name, text, sizeof text)) {
                parse_endpoint(i, text, &ep[i]);
                have[i] = 1;
                left--;
            }
        }
        if (left > 0 && now_s() > deadline) {
            withdraw();
            int i = 0;
            while (i < cfg.nodes && have[i])
                i++;
            if (i == cfg.nodes)
                log_die("rendezvous: node 0 did not publish the job secret in %s within %.0f s "
                        "(TSR_CONNECT_TIMEOUT)", job_dir, cfg.connect_timeout_s);
            log_die("rendezvous: node %d did not publish its address in %s within %.0f s "
                    "(TSR_CONNECT_TIMEOUT; is TSR_RENDEZVOUS a directory every host sees?)", i,
                    job_dir, cfg.connect_timeout_s);
        }
        if (left > 0)
            io_sleep(0.02);
    }
}

boot_endpoint *rendezvous_exchange(uint32_t addr, uint16_t port)
{
    private_dir(cfg.rendezvous);
    snprintf(job_dir, sizeof job_dir, "%s/%s", cfg.rendezvous, cfg.job_key);
    private_dir(job_dir);
    if (cfg.node == 0)
        make_secret();
    char name[32], text[64], ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addr, ip, sizeof ip);
    snprintf(name, sizeof name, "node.%d", cfg.node);
    snprintf(text, sizeof text, "%s %u\n", ip, ntohs(port));
    publish(name, text);
    log_debug("rendezvous: published %s:%u in %s", ip, ntohs(port), job_dir);
    boot_endpoint *ep = calloc((size_t)cfg.nodes, sizeof *ep);
    char *have = calloc((size_t)cfg.nodes, 1);
    if (!ep || !have)
        log_die("out of memory");
    gather(ep, have, now_s() + cfg.connect_timeout_s);
    free(have);
    cfg.secret = job_secret;
    return ep;
}

void rendezvous_done(void)
{
    if (cfg.node != 0 || !job_dir[0])
        return;
    char path[4200];
    for (int i = 0; i <= cfg.nodes; i++) {
        if (i < cfg.nodes)
            snprintf(path, sizeof path, "%s/node.%d", job_dir, i);
        else
            snprintf(path, sizeof path, "%s/secret", job_dir);
        unlink(path);
    }
    rmdir(job_dir);
}
