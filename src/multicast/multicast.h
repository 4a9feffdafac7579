/*
 * multicast.h - one message to a set of nodes, as TSR_MULTICAST says
 * (docs/OMPNOW.md): a binomial tree over the ordinary transport (`tree`),
 * the transport's own multicast (`ip`), or one message per node (`off`).
 *
 * Every way is reliable and keeps the transport's flow control: each hop
 * is an ordinary message (a tree's inner nodes pass the message on from
 * their comm threads with am_send, whose queues never block them). Unlike
 * a direct message, a message that came down a tree is not ordered with
 * the root's other messages to the same node.
 */
#ifndef TSR_MULTICAST_H
#define TSR_MULTICAST_H

#include <stddef.h>
#include <stdint.h>

/* Registers the tree's message; at tsr_init, before the transport starts. */
void mc_init(void);
/* Refuses TSR_MULTICAST=ip on a transport without multicast; once the
 * transport has started (a backend knows only then whether it has it). */
void mc_check(void);
/* Lets messages of `type` come down a tree (others are rejected there). */
void mc_allow(int type);

/* Sends message (type, a0, a1, a2, payload) from this node to the n nodes
 * in dests (not this one), each of which runs its handler once, with this
 * node as the sender. At most MC_MAX_BYTES of payload. */
#define MC_MAX_BYTES (1u << 20)
void mc_send(const int *dests, int n, int type, uint64_t a0, uint64_t a1, uint64_t a2,
             const void *payload, size_t len);
/* mc_send to every node but this one and `except` (-1: none). */
void mc_send_others(int except, int type, uint64_t a0, uint64_t a1, uint64_t a2,
                    const void *payload, size_t len);

#endif
