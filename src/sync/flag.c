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
 */
#include <stdlib.h>

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

/* MSG_FLAG_UP and MSG_FLAG_DOWN: the answer a waiting call asked for. */
static void on_answer(int src, const tsr_msg_hdr *h, void *payload)
{
    waiter *w = req_ctx(h->arg[1]);
    req_close(h->arg[1]);
    waiter_done(w);
}

void flag_init(void)
{
    up = calloc(TSR_MAX_FLAGS, sizeof *up);
    waiting = calloc((size_t)TSR_MAX_FLAGS * (size_t)cfg.nodes, sizeof *waiting);
    if (!up || !waiting)
        log_die("out of memory (pause flags)");
    am_register(MSG_FLAG_SET, on_set);
    am_register(MSG_FLAG_CLEAR, on_set);
    am_register(MSG_FLAG_WAIT, on_wait);
    am_register(MSG_FLAG_UP, on_answer);
    am_register(MSG_FLAG_DOWN, on_answer);
}

static void check_id(const char *fn, int id)
{
    guard_check(fn);
    if (id < 0 || id >= TSR_MAX_FLAGS)
        log_die("%s(%d): flag id out of range [0, %d)", fn, id, TSR_MAX_FLAGS);
}

void tsr_flag_set(int id)
{
    check_id("tsr_flag_set", id);
    lock_acquire(TSR_MAX_LOCKS + id);
    am_send(manager_of(id), MSG_FLAG_SET, (uint64_t)id, 0, 0, NULL, 0);
    lock_release(TSR_MAX_LOCKS + id);
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

void tsr_flag_wait(int id)
{
    check_id("tsr_flag_wait", id);
    int m = manager_of(id);
    waiter w;
    waiter_init(&w, 1);
    am_send(m, MSG_FLAG_WAIT, (uint64_t)id, req_open(m, MSG_FLAG_UP, &w), 0, NULL, 0);
    waiter_wait(&w);
    lock_acquire(TSR_MAX_LOCKS + id);
    lock_release(TSR_MAX_LOCKS + id);
}
