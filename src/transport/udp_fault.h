/*
 * udp_fault.h - TSR_FAULTS: losses, duplicates, reordering and delays the
 * udp backend inflicts on its own datagrams, below its reliability layer,
 * so that every protocol runs against them (the kernel here has no netem).
 *
 * Each datagram is, independently, lost with probability `loss`, sent
 * twice with `dup`, held back up to FAULT_REORDER_US with `reorder` (later
 * datagrams overtake it), and held back up to `delay` otherwise. Draws come
 * from a generator seeded by `seed` and the node, so a run can be repeated.
 */
#ifndef TSR_UDP_FAULT_H
#define TSR_UDP_FAULT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define FAULT_REORDER_US 1000

/* Sends one datagram (the pieces in order) to node dest, or to the job's
 * multicast group (dest -1). Async-signal-safe. */
typedef void fault_send_fn(int dest, const struct iovec *iov, int n);

/* Starts injecting cfg.faults through send; registers the counters. */
void fault_setup(fault_send_fn *send);
/* Sends the datagram, or not, or twice, or later. Any thread;
 * async-signal-safe (a held datagram is copied into a fixed pool). */
void fault_pass(int dest, const struct iovec *iov, int n);
/* Comm thread: sends the held datagrams whose time has come; returns the
 * nanoseconds until the next one (UINT64_MAX: none). */
uint64_t fault_release(uint64_t now_ns);
/* 1 when no datagram is held. */
int fault_idle(void);

#endif
