/*
 * udp_fault.c - the datagram faults of TSR_FAULTS (udp_fault.h).
 *
 * Held datagrams live in a pool made at start-up, so the fault path never
 * allocates; when the pool is full a datagram that should wait goes at
 * once (it is then not counted as reordered or delayed).
 */
#include "transport/udp_fault.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "util/spin.h"
#include "transport/udp_rel.h"
#include "util/config.h"
#include "util/cpu.h"
#include "util/log.h"

STATS_COUNTER(faults_lost, "TSR_FAULTS: datagrams dropped on purpose");
STATS_COUNTER(faults_duplicated, "TSR_FAULTS: datagrams sent twice on purpose");
STATS_COUNTER(faults_reordered, "TSR_FAULTS: datagrams held back for later ones to overtake");
STATS_COUNTER(faults_delayed, "TSR_FAULTS: datagrams delayed");

#define POOL 64
#define DGRAM_MAX 65536 /* any datagram, a multicast's member list included */
#define FREE (-2)    /* a pool entry's dest when it holds nothing (-1: the group) */

typedef struct held {
    int dest;          /* as fault_pass's, or FREE */
    uint64_t due_ns;
    size_t len;
    char *bytes;
} held;

static fault_send_fn *send_now;
static spin_t lock; /* the generator and the pool */
static uint64_t rng;
static held pool[POOL];
static char *pool_bytes;
static _Atomic int holding;

/* splitmix64: small, fast, and the same sequence for the same seed. */
static uint64_t next_draw(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(void) { return (double)(next_draw() >> 11) / (double)(1ull << 53); }

void fault_setup(fault_send_fn *send)
{
    send_now = send;
    stats_register(&faults_lost);
    stats_register(&faults_duplicated);
    stats_register(&faults_reordered);
    stats_register(&faults_delayed);
    if (!cfg.faults.on)
        return;
    rng = cfg.faults.seed * 0x100000001b3ull + (uint64_t)cfg.node;
    pool_bytes = malloc(POOL * DGRAM_MAX);
    if (!pool_bytes)
        log_die("cannot set up TSR_FAULTS: out of memory");
    for (int i = 0; i < POOL; i++)
        pool[i] = (held){FREE, 0, 0, pool_bytes + (size_t)i * DGRAM_MAX};
}

/* Under lock: copies the datagram into a free pool entry due at `due`;
 * 0 if the pool is full. */
static int hold(int dest, const struct iovec *iov, int n, uint64_t due)
{
    for (int i = 0; i < POOL; i++) {
        held *h = &pool[i];
        if (h->dest != FREE)
            continue;
        h->len = 0;
        for (int k = 0; k < n; k++) {
            memcpy(h->bytes + h->len, iov[k].iov_base, iov[k].iov_len);
            h->len += iov[k].iov_len;
        }
        h->dest = dest;
        h->due_ns = due;
        atomic_fetch_add(&holding, 1);
        return 1;
    }
    return 0;
}

void fault_pass(int dest, const struct iovec *iov, int n)
{
    if (!cfg.faults.on) {
        send_now(dest, iov, n);
        return;
    }
    const tsr_faults *f = &cfg.faults;
    spin_lock(&lock);
    int lost = uniform() < f->loss, dup = uniform() < f->dup, reorder = uniform() < f->reorder;
    double wait_us = reorder ? uniform() * FAULT_REORDER_US : uniform() * f->delay_us;
    int kept = !lost && wait_us >= 1 &&
               hold(dest, iov, n, (uint64_t)(now_s() * 1e9 + wait_us * 1e3));
    spin_unlock(&lock);
    if (lost) {
        COUNTER_ADD(faults_lost, 1);
        return;
    }
    if (kept)
        COUNTER_ADD(*(reorder ? &faults_reordered : &faults_delayed), 1);
    if (dup)
        COUNTER_ADD(faults_duplicated, 1);
    for (int copies = !kept + dup; copies > 0; copies--)
        send_now(dest, iov, n);
}

uint64_t fault_release(uint64_t now)
{
    if (!atomic_load(&holding))
        return UINT64_MAX;
    uint64_t next = UINT64_MAX;
    spin_lock(&lock);
    for (int i = 0; i < POOL; i++) {
        held *h = &pool[i];
        if (h->dest == FREE)
            continue;
        if (h->due_ns <= now) {
            struct iovec iov = {h->bytes, h->len};
            send_now(h->dest, &iov, 1);
            h->dest = FREE;
            atomic_fetch_sub(&holding, 1);
        } else if (h->due_ns - now < next) {
            next = h->due_ns - now;
        }
    }
    spin_unlock(&lock);
    return next;
}

int fault_idle(void) { return !atomic_load(&holding); }
