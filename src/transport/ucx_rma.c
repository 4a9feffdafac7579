/*
 * ucx_rma.c - the UCX backend's one-sided side (rma.h): the segments this
 * node exposed, registered with ucp_mem_map; their packed keys, sent to
 * each peer after the worker's address over the bootstrap's authenticated
 * TCP mesh (ucx.c), so that only this job's nodes hold them; and the
 * batches of gets and puts that application threads post.
 *
 * The worker is serialized (ucx.c): a faulting thread queues its batch and
 * wakes the comm thread, which issues it; UCX's completions, run by the
 * worker's progress on that thread, end the batch's waiter. Over RDMA the
 * peer's CPU takes no part; over TCP or shared memory without
 * cross-memory attach, the peer's UCX progress (its comm thread) moves the
 * bytes, but no Tessera handler runs there.
 *
 * The marks are registered for remote writing; pages and the page table
 * for remote reading only, unless the node takes diffs one-sided
 * (transport_expose_writable), when they are writable too and the context
 * has 32-bit atomics, set to UCX_ATOMIC_MODE=cpu: a peer's increment of a
 * page's version must be atomic with the home's own, which the CPU makes
 * (device atomics are atomic only with one another). A peer's segment
 * bounds and what it lets this node do are its word: an operation outside
 * them is refused here before any of its batch leaves, and the peer's
 * registration refuses it again where the fabric checks keys (verbs).
 */
#include <stdlib.h>
#include <string.h>

#include "transport/core.h"
#include "transport/ucx.h"
#include "util/config.h"
#include "util/io.h"
#include "util/log.h"
#include "util/spin.h"

/* Longest packed key accepted from a peer (UCX 1.13's are tens of bytes
 * over TCP, a few hundred with several devices). */
#define MAX_KEY 65536

typedef struct remote_seg {
    uint64_t base, len;
    ucp_rkey_h rkey;
    int writable;
} remote_seg;

/* What a node sends per segment before its packed key. */
typedef struct seg_hello {
    uint64_t base, len;
    uint32_t key_len, writable;
} seg_hello;

static int enabled, writable;
static ucp_mem_h memh[RMA_SEGS];
static void *key[RMA_SEGS];
static size_t key_len[RMA_SEGS];
static remote_seg (*remote)[RMA_SEGS]; /* per peer */
static spin_t queue_lock;
static rma_batch *queue_head, *queue_tail;

uint64_t ucx_rma_features(ucp_config_t *conf)
{
    size_t len;
    writable = transport_exposed_writable();
    enabled = (cfg.fetch_direct || writable) && transport_exposed(RMA_PAGES, &len) && len;
    writable &= enabled;
    if (writable)
        ucx_check(ucx_api.ucp_config_modify(conf, "ATOMIC_MODE", "cpu"),
                  "setting UCX's atomics to agree with the CPU's (TSR_DIFF_PUT=message does "
                  "without)");
    return enabled ? UCP_FEATURE_RMA | (writable ? UCP_FEATURE_AMO32 : 0) : 0;
}

/* Whether peers may write segment s of this node. */
static int seg_writable(int s) { return s == RMA_MARKS || writable; }

void ucx_rma_register(void)
{
    remote = calloc((size_t)cfg.nodes, sizeof *remote);
    if (!remote)
        log_die("cannot set up the UCX transport: out of memory");
    for (int s = 0; enabled && s < RMA_SEGS; s++) {
        size_t len;
        void *base = transport_exposed(s, &len);
        if (!len)
            continue;
        /* Non-blocking: the region is reserved, not committed (TSR_MEMORY),
         * and must stay so; UCX maps its pages as operations reach them
         * (on-demand paging where the fabric has it). */
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                          UCP_MEM_MAP_PARAM_FIELD_PROT | UCP_MEM_MAP_PARAM_FIELD_FLAGS,
            .address = base,
            .length = len,
            .flags = UCP_MEM_MAP_NONBLOCK,
            .prot = UCP_MEM_MAP_PROT_LOCAL_READ | UCP_MEM_MAP_PROT_LOCAL_WRITE |
                    UCP_MEM_MAP_PROT_REMOTE_READ |
                    (seg_writable(s) ? UCP_MEM_MAP_PROT_REMOTE_WRITE : 0)};
        ucx_check(ucx_api.ucp_mem_map(ucx_context, &mp, &memh[s]),
                  "registering the shared memory for one-sided reads (TSR_FETCH=message does "
                  "without)");
        ucx_check(ucx_api.ucp_rkey_pack(ucx_context, memh[s], &key[s], &key_len[s]),
                  "packing a remote key");
    }
}

int ucx_rma_send_keys(int fd)
{
    for (int s = 0; s < RMA_SEGS; s++) {
        size_t len;
        seg_hello h = {(uintptr_t)transport_exposed(s, &len), len, (uint32_t)key_len[s],
                       (uint32_t)seg_writable(s)};
        if (io_write_all(fd, &h, sizeof h) || io_write_all(fd, key[s], key_len[s]))
            return -1;
    }
    return 0;
}

int ucx_rma_read_keys(int j, int fd, double deadline)
{
    for (int s = 0; s < RMA_SEGS; s++) {
        seg_hello h;
        if (io_read_full(fd, &h, sizeof h, deadline) || h.key_len > MAX_KEY)
            return -1;
        char *buf = malloc(h.key_len + 1);
        if (!buf || io_read_full(fd, buf, h.key_len, deadline)) {
            free(buf);
            return -1;
        }
        remote[j][s] = (remote_seg){h.base, h.len, NULL, h.writable == 1};
        /* A peer without one-sided reads (TSR_FETCH=message there) sends
         * no key; this node then asks it by message. */
        if (enabled && h.key_len)
            ucx_check(ucx_api.ucp_ep_rkey_unpack(ucx_peer_ep(j), buf, &remote[j][s].rkey),
                      "unpacking a peer's remote key");
        free(buf);
    }
    return 0;
}

