/*
 * bench/micro: tsr_micro, Tessera's micro-benchmarks side by side with the
 * transport they rest on (driver.c says what it measures and prints).
 *
 * A node run calls the bench_* functions; each prints its figures from
 * node 0 as lines "M <name> <microseconds per operation>", which the driver
 * collects into its tables.
 */
#ifndef BENCH_MICRO_H
#define BENCH_MICRO_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cpu.h"

#define ROUND_TRIPS 2000
/* Round trips (raw and AM) are timed in bursts, and the fastest burst is
 * reported: the machine is shared, and a burst that another program's
 * work interrupted measures that work, not the round trip. */
#define BURSTS 10
#define BURST (ROUND_TRIPS / BURSTS)
/* Bursts of warm_up: see measure.c. */
#define WARMUP_BURSTS 40

/* The two message sizes of every round trip: a small message and a page. */
extern const size_t round_trip_sizes[2];

/* A burst of `rounds` round trips numbered from `first` (from 1). */
typedef void (*burst_fn)(const void *arg, long first, long rounds);

double fastest_burst(burst_fn burst, const void *arg);
/* WARMUP_BURSTS untimed bursts, run before fastest_burst times a row that
 * node 0 runs alone (measure.c says why). */
void warm_up(burst_fn burst, const void *arg);
void report(const char *name, double seconds, long count);

/* Sleeping comm threads woken (comm_wakeups) on this node, and the
 * collective report of every node's since `since`, per 1,000 operations. */
uint64_t wakeups(void);
void report_wakeups(const char *name, uint64_t since, long ops);
void wakeups_init(void);

/* `times` acquires and releases of lock `lock`. */
void lock_loop(int lock, int times);
/* Shared memory of `size` bytes whose pages node `home` homes. */
void *alloc_homed_at(size_t size, int home);

/* One turn of a busy wait: a pause, and now and then the core offered to
 * another thread (with more threads than cores the peer may need it). */
static inline void spin_turn(unsigned k)
{
    if (k % 64 == 0)
        sched_yield();
    else
        cpu_relax();
}

/* raw.c: ping-pongs between nodes 0 and 1 outside Tessera. */
void bench_raw_tcp(void);
void bench_raw_udp(void);
void bench_raw_shm(void);
/* The raw shared-memory ping-pong as a burst: its argument, of `len`
 * bytes (collective; one open at a time), and its release. */
void *shm_burst_open(size_t len);
void shm_burst_close(void *arg);
void shm_pingpong(const void *arg, long first, long rounds);
/* `bytes` of shared memory mapped by nodes 0 and 1, zeroed. Collective. */
void *raw_shared(size_t bytes);

/* rings.c: the same ping-pong through the two message rings a message
 * layer over shared memory can build on, still outside Tessera. */
void bench_raw_rings(void);
/* The fast box's ping-pong of 64 bytes as a burst (collective; one open
 * at a time). */
void *box_burst_open(void);
void box_burst_close(void *arg);
void ring_pingpong(const void *arg, long first, long rounds);

/* paired.c: the raw ping-pong, the fast box and the AM round trip of 64
 * bytes over shm, burst after burst in turn. */
void bench_shm_paired(void);

/* ops.c: Tessera's operations. */
void bench_am_echo(void);
/* Node 0's AM round trips of *(size_t *)arg bytes to node 1, as a burst. */
void echo_burst(const void *arg, long first, long rounds);
void bench_page_fetch(int step, int checked, const char *name);
void bench_lock(void);
void bench_lock_third(void);
void bench_barrier(void);
void bench_diff(const char *name, int stride_words, int words_changed);

/* handoff.c: the lock hand-off ablation. */
void bench_handoff(const char *name, int lock);

/* detect.c: access detection and range checks. */
void bench_faults(void);
void bench_tracking(void);
void bench_noop_checks(void);
/* A timeline span hook (off, or on under TSR_TRACE). */
void bench_trace_hook(void);

#endif
