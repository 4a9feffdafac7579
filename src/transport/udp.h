/*
 * udp.h - what the udp backend's socket side (udp.c) and its multicast
 * group (udp_group.c) share.
 */
#ifndef TSR_UDP_H
#define TSR_UDP_H

#include <netinet/in.h>

#include "transport/stream.h"
#include "transport/udp_rel.h"

typedef struct udp_peer {
    struct sockaddr_in addr; /* where its datagrams come from and ours go */
    uint64_t token_in;       /* it must show this */
    uint64_t token_out;      /* we show this */
    rel_peer rel;
    rx_stream rx;            /* its ordered stream, put together again */
} udp_peer;

extern udp_peer *udp_peers;
extern int udp_sock; /* this node's unicast socket, which sends to the group too */

/* 1 if a datagram claiming to come from node src came from its address. */
int udp_from_peer(int src, const struct sockaddr_in *from);
/* Drops and counts a datagram that failed a check, saying why. */
void udp_reject(ssize_t n, const char *why);
/* An authenticated datagram from src: it is alive; on to reliability. */
void udp_take(int src, const rel_hdr *h, const void *data);

/* The job's multicast group: node 0 chooses it (address, port, network
 * order) and tells the others in its hello. */
void group_choose(uint32_t *group, uint16_t *port);
/* Joins the group on the interface of `own` and makes `sock` send to it;
 * returns the socket that receives the group's datagrams, or -1 (the
 * reason logged) if this host cannot: multicasts then reach this node by
 * unicast retransmission, and it sends none (group_native() is 0). */
int group_open(int sock, uint32_t own, uint32_t group, uint16_t port);
int group_native(void);
/* Where group datagrams go. */
const struct sockaddr_in *group_address(void);
/* rel_ops.emit_group. */
void group_emit(const rel_hdr *h, rel_member *members, const struct iovec *data, int n);
/* Checks a datagram that came to the group socket and takes this node's
 * part of it. */
void group_receive(const void *buf, ssize_t n, const struct sockaddr_in *from);

#endif
