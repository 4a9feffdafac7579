/*
 * ucx.h - the UCX backend's pieces (ucx.c), for its one-sided reads.
 * Only the comm thread calls them.
 */
#ifndef TSR_UCX_H
#define TSR_UCX_H

#include <ucp/api/ucp.h>

ucp_context_h ucx_context(void);
ucp_worker_h ucx_worker(void);
ucp_ep_h ucx_ep(int node);
/* Stops the node naming `what` and UCX's reason unless st is UCS_OK. */
void ucx_check(ucs_status_t st, const char *what);
/* Progresses the worker until req (a request, NULL or an error) is done. */
void ucx_wait(ucs_status_ptr_t req, const char *what);

#endif
