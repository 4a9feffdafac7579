/*
 * request.c - the table of outstanding request ids (request.h).
 *
 * A slot's `id` is 0 when free and RESERVED while its opener fills it in;
 * the id is published last (release), so a reply that finds its id in the
 * slot finds the fields that go with it. Only the comm thread matches and
 * closes ids; any thread, the fault handler included, opens them.
 */
#include "transport/request.h"

#include <stdatomic.h>

#include "util/log.h"

#define RESERVED 1 /* below REQ_SLOTS: never an id (generations start at 1) */

typedef struct req_slot {
    _Atomic uint64_t id;
    uint64_t generation; /* of the slot's last id; its reserver's alone */
    void *ctx;
    int32_t peer;
    int32_t reply_type;
} req_slot;

static req_slot slots[REQ_SLOTS];
/* Where the next search for a free slot starts: the slot last opened, whose
 * line is likely still this core's. Only a hint: openers that read the
 * same value race for the slot by its compare-and-swap. */
static _Atomic uint32_t hint;

/* One locked instruction, the reservation's: the generation is the slot's
 * own, so that an id needs no counter every opener shares. */
uint64_t req_open(int peer, int reply_type, void *ctx)
{
    uint32_t start = atomic_load_explicit(&hint, memory_order_relaxed);
    for (uint32_t i = 0; i < REQ_SLOTS; i++) {
        uint32_t s = (start + i) % REQ_SLOTS;
        uint64_t expect = 0;
        if (!atomic_compare_exchange_strong(&slots[s].id, &expect, RESERVED))
            continue;
        atomic_store_explicit(&hint, s, memory_order_relaxed);
        slots[s].ctx = ctx;
        slots[s].peer = peer;
        slots[s].reply_type = reply_type;
        uint64_t id = ++slots[s].generation * REQ_SLOTS + s;
        atomic_store_explicit(&slots[s].id, id, memory_order_release);
        return id;
    }
    log_die_status(1, "all %d request ids are in use (raise REQ_SLOTS in %s)", REQ_SLOTS,
                   __FILE__);
}

static req_slot *slot_of(uint64_t id)
{
    req_slot *s = &slots[id % REQ_SLOTS];
    return id >= REQ_SLOTS && atomic_load_explicit(&s->id, memory_order_acquire) == id ? s : NULL;
}

const char *req_mismatch(int src, const tsr_msg_hdr *h)
{
    const req_slot *s = slot_of(h->arg[1]);
    if (!s)
        return "request id not outstanding (unknown, stale or already answered)";
    if (s->peer != src)
        return "reply from a node the request was not sent to";
    if (s->reply_type != h->type)
        return "reply of another type than the request's";
    return NULL;
}

void *req_ctx(uint64_t id)
{
    req_slot *s = slot_of(id);
    return s ? s->ctx : NULL;
}

void req_close(uint64_t id)
{
    req_slot *s = slot_of(id);
    if (s)
        atomic_store_explicit(&s->id, 0, memory_order_release);
}

uint32_t req_outstanding(void)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < REQ_SLOTS; s++)
        n += atomic_load_explicit(&slots[s].id, memory_order_relaxed) != 0;
    return n;
}
