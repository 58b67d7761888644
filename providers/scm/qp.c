/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rdma_cm does for providers/cma, done by hand: our QP's address in
 * a REQ or REP, and the peer's into our QP.  The QP is in INIT from
 * ep_create on (providers/verbs/qp.c, every access the device has); the
 * passive side moves it to RTR and RTS before it sends its REP, the
 * active side when the REP arrives, before its RTU.  The RDMA read
 * depths are what both sides allow: a side issues no more reads at once
 * than the other accepts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "scm.h"

void scm_qp_local(struct dapl_tp_cr *conn, struct ibv_qp *qp,
		  struct scm_wire *m)
{
	struct verbs_cm *cm = conn->cia->cm;

	m->qpn = qp->qp_num;
	m->psn = conn->psn;
	m->lid = cm->lid;
	m->mtu = cm->mtu;
	m->flags = cm->global ? SCM_WIRE_GLOBAL : 0;
	memcpy(m->gid, cm->gid.raw, sizeof(m->gid));
	m->rd_in = conn->resp_res;
	m->rd_out = conn->init_depth;
}

static uint8_t scm_min_u8(unsigned a, unsigned b)
{
	return (uint8_t)(a < b ? a : b);
}

int scm_qp_connect(struct dapl_tp_cr *conn, struct ibv_qp *qp)
{
	struct verbs_cm *cm = conn->cia->cm;
	const struct scm_wire *p = &conn->peer_qp;
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)scm_min_u8(cm->mtu, p->mtu);
	a.dest_qp_num = p->qpn;
	a.rq_psn = p->psn;
	/* reads in: no more than the peer issues */
	a.max_dest_rd_atomic = scm_min_u8(conn->resp_res, p->rd_out);
	a.min_rnr_timer = cm->rnr_timer;
	a.ah_attr.port_num = conn->cia->port;
	a.ah_attr.dlid = p->lid;
	if (cm->global || (p->flags & SCM_WIRE_GLOBAL)) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, p->gid, sizeof(p->gid));
		a.ah_attr.grh.sgid_index = cm->gid_index;
		a.ah_attr.grh.hop_limit = cm->hop_limit;
		a.ah_attr.grh.traffic_class = cm->tclass;
	}
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			      IBV_QP_MAX_DEST_RD_ATOMIC |
			      IBV_QP_MIN_RNR_TIMER))
		return errno ? errno : EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = cm->ack_timeout;
	a.retry_cnt = cm->retry_count;
	a.rnr_retry = cm->rnr_retry;
	a.sq_psn = conn->psn;
	/* reads out: no more than the peer accepts */
	a.max_rd_atomic = scm_min_u8(conn->init_depth, p->rd_in);
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			      IBV_QP_MAX_QP_RD_ATOMIC))
		return errno ? errno : EINVAL;
	return 0;
}
