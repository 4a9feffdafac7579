/*
 * udp_group.c - the udp backend's IP multicast: one group per job, which
 * every node joins on the interface it listens on for its peers
 * (IP_MULTICAST_LOOP for nodes of one host, TTL 1 for one link).
 *
 * A multicast datagram names, for each member, its number in the sender's
 * sequence to that member, the sender's acknowledgement to it and the
 * token that member gave the sender (udp_rel.h): each member takes its own
 * part as the unicast datagram it stands for, after the same checks.
 * Members the datagram does not name drop it unread; the sender's own copy
 * (looped back) is ignored.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/udp.h"
#include "transport/udp_fault.h"
#include "util/config.h"
#include "util/log.h"

static int native;
static struct sockaddr_in group_addr;

void group_choose(uint32_t *group, uint16_t *port)
{
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, 0) != sizeof r)
        r = (uint32_t)getpid();
    /* 239.192.0.0/14: organisation-local scope (RFC 2365). */
    *group = htonl(0xefc00000u | (r & 0x3ffff));
    *port = htons((uint16_t)(20000 + (r >> 18) % 40000));
}

int group_open(int sock, uint32_t own, uint32_t group, uint16_t port)
{
    group_addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = port,
                                      .sin_addr.s_addr = group};
    struct in_addr ifaddr = {own};
    unsigned char loop = 1, ttl = 1;
    int one = 1, msock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct ip_mreq mreq = {{group}, {own}};
    if (msock < 0 || setsockopt(msock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(msock, (struct sockaddr *)&group_addr, sizeof group_addr) ||
        setsockopt(msock, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq) ||
        setsockopt(sock, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, sizeof ifaddr) ||
        setsockopt(sock, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop) ||
        setsockopt(sock, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl)) {
        log_warn("udp: cannot use IP multicast here (%s): am_multicast sends one datagram per "
                 "node", strerror(errno));
        if (msock >= 0)
            close(msock);
        return -1;
    }
    native = 1;
    return msock;
}

int group_native(void) { return native; }

void group_emit(const rel_hdr *h, rel_member *members, const struct iovec *data, int n)
{
    for (uint32_t i = 0; i < h->members; i++)
        members[i].token = udp_peers[members[i].node].token_out;
    struct iovec iov[5] = {{(void *)h, sizeof *h},
                           {members, h->members * sizeof *members}};
    for (int i = 0; i < n; i++)
        iov[2 + i] = data[i];
    fault_pass(-1, iov, n + 2);
}

const struct sockaddr_in *group_address(void) { return &group_addr; }

/* Why a group datagram of n bytes is not to be taken, or NULL. */
static const char *forged(const rel_hdr *h, ssize_t n, const struct sockaddr_in *from)
{
    if ((size_t)n < sizeof *h || h->magic != REL_MAGIC || h->kind != REL_MULTICAST ||
        h->dst != REL_GROUP || h->src >= cfg.nodes)
        return "is not a Tessera multicast datagram";
    if (!udp_from_peer(h->src, from))
        return "comes from another address than its sender's";
    if (!h->members || h->members > (uint32_t)cfg.nodes || h->len > REL_FRAG || h->seq ||
        h->ack || h->sack || (size_t)n != sizeof *h + h->members * sizeof(rel_member) + h->len)
        return "has a bad member count or length";
    return NULL;
}

void group_receive(const void *buf, ssize_t n, const struct sockaddr_in *from)
{
    const rel_hdr *h = buf;
    if ((size_t)n >= sizeof *h && h->src == cfg.node && h->magic == REL_MAGIC)
        return; /* our own, looped back */
    const char *why = forged(h, n, from);
    if (why) {
        udp_reject(n, why);
        return;
    }
    const rel_member *m = (const rel_member *)(h + 1);
    for (uint32_t i = 0; i < h->members; i++) {
        if (m[i].node != cfg.node)
            continue;
        if (m[i].token != udp_peers[h->src].token_in || m[i].zero || m[i].zero2) {
            udp_reject(n, "carries a wrong token");
            return;
        }
        rel_hdr mine = {REL_MAGIC, h->src, (uint16_t)cfg.node, 0, m[i].seq, m[i].ack, 0,
                        REL_DATA, h->len, 0};
        udp_take(h->src, &mine, m + h->members);
        return;
    }
}
