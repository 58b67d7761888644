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
    VERBS_DAPL_OPS,
    .ia_open = cma_ia_open,
    .ia_close = cma_ia_close,
    .connect = cma_connect,
    .accept = cma_accept,
    .disconnect = cma_disconnect,
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
