/*
 * pmi.c - the one thing Tessera asks MPICH's Hydra: the job's name.
 *
 * Hydra tells a process its rank and size (PMI_RANK, PMI_SIZE) but exports
 * nothing that names the job, which the rendezvous directory needs so that
 * two jobs of one user never meet. The name Hydra gives the job's key-value
 * space (kvs_<mpiexec pid>_<group>_<random>_<host>) is unique per job and
 * the same in every process, so Tessera asks for it over the PMI-1 wire
 * protocol on the socket Hydra passes in PMI_FD: init, get_my_kvsname,
 * finalize. Finalizing at once tells Hydra this process is done with PMI,
 * so its later exit is not taken for a crash in the middle of a PMI
 * exchange. A program that is also an MPI program sets TSR_JOB_ID itself
 * (docs/CONFIG.md), and this is never asked.
 */
#include "boot/pmi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cpu.h"
#include "util/io.h"
#include "util/log.h"

#define PMI_TIMEOUT_S 10.0

/* Reads one reply line (up to '\n') into buf; returns 0, or -1. */
static int read_line(int fd, char *buf, size_t len, double deadline)
{
    for (size_t n = 0; n + 1 < len; n++) {
        if (io_read_full(fd, buf + n, 1, deadline))
            return -1;
        if (buf[n] == '\n') {
            buf[n] = 0;
            return 0;
        }
    }
    return -1;
}

/* Sends one command and reads its reply, which must begin with `want`. */
static int ask(int fd, const char *cmd, const char *want, char *reply, size_t len)
{
    double deadline = now_s() + PMI_TIMEOUT_S;
    if (io_write_all(fd, cmd, strlen(cmd)) || read_line(fd, reply, len, deadline))
        return -1;
    return strncmp(reply, want, strlen(want)) ? -1 : 0;
}

int pmi_job_name(char *name, size_t len)
{
    const char *s = getenv("PMI_FD");
    char *end, reply[512];
    errno = 0;
    long fd = s ? strtol(s, &end, 10) : -1;
    if (!s || errno || end == s || *end || fd < 0 || fd > 65535)
        return -1;
    if (ask((int)fd, "cmd=init pmi_version=1 pmi_subversion=1\n", "cmd=response_to_init", reply,
            sizeof reply) ||
        !strstr(reply, "rc=0"))
        return -1;
    if (ask((int)fd, "cmd=get_my_kvsname\n", "cmd=my_kvsname", reply, sizeof reply))
        return -1;
    const char *kvs = strstr(reply, "kvsname=");
    if (!kvs)
        return -1;
    kvs += strlen("kvsname=");
    size_t n = strcspn(kvs, " ");
    if (!n || n >= len)
        return -1;
    memcpy(name, kvs, n);
    name[n] = 0;
    char ack[64];
    return ask((int)fd, "cmd=finalize\n", "cmd=finalize_ack", ack, sizeof ack);
}
