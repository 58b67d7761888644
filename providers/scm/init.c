/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's entry points and its ops table: the verbs glue's ops
 * (VERBS_DAPL_OPS) with the socket CM's IA and connection ops.
 *
 * libdat calls dat_provider_init once per dat.conf entry that names this
 * library (with the entry's ia_params, "<device> <port>") and
 * dat_provider_fini when it unloads it; both hand over to udapl.
 *
 * Environment: ia.c's tunables (OFA dapl's DAPL_ACK_TIMER, DAPL_ACK_RETRY,
 * DAPL_RNR_RETRY, DAPL_RNR_TIMER, DAPL_GLOBAL_ROUTING, DAPL_HOP_LIMIT,
 * DAPL_TCLASS, DAPL_IB_MTU, DAPL_SCM_NETDEV); the verbs glue's
 * DAPL_MAX_INLINE and DAPL_CMA_DISABLE=mw,atomic,srq (which applies to
 * this provider too); RDMAV_FORK_SAFE / IBV_FORK_SAFE (libibverbs reads
 * them itself when it initialises).
 */
#include "scm.h"

const struct dapl_ops scm_ops = {
    VERBS_DAPL_OPS,
    .ia_open = scm_ia_open,
    .ia_close = scm_ia_close,
    .connect = scm_connect,
    .accept = scm_accept,
    .disconnect = scm_disconnect,
};

void DAT_PROVIDER_INIT_FUNC_NAME(const DAT_PROVIDER_INFO *info,
				 const char *ia_params)
{
	dapl_provider_init(info, ia_params, &scm_ops, "scm");
}

void DAT_PROVIDER_FINI_FUNC_NAME(const DAT_PROVIDER_INFO *info)
{
	dapl_provider_fini(info);
}
