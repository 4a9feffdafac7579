/*
 * flag.c - pause flags (PARMACS' PAUSE family, OpenMP/NOW's condition
 * variables): one node sets a flag, others wait for it, with no barrier.
 *
 * A flag's state lives at its manager, its lock's manager. Consistency
 * comes from a lock of its own, slot TSR_MAX_LOCKS + id (payload.h;
 * MSG_FLAG_LOCKS + id on the wire, apart from the program's): the setter takes it, sends
 * MSG_FLAG_SET while holding it, and releases it; a waiter, once told the
 * flag is up, takes and releases the same lock. The setter held the lock
 * when the waiter learnt of the set, so the waiter's acquire comes after
 * the setter's release and brings its writes, whatever the protocols.
 * Sets and clears from one node reach the manager in the order made; a
 * clear returns once the manager has lowered the flag (MSG_FLAG_DOWN), so
 * a set that another node makes after hearing of the clear (through a
 * lock, as a condition variable built on flags does) cannot arrive first
 * and be undone by it.
 *
 * Any thread may call them. The manager keeps one wait per node and flag,
 * so the node's threads that wait for one flag at once share one request:
 * the first asks, the others join its round, and the answer ends the
 * round for all of them on the comm thread (before a later MSG_FLAG_DOWN
 * from the same manager is handled, so no thread that starts waiting after
 * its node saw a clear returns on the set before it). Each then takes and
 * releases the flag's lock, through the cohort (cohort.c), which keeps one
 * thread of the node at a time on a lock slot.
 */
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sync/sync.h"
#include "tessera.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/guard.h"
#include "util/log.h"

/* Manager side (comm thread only): the flags it manages, and per flag and
 * node the request id of a wait not yet answered (0: none). */
static uint8_t *up;
static uint64_t *waiting;
/* Asking side, per flag: rounds of waits << 1 | whether a thread of this
 * node asks now. The answer adds one: the round ends, and nobody asks. */
static _Atomic uint32_t *asking;

/* A wait's request: the flag is kept here, not read off the answer. */
typedef struct flag_ask {
    waiter w;
    int id;
} flag_ask;

static int manager_of(int id) { return (TSR_MAX_LOCKS + id) % cfg.nodes; }

/* A flag id from the wire (below TSR_MAX_FLAGS: ARG_FLAG) if this node
 * manages it, else -1. */
static int wire_flag(const tsr_msg_hdr *h)
{
    return manager_of((int)h->arg[0]) == cfg.node ? (int)h->arg[0] : -1;
}

static void on_set(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = wire_flag(h);
    if (id < 0) {
        am_reject(src, h, "a flag not managed here");
        return;
    }
    up[id] = h->type == MSG_FLAG_SET;
    if (!up[id]) {
        am_send(src, MSG_FLAG_DOWN, (uint64_t)id, h->arg[1], 0, NULL, 0);
        return;
    }
    for (int n = 0; n < cfg.nodes; n++) {
        uint64_t *w = &waiting[(size_t)id * cfg.nodes + n];
        if (*w) {
            am_send(n, MSG_FLAG_UP, (uint64_t)id, *w - 1, 0, NULL, 0);
            *w = 0;
        }
    }
}

static void on_wait(int src, const tsr_msg_hdr *h, void *payload)
{
    int id = wire_flag(h);
    uint64_t *w = id < 0 ? NULL : &waiting[(size_t)id * cfg.nodes + src];
    if (!w || *w) {
        am_reject(src, h, "a flag not managed here, or waited for twice");
        return;
    }
    if (up[id])
        am_send(src, MSG_FLAG_UP, (uint64_t)id, h->arg[1], 0, NULL, 0);
    else
        *w = h->arg[1] + 1;
}

/* MSG_FLAG_DOWN: the answer a clear waits for. */
static void on_down(int src, const tsr_msg_hdr *h, void *payload)
{
    waiter *w = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    waiter_done(w);
}

/* MSG_FLAG_UP: ends the round of every thread of this node waiting for the
 * flag (futex and atomics: the handler may run on a thread in its fault
 * handler). */
static void on_up(int src, const tsr_msg_hdr *h, void *payload)
{
    flag_ask *a = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    atomic_fetch_add(&asking[a->id], 1);
    syscall(SYS_futex, (uint32_t *)&asking[a->id], FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
    waiter_done(&a->w);
}

void flag_init(void)
{
    up = calloc(TSR_MAX_FLAGS, sizeof *up);
    waiting = calloc((size_t)TSR_MAX_FLAGS * (size_t)cfg.nodes, sizeof *waiting);
    asking = calloc(TSR_MAX_FLAGS, sizeof *asking);
    if (!up || !waiting || !asking)
        log_die("out of memory (pause flags)");
    am_register(MSG_FLAG_SET, on_set);
    am_register(MSG_FLAG_CLEAR, on_set);
    am_register(MSG_FLAG_WAIT, on_wait);
    am_register(MSG_FLAG_UP, on_up);
    am_register(MSG_FLAG_DOWN, on_down);
}

static void check_id(const char *fn, int id)
{
    guard_check_any(fn);
    if (id < 0 || id >= TSR_MAX_FLAGS)
        log_die("%s(%d): flag id out of range [0, %d)", fn, id, TSR_MAX_FLAGS);
    sync_thread_check(fn);
}

void tsr_flag_set(int id)
{
    check_id("tsr_flag_set", id);
    cohort_acquire("tsr_flag_set", TSR_MAX_LOCKS + id);
    am_send(manager_of(id), MSG_FLAG_SET, (uint64_t)id, 0, 0, NULL, 0);
    cohort_release("tsr_flag_set", TSR_MAX_LOCKS + id);
}

void tsr_flag_clear(int id)
{
    check_id("tsr_flag_clear", id);
    int m = manager_of(id);
    waiter w;
    waiter_init(&w, 1);
    am_send(m, MSG_FLAG_CLEAR, (uint64_t)id, req_open(m, MSG_FLAG_DOWN, &w), 0, NULL, 0);
    waiter_wait(&w);
}

/* Asks the manager, and returns once it has answered (the flag is up). */
static void ask(int id)
{
    int m = manager_of(id);
    flag_ask a = {.id = id};
    waiter_init(&a.w, 1);
    am_send(m, MSG_FLAG_WAIT, (uint64_t)id, req_open(m, MSG_FLAG_UP, &a), 0, NULL, 0);
    waiter_wait(&a.w);
}

/* Returns once the round that a thread of this node asks for now ends. */
static void join(int id, uint32_t round)
{
    while (atomic_load(&asking[id]) == round)
        syscall(SYS_futex, (uint32_t *)&asking[id], FUTEX_WAIT_PRIVATE, round, NULL, NULL, 0);
}

void tsr_flag_wait(int id)
{
    check_id("tsr_flag_wait", id);
    uint32_t s = atomic_load(&asking[id]);
    for (;;) {
        if (s & 1) {
            join(id, s);
            break;
        }
        if (atomic_compare_exchange_weak(&asking[id], &s, s | 1)) {
            ask(id);
            break;
        }
    }
    cohort_acquire("tsr_flag_wait", TSR_MAX_LOCKS + id);
    cohort_release("tsr_flag_wait", TSR_MAX_LOCKS + id);
}
