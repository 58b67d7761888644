/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A verbs IA: the device context a connection manager found for the IA's
 * address, its limits, and the capability record udapl reads.
 *
 * Each verbs provider's ia_open finds the device context and port its own
 * way (rdma_cm binds the IA address: providers/cma) and hands them to
 * verbs_ia_open, which queries the device, joins the process-wide device
 * entry (async.c) and has the IA's engine watch its async fd.
 *
 * DAPL_CMA_DISABLE=mw,atomic,srq (read at IA open) makes the IA behave as
 * if the device had no memory windows, atomics or shared receive queues:
 * the capability record reports them absent and registrations ask for no
 * such access.  (The name is the compat-dapl provider's; it serves every
 * verbs provider.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "verbs.h"

static unsigned verbs_disable_flags(const char *s)
{
	unsigned flags = 0;
	char buf[128], *tok, *save;

	if (!s)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (!strcasecmp(tok, "mw") || !strcasecmp(tok, "rmr"))
			flags |= VERBS_NO_MW;
		else if (!strncasecmp(tok, "atomic", 6))
			flags |= VERBS_NO_ATOMIC;
		else if (!strcasecmp(tok, "srq"))
			flags |= VERBS_NO_SRQ;
		else
			dapl_dbg(DAPL_DBG_WARN,
				 "verbs: DAPL_VERBS_DISABLE: unknown '%s'", tok);
	}
	return flags;
}

static const char *verbs_vendor(uint32_t id)
{
	switch (id) {
	case 0x0002c9:
	case 0x0015b3:
		return "Mellanox Technologies";
	case 0x001175:
		return "QLogic";
	case 0x0008f1:
		return "Chelsio";
	case 0x008086:
		return "Intel";
	case 0x0014e4:
	case 0x000af7:
		return "Broadcom";
	case 0x001fc2:
		return "Cavium/QLogic";
	case 0xffffff:
		return "Linux soft-RoCE (rxe)";
	default:
		return NULL;
	}
}

static DAT_COUNT verbs_count(long long v)
{
	return v > INT_MAX ? INT_MAX : v < 0 ? 0 : (DAT_COUNT)v;
}

static void verbs_query_names(const struct dapl_tp_ia *cia, DAT_IA_ATTR *attr)
{
	const struct ibv_device_attr *d = &cia->dattr;
	const char *vendor = verbs_vendor(d->vendor_id);
	unsigned fw_major = 0, fw_minor = 0;

	snprintf(attr->adapter_name, sizeof(attr->adapter_name), "%s",
		 ibv_get_device_name(cia->ctx->device));
	if (vendor)
		snprintf(attr->vendor_name, sizeof(attr->vendor_name), "%s",
			 vendor);
	else
		snprintf(attr->vendor_name, sizeof(attr->vendor_name),
			 "vendor 0x%06x", d->vendor_id);
	attr->hardware_version_major = d->hw_ver;
	attr->hardware_version_minor = d->vendor_part_id;
	sscanf(d->fw_ver, "%u.%u", &fw_major, &fw_minor);
	attr->firmware_version_major = fw_major;
	attr->firmware_version_minor = fw_minor;
}

/* DAPL_WR_MAX (OFA dapl's variable, same meaning): the work requests an
 * EP's queue may hold at most, below the device's max_qp_wr: the IA
 * reports it as max_dto_per_ep, which every EP's request and receive
 * queues are checked against and its default sizes (64) stay under.
 * Read once per process (a bad value: one warning, and the device's). */
static long verbs_wr_max;
static pthread_once_t verbs_wr_max_once = PTHREAD_ONCE_INIT;

static void verbs_wr_max_read(void)
{
	verbs_wr_max = verbs_env_long("DAPL_WR_MAX", 1, INT_MAX, 0, NULL);
}

/* The capability record: what the device and DAPL_VERBS_DISABLE allow. */
static void verbs_fill_caps(const struct dapl_tp_ia *cia, struct dapl_caps *caps)
{
	DAT_IA_ATTR *attr = &caps->attr;
	const struct ibv_device_attr *d = &cia->dattr;
	int mw = !(cia->disable & VERBS_NO_MW) &&
		 (d->device_cap_flags & IBV_DEVICE_MEM_WINDOW) && d->max_mw;
	int srq = !(cia->disable & VERBS_NO_SRQ) && d->max_srq;
	long long rd_total = d->max_res_rd_atom
				 ? d->max_res_rd_atom
				 : (long long)d->max_qp_rd_atom * d->max_qp;

	verbs_query_names(cia, attr);
	attr->max_eps = d->max_qp;
	pthread_once(&verbs_wr_max_once, verbs_wr_max_read);
	attr->max_dto_per_ep = verbs_wr_max && verbs_wr_max < d->max_qp_wr
				   ? (DAT_COUNT)verbs_wr_max
				   : d->max_qp_wr;
	attr->max_rdma_read_per_ep_in = d->max_qp_rd_atom;
	attr->max_rdma_read_per_ep_out = d->max_qp_init_rd_atom;
	attr->max_evds = d->max_cq;
	attr->max_evd_qlen = d->max_cqe;
	attr->max_iov_segments_per_dto = d->max_sge;
	attr->max_lmrs = d->max_mr;
	attr->max_lmr_block_size = d->max_mr_size;
	attr->max_lmr_virtual_address = UINT64_MAX;
	attr->max_pzs = d->max_pd;
	attr->max_message_size = cia->pattr.max_msg_sz;
	attr->max_rdma_size = cia->pattr.max_msg_sz;
	attr->max_rmrs = mw ? d->max_mw : 0;
	attr->max_rmr_target_address = mw ? UINT64_MAX : 0;
	attr->max_srqs = srq ? d->max_srq : 0;
	attr->max_ep_per_srq = srq ? d->max_qp : 0;
	attr->max_recv_per_srq = srq ? d->max_srq_wr : 0;
	attr->max_iov_segments_per_rdma_read =
	    d->max_sge_rd && d->max_sge_rd < d->max_sge ? d->max_sge_rd
							: d->max_sge;
	attr->max_iov_segments_per_rdma_write = d->max_sge;
	attr->max_rdma_read_in = verbs_count(rd_total);
	attr->max_rdma_read_out = verbs_count(rd_total);
	attr->max_rdma_read_per_ep_in_guaranteed = DAT_TRUE;
	attr->max_rdma_read_per_ep_out_guaranteed = DAT_TRUE;

	caps->flags = DAPL_CAP_FENCE;
	/* the atomic extension (udapl/ext.c, provider attributes) */
	if (cia->atomics)
		caps->flags |= DAPL_CAP_ATOMICS;
	if (srq)
		caps->flags |= DAPL_CAP_SRQ;
	if (mw) {
		caps->flags |= DAPL_CAP_MW;
		caps->mw_types = verbs_mw_types(cia);
	}
	caps->max_inline = verbs_max_inline();
	/* the async events (and the CM's) come on fds; completions are the
	 * device's own business: nothing to poll */
	caps->progress = DAPL_PROGRESS_FD;
}

