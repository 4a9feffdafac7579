/*
 * shm_hosts.h - the shm backend's part for a job that spans hosts
 * (TSR_TRANSPORT=auto): the rings reach this host's nodes, and TCP links
 * (tcp_link.h) the nodes of the others.
 *
 * A comm thread must then wait for both at once, and a futex cannot wait
 * for a socket. So in such a job every bell is a socket: a sender rings a
 * node of its host by writing a byte on their mesh connection, which
 * carries nothing else once the rings exist, and this node's own threads
 * ring it through an eventfd. One poll() waits for the bells, the other
 * hosts' links and the core's descriptors.
 */
#ifndef TSR_SHM_HOSTS_H
#define TSR_SHM_HOSTS_H

#include "transport/transport.h"

/* 1 when the job spans hosts (after shm_hosts_start). */
extern int shm_spans_hosts;

/* Whether node is on this host. */
int shm_here(int node);
/* Sets up the links to the other hosts' nodes and this node's own bell,
 * when the job spans hosts (refused under TSR_TRANSPORT=shm). */
void shm_hosts_start(void);
void shm_hosts_stop(void);
/* backend.h's post, to a node on another host. */
void shm_hosts_post(int dest, am_msg *m);
/* Rings node n's bell (n on this host, or this node). Any thread,
 * async-signal-safe. */
void shm_hosts_ring(int n);
/* Waits at most ms (0: only looks) for the bells, the other hosts' links
 * and the core's descriptors, and serves what it finds: reads the links,
 * writes what waits for them, drains the bells. Returns 1 if a link moved
 * anything. The comm thread. */
int shm_hosts_poll(int ms);
/* 1 when nothing waits to be written to another host. */
int shm_hosts_idle(void);
/* For am_poll (backend.h): whether another host's link has anything, and
 * reading what it has. */
int shm_hosts_arrived(void);
void shm_hosts_receive(void);

#endif
