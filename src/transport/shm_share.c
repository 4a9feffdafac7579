/*
 * shm_share.c - the rings of one host's nodes in a job that tsrun did not
 * start on its own host alone: one spanning hosts, or one started by
 * another launcher.
 *
 * tsrun makes the rings only for a job that stays on its host (shm.h).
 * Otherwise the nodes of each host (boot.host) make their own, before the
 * comm thread starts, over their mesh connections, which the bootstrap
 * authenticated:
 *   1. the host's lowest-numbered node creates a POSIX shared memory object
 *      with a random name, private to the user (0600), and sends each of
 *      its host's other nodes the name;
 *   2. each opens it and answers one byte;
 *   3. once all have answered, the creator removes the name, so that
 *      nothing is left in /dev/shm however the job ends. A node that dies
 *      meanwhile stops the others as in the bootstrap, and the creator
 *      removes the name first.
 */
#include "transport/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "boot/boot.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/io.h"
#include "util/log.h"

#define NAME_HEX 16
#define OPENED 'o'

static char name[32];

/* Stops this node because `peer` failed in the exchange; the creator
 * removes the name first. */
static void peer_failed(int peer, const char *what) __attribute__((noreturn));
static void peer_failed(int peer, const char *what)
{
    if (name[0])
        shm_unlink(name);
    boot_stop(peer, what, -1);
}

static int create(size_t bytes)
{
    unsigned char raw[NAME_HEX / 2];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        log_die("cannot name this host's shm rings: getrandom: %m");
    int at = snprintf(name, sizeof name, "/tessera-rings-");
    for (size_t i = 0; i < sizeof raw; i++)
        at += snprintf(name + at, sizeof name - (size_t)at, "%02x", raw[i]);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)bytes)) {
        int err = errno;
        if (fd >= 0)
            shm_unlink(name);
        errno = err;
        log_die("cannot make this host's shm rings (%zu bytes in /dev/shm): %m", bytes);
    }
    return fd;
}

/* The creator: tells the host's other nodes the name, waits until each has
 * opened the object, and removes the name. */
static int share(size_t bytes, double deadline)
{
    int fd = create(bytes);
    const char *hex = name + strlen(name) - NAME_HEX;
    for (int j = 0; j < cfg.nodes; j++)
        if (j != cfg.node && boot.host[j] == cfg.node && io_write_all(boot.peer_fd[j], hex, NAME_HEX))
            peer_failed(j, "dropped its connection while its host's shm rings were made");
    for (int j = 0; j < cfg.nodes; j++) {
        char c;
        if (j != cfg.node && boot.host[j] == cfg.node &&
            (io_read_full(boot.peer_fd[j], &c, 1, deadline) || c != OPENED))
            peer_failed(j, "did not open its host's shm rings");
    }
    shm_unlink(name);
    return fd;
}

/* Another node of the host: opens the object its creator names. */
static int open_shared(int creator, double deadline)
{
    char hex[NAME_HEX + 1] = {0};
    if (io_read_full(boot.peer_fd[creator], hex, NAME_HEX, deadline) ||
        strspn(hex, "0123456789abcdef") != NAME_HEX)
        boot_stop(creator, "did not send its host's shm rings", -1);
    snprintf(name, sizeof name, "/tessera-rings-%s", hex);
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    name[0] = 0; /* the creator's to remove */
    if (fd < 0)
        log_die("cannot open this host's shm rings, which node %d made: %m", creator);
    char c = OPENED;
    if (io_write_all(boot.peer_fd[creator], &c, 1))
        boot_stop(creator, "dropped its connection while its host's shm rings were made", -1);
    return fd;
}

int shm_host_rings(size_t bytes)
{
    double deadline = now_s() + cfg.connect_timeout_s;
    int creator = boot.host[cfg.node];
    return creator == cfg.node ? share(bytes, deadline) : open_shared(creator, deadline);
}