int ucx_rma_ready(int node)
{
    const remote_seg *r = remote[node];
    if (!enabled || !r[RMA_PAGES].rkey || !r[RMA_META].rkey || !r[RMA_MARKS].rkey ||
        ucx_peer_failed(node))
        return RMA_NO_ACCESS;
    return writable && r[RMA_PAGES].writable && r[RMA_META].writable ? RMA_WRITABLE
                                                                     : RMA_READABLE;
}

void ucx_rma_post(int node, rma_batch *b)
{
    b->next = NULL;
    spin_lock(&queue_lock);
    if (queue_tail)
        queue_tail->next = b;
    else
        __atomic_store_n(&queue_head, b, __ATOMIC_RELEASE);
    queue_tail = b;
    spin_unlock(&queue_lock);
    ucx_wake();
}

/* One operation fewer outstanding; the last ends the batch. */
static void op_ended(rma_batch *b)
{
    if (atomic_fetch_sub(&b->pending, 1) == 1)
        waiter_done(&b->w);
}

static void op_done(void *request, ucs_status_t status, void *user_data)
{
    rma_batch *b = user_data;
    if (status != UCS_OK)
        atomic_store(&b->failed, 1);
    ucx_api.ucp_request_free(request);
    op_ended(b);
}

/* Whether node lets this node do op i of b: inside its segment, a put
 * where it accepts them, an increment of an aligned word where it accepts
 * them; a flush that ends the batch. */
static int allowed(const rma_batch *b, int i)
{
    const rma_op *op = &b->ops[i];
    if (op->kind == RMA_FLUSH)
        return i == b->n - 1;
    const remote_seg *r = op->seg < RMA_SEGS ? &remote[b->node][op->seg] : NULL;
    if (!r || !r->rkey || op->off > r->len || op->len > r->len - op->off)
        return 0;
    switch (op->kind) {
    case RMA_GET:
        return 1;
    case RMA_PUT:
        return r->writable;
    case RMA_INC32: /* this context has atomics only where it writes */
        return writable && r->writable && op->len == 4 && (r->base + op->off) % 4 == 0;
    default:
        return 0;
    }
}

/* Issues one operation of b (allowed); 0, or -1 if UCX refused it. */
static int issue(rma_batch *b, const rma_op *op)
{
    static const uint32_t one = 1;
    const remote_seg *r = &remote[b->node][op->seg];
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.send = op_done,
                               .user_data = b};
    ucp_ep_h ep = ucx_peer_ep(b->node);
    uint64_t at = r->base + op->off;
    atomic_fetch_add(&b->pending, 1);
    ucs_status_ptr_t q;
    if (op->kind == RMA_INC32) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.datatype = ucp_dt_make_contig(4);
        prm.reply_buffer = op->buf;
        q = ucx_api.ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_ADD, &one, 1, at, r->rkey, &prm);
    } else if (op->kind == RMA_FLUSH) {
        q = ucx_api.ucp_ep_flush_nbx(ep, &prm);
    } else if (op->kind == RMA_PUT) {
        q = ucx_api.ucp_put_nbx(ep, op->buf, op->len, at, r->rkey, &prm);
    } else {
        q = ucx_api.ucp_get_nbx(ep, op->buf, op->len, at, r->rkey, &prm);
    }
    if (UCS_PTR_IS_PTR(q))
        return 0;
    op_ended(b);
    return UCS_PTR_IS_ERR(q) ? -1 : 0;
}

/* Issues batch b, its operations after a fence where they ask for one;
 * none if one may not go, so that a refused batch changed nothing. */
static void run_batch(rma_batch *b)
{
    atomic_store(&b->pending, 1); /* held until every operation is issued */
    for (int i = 0; i < b->n; i++)
        if (!allowed(b, i))
            atomic_store(&b->failed, 1);
    for (int i = 0; i < b->n && !b->failed; i++) {
        if (b->ops[i].fence && i > 0)
            ucx_api.ucp_worker_fence(ucx_worker);
        if (ucx_peer_failed(b->node) || issue(b, &b->ops[i]))
            atomic_store(&b->failed, 1);
    }
    op_ended(b);
}

int ucx_rma_run(void)
{
    if (!__atomic_load_n(&queue_head, __ATOMIC_ACQUIRE))
        return 0;
    spin_lock(&queue_lock);
    rma_batch *b = queue_head;
    __atomic_store_n(&queue_head, NULL, __ATOMIC_RELAXED);
    queue_tail = NULL;
    spin_unlock(&queue_lock);
    while (b) {
        rma_batch *next = b->next; /* b may be gone once it ends */
        run_batch(b);
        b = next;
    }
    return 1;
}

void ucx_rma_stop(void)
{
    for (int j = 0; remote && j < cfg.nodes; j++)
        for (int s = 0; s < RMA_SEGS; s++)
            if (remote[j][s].rkey)
                ucx_api.ucp_rkey_destroy(remote[j][s].rkey);
    for (int s = 0; s < RMA_SEGS; s++) {
        if (key[s])
            ucx_api.ucp_rkey_buffer_release(key[s]);
        if (memh[s])
            ucx_api.ucp_mem_unmap(ucx_context, memh[s]);
    }
    free(remote);
}
