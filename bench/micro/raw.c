/*
 * tsr_micro's raw rows: round trips between nodes 0 and 1 over TCP, UDP and
 * shared memory, outside Tessera, the figures its own operations rest on.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "micro.h"
#include "tessera.h"

/* ---- Raw TCP between nodes 0 and 1, outside Tessera ---------------------- */

static void pingpong(int fd, int initiator, size_t len, int busy, long rounds)
{
    char buf[4096];
    memset(buf, 1, sizeof buf);
    for (long i = 0; i < rounds; i++) {
        if (initiator && send(fd, buf, len, 0) != (ssize_t)len)
            abort();
        for (size_t got = 0; got < len;) {
            ssize_t n = recv(fd, buf + got, len - got, busy ? MSG_DONTWAIT : 0);
            if (n > 0)
                got += (size_t)n;
            else if (n == 0)
                abort();
        }
        if (!initiator && send(fd, buf, len, 0) != (ssize_t)len)
            abort();
    }
}

static int raw_connect(int *port_slot)
{
    int one = 1, fd;
    if (tsr_node() == 1) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof sa;
        int lfd = socket(AF_INET, SOCK_STREAM, 0);
        bind(lfd, (struct sockaddr *)&sa, sizeof sa);
        listen(lfd, 1);
        getsockname(lfd, (struct sockaddr *)&sa, &len);
        *port_slot = ntohs(sa.sin_port);
        tsr_barrier();
        fd = accept(lfd, NULL, NULL);
        close(lfd);
    } else {
        tsr_barrier();
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port_slot),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa))
            abort();
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

typedef struct tcp_burst {
    int fd, busy;
    size_t len;
} tcp_burst;

static void tcp_pingpong(const void *arg, long first, long rounds)
{
    const tcp_burst *b = arg;
    pingpong(b->fd, tsr_node() == 0, b->len, b->busy, rounds);
}

void bench_raw_tcp(void)
{
    int *port = tsr_alloc(sizeof(int));
    int fd = raw_connect(port);
    for (int busy = 0; busy < 2; busy++)
        for (int s = 0; s < 2; s++) {
            tcp_burst b = {fd, busy, round_trip_sizes[s]};
            tsr_barrier();
            double t = fastest_burst(tcp_pingpong, &b);
            char name[64];
            snprintf(name, sizeof name, "tcp_%s_%zu", busy ? "busy" : "block", round_trip_sizes[s]);
            report(name, t, BURST);
        }
    close(fd);
    tsr_barrier();
}

/* ---- Raw UDP between nodes 0 and 1, outside Tessera ---------------------- */

/* Two loopback datagram sockets connected to each other: each datagram is
 * one whole send, so pingpong() serves them as it serves TCP. */
void bench_raw_udp(void)
{
    int *ports = tsr_alloc(2 * sizeof(int)), me = tsr_node();
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
        getsockname(fd, (struct sockaddr *)&sa, &len))
        abort();
    ports[me] = ntohs(sa.sin_port);
    tsr_barrier();
    sa.sin_port = htons((uint16_t)ports[!me]);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa))
        abort();
    for (int s = 0; s < 2; s++) {
        tsr_barrier();
        double t0 = now_s();
        pingpong(fd, me == 0, round_trip_sizes[s], 1, ROUND_TRIPS);
        char name[64];
        snprintf(name, sizeof name, "udp_busy_%zu", round_trip_sizes[s]);
        report(name, now_s() - t0, ROUND_TRIPS);
    }
    close(fd);
    tsr_barrier();
}

/* ---- Raw shared memory between nodes 0 and 1, outside Tessera ------------- */

/* One direction of the ping-pong: the bytes, then the round they belong to. */
typedef struct shm_box {
    _Atomic long seq;
    char pad[56];
    char data[4096];
} shm_box;

/* Node 1 makes a memfd; node 0 opens it through /proc (same user). */
void *raw_shared(size_t bytes)
{
    int *slot = tsr_alloc(2 * sizeof(int)), fd = -1;
    if (tsr_node() == 1) {
        fd = memfd_create("tsr_micro", 0);
        if (fd < 0 || ftruncate(fd, (off_t)bytes))
            abort();
        slot[0] = getpid();
        slot[1] = fd;
    }
    tsr_barrier();
    if (tsr_node() == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", slot[0], slot[1]);
        fd = open(path, O_RDWR);
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd < 0 || p == MAP_FAILED)
        abort();
    tsr_barrier();
    close(fd);
    tsr_free(slot);
    return p;
}

typedef struct shm_burst {
    shm_box *box;
    size_t len;
} shm_burst;

void shm_pingpong(const void *arg, long first, long rounds)
{
    const shm_burst *b = arg;
    char buf[4096];
    int initiator = tsr_node() == 0;
    size_t len = b->len;
    shm_box *mine = &b->box[initiator], *theirs = &b->box[!initiator];
    memset(buf, 1, sizeof buf);
    for (long i = first; i < first + rounds; i++) {
        if (initiator) {
            memcpy(mine->data, buf, len);
            atomic_store_explicit(&mine->seq, i, memory_order_release);
        }
        for (unsigned k = 1; atomic_load_explicit(&theirs->seq, memory_order_acquire) != i; k++)
            spin_turn(k);
        memcpy(buf, theirs->data, len);
        if (!initiator) {
            memcpy(mine->data, buf, len);
            atomic_store_explicit(&mine->seq, i, memory_order_release);
        }
    }
}

void *shm_burst_open(size_t len)
{
    static shm_burst b;
    b = (shm_burst){raw_shared(2 * sizeof(shm_box)), len};
    return &b;
}

void shm_burst_close(void *arg)
{
    munmap(((shm_burst *)arg)->box, 2 * sizeof(shm_box));
}

/* The page-sized ping-pong; the small one's row is paired.c's. */
void bench_raw_shm(void)
{
    void *b = shm_burst_open(round_trip_sizes[1]);
    tsr_barrier();
    double t = fastest_burst(shm_pingpong, b);
    char name[64];
    snprintf(name, sizeof name, "shm_busy_%zu", round_trip_sizes[1]);
    report(name, t, BURST);
    tsr_barrier();
    shm_burst_close(b);
}
