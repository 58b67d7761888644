/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's entry points and its ops table.
 *
 * libdat calls dat_provider_init once per dat.conf entry that names this
 * library (with the entry's ia_params) and dat_provider_fini when it
 * unloads it; both hand over to udapl (dapl_provider_init/fini), which
 * owns the DAT_PROVIDER tables.
 *
 * Environment read by this provider:
 *   RDMAV_FORK_SAFE, IBV_FORK_SAFE   set (any value): call ibv_fork_init()
 *	before any registration, so that memory registered with the device
 *	stays safe in a forked child (libibverbs honours the same variables
 *	itself when it initialises; calling it here makes the order certain).
 *   DAPL_CMA_DISABLE=mw,atomic,srq   pretend the device lacks memory
 *	windows, atomics and/or shared receive queues (dat_ia_query reports
 *	them absent; read at dat_ia_open).
 *   DAPL_CMA_ACK_TIMEOUT=<5..31>     local ACK timeout exponent of the QPs
 *	(4.096 us * 2^n, default 19 = 2.1 s: generous for emulated hosts).
 *   DAPL_CMA_RETRY_COUNT=<0..7>      transport retries of the QPs before a
 *	write fails and the connection is BROKEN (default 7; soft-RoCE reads
 *	7 as "retry forever", so a dead link needs less there).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "cma.h"

const struct dapl_ops cma_ops = {
    .ia_open = cma_ia_open,
    .ia_close = cma_ia_close,
    .ia_query = cma_ia_query,
    .pz_create = cma_pz_create,
    .pz_free = cma_pz_free,
    .mr_register = cma_mr_register,
    .mr_share = cma_mr_share,
    .mr_deregister = cma_mr_deregister,
    .mw_alloc = cma_mw_alloc,
    .mw_free = cma_mw_free,
    .cq_create = cma_cq_create,
    .cq_resize = cma_cq_resize,
    .cq_destroy = cma_cq_destroy,
    .cq_poll = cma_cq_poll,
    .cq_arm = cma_cq_arm,
    .cq_ack = cma_cq_ack,
    .qp_create = cma_qp_create,
    .qp_destroy = cma_qp_destroy,
    .qp_reset = cma_qp_reset,
    .qp_modify = cma_qp_modify,
    .post_send = cma_post_send,
    .post_recv = cma_post_recv,
    .listen = cma_listen,
    .listen_stop = cma_listen_stop,
    .connect = cma_connect,
    .accept = cma_accept,
    .reject = cma_reject,
    .cr_destroy = cma_cr_destroy,
    .disconnect = cma_disconnect,
    .max_private_data = CMA_MAX_PDATA_REQ,
    .srq_create = cma_srq_create,
    .srq_modify = cma_srq_modify,
    .srq_destroy = cma_srq_destroy,
    .srq_post_recv = cma_srq_post_recv,
};

static void cma_fork_init(void)
{
	int rc;

	if (!getenv("RDMAV_FORK_SAFE") && !getenv("IBV_FORK_SAFE"))
		return;
	rc = ibv_fork_init();
	if (rc)
		dapl_dbg(DAPL_DBG_WARN, "cma: ibv_fork_init: error %d", rc);
}

void DAT_PROVIDER_INIT_FUNC_NAME(const DAT_PROVIDER_INFO *info,
				 const char *ia_params)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, cma_fork_init);
	dapl_provider_init(info, ia_params, &cma_ops, "cma");
}

void DAT_PROVIDER_FINI_FUNC_NAME(const DAT_PROVIDER_INFO *info)
{
	dapl_provider_fini(info);
}

/*
 * errno of a failed verbs or rdma_cm call -> DAT_RETURN; resource is the
 * DAT_INSUFFICIENT_RESOURCES subtype to use when the device ran out.
 */
DAT_RETURN cma_errno_to_dat(int err, DAT_RETURN resource)
{
	switch (err) {
	case ENOMEM:
	case ENOSPC:
	case EAGAIN:
	case EMFILE:
	case ENFILE:
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, resource);
	case EINVAL:
		return DAPL_ERR(DAT_INVALID_PARAMETER, 0);
	case EBUSY:
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	case EADDRINUSE:
		return DAPL_ERR(DAT_CONN_QUAL_IN_USE, 0);
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EADDRNOTAVAIL:
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNREACHABLE);
	case EAFNOSUPPORT:
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNSUPPORTED);
	default:
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	}
}

socklen_t cma_addr_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}
