/*
 * ucx.h - what the UCX backend's files share: UCX's functions, opened with
 * dlopen (ucx.c), the context and worker, and the one-sided side
 * (ucx_rma.c).
 */
#ifndef TSR_UCX_H
#define TSR_UCX_H

#include <ucp/api/ucp.h>
#include <ucs/debug/log_def.h>

#include "transport/rma.h"

#define UCX_FUNCS(X) \
    X(ucp_init_version) \
    X(ucp_config_read) \
    X(ucp_config_release) \
    X(ucp_config_modify) \
    X(ucp_cleanup) \
    X(ucp_worker_create) \
    X(ucp_worker_destroy) \
    X(ucp_worker_get_efd) \
    X(ucp_worker_arm) \
    X(ucp_worker_progress) \
    X(ucp_worker_get_address) \
    X(ucp_worker_release_address) \
    X(ucp_worker_set_am_recv_handler) \
    X(ucp_worker_flush_nbx) \
    X(ucp_worker_fence) \
    X(ucp_ep_create) \
    X(ucp_ep_close_nbx) \
    X(ucp_ep_flush_nbx) \
    X(ucp_am_send_nbx) \
    X(ucp_get_nbx) \
    X(ucp_put_nbx) \
    X(ucp_atomic_op_nbx) \
    X(ucp_mem_map) \
    X(ucp_mem_unmap) \
    X(ucp_rkey_pack) \
    X(ucp_rkey_buffer_release) \
    X(ucp_ep_rkey_unpack) \
    X(ucp_rkey_destroy) \
    X(ucp_request_check_status) \
    X(ucp_request_free) \
    X(ucs_status_string) \
    X(ucs_log_push_handler) \
    X(ucs_log_pop_handler)
#define UCX_POINTER(f) __typeof__(&f) f;
typedef struct ucx_funcs {
    UCX_FUNCS(UCX_POINTER)
} ucx_funcs;

extern ucx_funcs ucx_api;
extern ucp_context_h ucx_context;
extern ucp_worker_h ucx_worker;

/* ucx.c: stops the node naming `what` and UCX's reason unless st is
 * UCS_OK; peer j's endpoint, and whether UCX found it failed; wakes the
 * comm thread. */
void ucx_check(ucs_status_t st, const char *what);
ucp_ep_h ucx_peer_ep(int j);
int ucx_peer_failed(int j);
void ucx_wake(void);

/* ucx_rma.c. The features the context needs for what this node exposed
 * (TSR_FETCH=direct, TSR_DIFF_PUT=onesided): UCP_FEATURE_RMA and, where
 * peers increment its words, UCP_FEATURE_AMO32 with the atomics set in
 * conf to agree with the CPU's; or 0. */
uint64_t ucx_rma_features(ucp_config_t *conf);
/* After the context: registers the exposed segments and packs their keys. */
void ucx_rma_register(void);
/* The keys, sent to peer j over its mesh connection after the worker's
 * address; read from it once its endpoint exists. 0 done, -1 lost. */
int ucx_rma_send_keys(int fd);
int ucx_rma_read_keys(int j, int fd, double deadline);
/* Comm thread: issues the batches other threads posted; 1 if any. */
int ucx_rma_run(void);
int ucx_rma_ready(int node);
void ucx_rma_post(int node, rma_batch *b);
/* Before the endpoints close: the keys and registrations go. */
void ucx_rma_stop(void);

#endif