DAT_RETURN verbs_ia_open(struct dapl_ia *ia, struct ibv_context *ctx,
			 uint8_t port, const struct verbs_cm_ops *cm_ops,
			 struct dapl_caps *caps)
{
	struct dapl_tp_ia *cia = calloc(1, sizeof(*cia));

	if (!cia)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	cia->ia = ia;
	cia->ctx = ctx;
	cia->port = port;
	cia->cm_ops = cm_ops;
	cia->pid = dapl_self_pid(); /* no system call (transport.h) */
	cia->disable = verbs_disable_flags(secure_getenv("DAPL_CMA_DISABLE"));
	pthread_mutex_init(&cia->lock, NULL);
	pthread_mutex_init(&cia->mw_lock, NULL);
	dapl_list_init(&cia->mws);
	dapl_list_init(&cia->ports);
	dapl_list_init(&cia->dev_link);
	if (ibv_query_device(ctx, &cia->dattr) ||
	    ibv_query_port(ctx, port, &cia->pattr)) {
		pthread_mutex_destroy(&cia->lock);
		pthread_mutex_destroy(&cia->mw_lock);
		free(cia);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_DEVICE);
	}
	cia->atomics = !(cia->disable & VERBS_NO_ATOMIC) &&
		       cia->dattr.atomic_cap != IBV_ATOMIC_NONE;
	cia->dev = verbs_dev_get(ctx);
	if (!cia->dev ||
	    dapl_progress_watch(ia, ctx->async_fd, verbs_async_event,
				cia->dev)) {
		if (cia->dev)
			verbs_dev_put(cia->dev, NULL);
		pthread_mutex_destroy(&cia->lock);
		pthread_mutex_destroy(&cia->mw_lock);
		free(cia);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	verbs_dev_add_ia(cia->dev, cia);
	verbs_fill_caps(cia, caps);
	dapl_ia_set_tp(ia, cia);
	return DAT_SUCCESS;
}

/*
 * The process that first opened an IA of this provider.  rdma-core keeps
 * state per process that a forked child cannot start again: libibverbs'
 * device list (and the lock a parent thread may hold at the fork, as the
 * socket CM's IA open takes it), and librdmacm's device contexts and PDs,
 * opened on first use, which the child would share with the parent, whose
 * queue memory it may not have (ibv_fork_init).  rdma-core supports a
 * child that only exits or execs; so a child's dat_ia_open is refused
 * with a message, never a hang or a crash.  (The libfabric provider has
 * no such state: its children open IAs of their own.)  Each provider
 * library links this file and knows only its own IAs: a child of a
 * process that used only libdaplcma may open libdaplscm's, which works
 * unless a parent thread was inside libibverbs' device list at the fork.
 */
static _Atomic pid_t verbs_used_by;

DAT_RETURN verbs_fork_guard(const char *cm)
{
	pid_t used_by = atomic_load(&verbs_used_by), me = dapl_self_pid();

	if (used_by && used_by != me) {
		dapl_dbg(DAPL_DBG_ERR,
			 "%s: dat_ia_open in a child forked from process %d, "
			 "which used RDMA devices: rdma-core cannot start again "
			 "in a child (open IAs before fork in each process, or "
			 "exec)",
			 cm, (int)used_by);
		return DAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	}
	if (!used_by)
		atomic_compare_exchange_strong(&verbs_used_by, &used_by, me);
	return DAT_SUCCESS;
}

int verbs_ia_forked(const struct dapl_tp_ia *cia)
{
	return cia->pid != dapl_self_pid();
}

void verbs_ia_close(struct dapl_ia *ia)
{
	struct dapl_tp_ia *cia = dapl_ia_tp(ia);

	if (!cia)
		return;
	dapl_ia_set_tp(ia, NULL);
	/* a forked child: the device state is the parent's, leave it */
	if (verbs_ia_forked(cia))
		return;
	verbs_dev_put(cia->dev, cia);
	verbs_qpn_map_free(cia);
	pthread_mutex_destroy(&cia->lock);
	pthread_mutex_destroy(&cia->mw_lock);
	free(cia);
}

/*
 * errno of a failed verbs or rdma_cm call -> DAT_RETURN; resource is the
 * DAT_INSUFFICIENT_RESOURCES subtype to use when the device ran out.
 */
DAT_RETURN verbs_errno_to_dat(int err, DAT_RETURN resource)
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
