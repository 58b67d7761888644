/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EP's queue pair.
 *
 * An RC QP on the EP's PZ, its send queue on the request EVD's CQ and its
 * receive queue on the recv EVD's CQ (a one-entry dummy CQ stands in for
 * a missing EVD: verbs wants both).  It is created at ep_create and moved
 * to INIT at once, so receives may be posted before the connection
 * exists; the connection (cm.c) takes it from there.  qp_context is the
 * struct dapl_ep, so async events find their EP.
 *
 * Inline data: we ask for VERBS_INLINE_WANT bytes and take what the device
 * grants (dapl_ep_set_max_inline); udapl sends anything that small inline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

static const uint32_t verbs_inline_try[] = {256, 128, 64, 0};

/* DAPL_MAX_INLINE (OFA dapl's variable, same meaning: the inline data a
 * QP is asked for, in bytes); smaller sizes are tried if the device
 * refuses it. */
#define VERBS_INLINE_MAX_ENV 4096
static uint32_t verbs_inline_want;
static pthread_once_t verbs_inline_once = PTHREAD_ONCE_INIT;

static void verbs_inline_read(void)
{
	verbs_inline_want = (uint32_t)verbs_env_long(
	    "DAPL_MAX_INLINE", 0, VERBS_INLINE_MAX_ENV, verbs_inline_try[0],
	    NULL);
}

uint32_t verbs_max_inline(void)
{
	pthread_once(&verbs_inline_once, verbs_inline_read);
	return verbs_inline_want;
}

static struct ibv_cq *verbs_evd_cq(struct dapl_evd *evd)
{
	struct dapl_tp_evd *c = evd ? dapl_evd_tp(evd) : NULL;

	return c ? c->cq : NULL;
}

static int verbs_max(int a, int b)
{
	return a > b ? a : b;
}

/* What the QP needs for these EP attributes (at least 1 of each). */
static void verbs_caps(const DAT_EP_ATTR *attr, struct ibv_qp_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = verbs_max(attr->max_request_dtos, 1);
	cap->max_recv_wr = verbs_max(attr->max_recv_dtos, 1);
	cap->max_send_sge =
	    verbs_max(verbs_max(attr->max_request_iov, 1),
		    verbs_max(attr->max_rdma_read_iov, attr->max_rdma_write_iov));
	cap->max_recv_sge = verbs_max(attr->max_recv_iov, 1);
}

void verbs_qp_to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

	if (qp && ibv_modify_qp(qp, &a, IBV_QP_STATE))
		dapl_dbg(DAPL_DBG_WARN, "verbs: QP to ERR failed");
}

/*
 * RTS -> SQD with the drain's async notification: the QP finishes the
 * send WRs it has, starts no new one, and IBV_EVENT_SQ_DRAINED comes
 * once they all completed (async.c, the CM's sq_drained).  Receives go
 * on.  0 if the QP is draining; -1 if the device refused (the caller
 * goes on without the drain).
 */
int verbs_qp_drain_sq(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_SQD,
				.en_sqd_async_notify = 1};

	if (!qp || ibv_modify_qp(qp, &a,
				 IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY)) {
		dapl_dbg(DAPL_DBG_CM, "verbs: QP to SQD refused (%s)",
			 qp ? strerror(errno) : "no QP");
		return -1;
	}
	return 0;
}

int verbs_qp_failed(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	return qp && !ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) &&
	       attr.qp_state == IBV_QPS_ERR;
}

/* RESET -> INIT with every access the device has: rdma_cm narrows it to
 * the negotiated RDMA read depth when the connection is set up. */
static int verbs_qp_init(struct dapl_tp_ia *cia, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
	    .qp_state = IBV_QPS_INIT,
	    .pkey_index = 0,
	    .port_num = cia->port,
	    .qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (!(cia->disable & VERBS_NO_ATOMIC) &&
	    cia->dattr.atomic_cap != IBV_ATOMIC_NONE)
		a.qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_ACCESS_FLAGS);
}

static DAT_RETURN verbs_qp_err(int err)
{
	if (err == EINVAL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
}

/* A new QP in INIT for ep with attr, into out (qp, dummy_cq, cap). */
static DAT_RETURN verbs_qp_build(struct dapl_ep *ep, const DAT_EP_ATTR *attr,
			       struct dapl_tp_ep *out)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct ibv_pd *pd = verbs_pd(dapl_ep_pz(ep));
	struct ibv_qp_init_attr init = {
	    .qp_context = ep,
	    .send_cq = verbs_evd_cq(dapl_ep_request_evd(ep)),
	    .recv_cq = verbs_evd_cq(dapl_ep_recv_evd(ep)),
	    .qp_type = IBV_QPT_RC,
	    .sq_sig_all = 0,
	};
	unsigned i;
	int err;

	if (!pd)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_PZ);
	out->dummy_cq = NULL;
	if (!init.send_cq || !init.recv_cq) {
		out->dummy_cq = ibv_create_cq(cia->ctx, 1, NULL, NULL, 0);
		if (!out->dummy_cq)
			return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_TEVD);
		init.send_cq = init.send_cq ? init.send_cq : out->dummy_cq;
		init.recv_cq = init.recv_cq ? init.recv_cq : out->dummy_cq;
	}
	verbs_caps(attr, &out->cap);
	/* receives come from the SRQ (udapl/srq.c, srq.c) */
	if (dapl_ep_srq(ep)) {
		init.srq = verbs_srq(dapl_ep_srq(ep));
		out->cap.max_recv_wr = out->cap.max_recv_sge = 0;
	}
	out->qp = NULL;
	err = EINVAL;
	/* the wanted size first, then the smaller ones of the list */
	for (i = 0;
	     !out->qp && i <= sizeof(verbs_inline_try) / sizeof(verbs_inline_try[0]);
	     i++) {
		uint32_t want = verbs_max_inline();

		if (i && verbs_inline_try[i - 1] >= want)
			continue;
		init.cap = out->cap;
		init.cap.max_inline_data = i ? verbs_inline_try[i - 1] : want;
		out->qp = ibv_create_qp(pd, &init);
		err = errno;
		if (!out->qp && err != EINVAL)
			break;
	}
	if (!out->qp)
		goto fail;
	if (verbs_qp_init(cia, out->qp)) {
		err = errno;
		ibv_destroy_qp(out->qp);
		out->qp = NULL;
		goto fail;
	}
	if (init.srq && verbs_qpn_add(cia, out->qp->qp_num, ep)) {
		ibv_destroy_qp(out->qp);
		out->qp = NULL;
		err = ENOMEM;
		goto fail;
	}
	dapl_ep_set_max_inline(ep, init.cap.max_inline_data);
	return DAT_SUCCESS;
fail:
	dapl_dbg(DAPL_DBG_ERR, "verbs: QP create: %s", strerror(err));
	if (out->dummy_cq)
		ibv_destroy_cq(out->dummy_cq);
	out->dummy_cq = NULL;
	return verbs_qp_err(err);
}

static void verbs_qp_free(struct dapl_tp_ep *q)
{
	if (q->qp && q->qp->srq)
		verbs_qpn_del(dapl_tp_ia_of(q->qp->qp_context), q->qp->qp_num);
	/* A type 2 window holds its QP: ibv_destroy_qp would wait for it
	 * (rxe: ~50 s, then a pool WARN and a refcount underflow later). */
	if (q->qp)
		verbs_mw_qp_gone(dapl_tp_ia_of(q->qp->qp_context), q->qp);
	if (q->qp && ibv_destroy_qp(q->qp))
		dapl_dbg(DAPL_DBG_ERR, "verbs: ibv_destroy_qp failed");
	if (q->dummy_cq)
		ibv_destroy_cq(q->dummy_cq);
	q->qp = NULL;
	q->dummy_cq = NULL;
}

DAT_RETURN verbs_qp_create(struct dapl_ep *ep)
{
	struct dapl_tp_ep *cep = calloc(1, sizeof(*cep));
	DAT_RETURN ret;

	if (!cep)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	ret = verbs_qp_build(ep, dapl_ep_attr(ep), cep);
	if (ret != DAT_SUCCESS) {
		free(cep);
		return ret;
	}
	verbs_post_init(cep);
	dapl_ep_set_tp(ep, cep);
	return DAT_SUCCESS;
}

void verbs_qp_destroy(struct dapl_ep *ep)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);

	if (!cep)
		return;
	verbs_cm(ep)->drop(ep);
	/* no async upcall for the EP starts after this (async.c); udapl
	 * waits for one running */
	pthread_mutex_lock(&cia->lock);
	dapl_ep_set_tp(ep, NULL);
	pthread_mutex_unlock(&cia->lock);
	verbs_qp_free(cep);
	free(cep);
}

/* Builds the replacement first, so a failure leaves the EP as it was. */
static DAT_RETURN verbs_qp_replace(struct dapl_ep *ep, const DAT_EP_ATTR *attr)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct dapl_tp_ep fresh;
	DAT_RETURN ret;

	ret = verbs_qp_build(ep, attr, &fresh);
	if (ret != DAT_SUCCESS)
		return ret;
	verbs_qp_free(cep);
	cep->qp = fresh.qp;
	cep->dummy_cq = fresh.dummy_cq;
	cep->cap = fresh.cap;
	return DAT_SUCCESS;
}

/* After a disconnect: a fresh QP (the old one is in ERR) and no CM id. */
DAT_RETURN verbs_qp_reset(struct dapl_ep *ep)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);

	if (!cep)
		return verbs_qp_create(ep);
	verbs_cm(ep)->drop(ep);
	return verbs_qp_replace(ep, dapl_ep_attr(ep));
}

/* Does the current QP already fit attr and the EP's PZ and EVDs? */
static int verbs_qp_fits(const struct dapl_ep *ep, const struct dapl_tp_ep *cep,
		       const DAT_EP_ATTR *attr)
{
	struct ibv_cq *scq = verbs_evd_cq(dapl_ep_request_evd(ep));
	struct ibv_cq *rcq = verbs_evd_cq(dapl_ep_recv_evd(ep));
	struct ibv_qp_cap cap;

	verbs_caps(attr, &cap);
	if (dapl_ep_srq(ep))
		cap.max_recv_wr = cap.max_recv_sge = 0;
	return cap.max_send_wr == cep->cap.max_send_wr &&
	       cap.max_recv_wr == cep->cap.max_recv_wr &&
	       cap.max_send_sge == cep->cap.max_send_sge &&
	       cap.max_recv_sge == cep->cap.max_recv_sge &&
	       cep->qp->pd == verbs_pd(dapl_ep_pz(ep)) &&
	       cep->qp->send_cq == (scq ? scq : cep->dummy_cq) &&
	       cep->qp->recv_cq == (rcq ? rcq : cep->dummy_cq);
}

/*
 * dat_ep_modify before a connection: verbs cannot resize a QP, so a QP
 * that no longer fits is replaced (only while nothing is posted on it;
 * udapl updates ep->pz and the EVDs before calling this).
 */
DAT_RETURN verbs_qp_modify(struct dapl_ep *ep, const DAT_EP_ATTR *attr)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);

	if (!cep || !cep->qp)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	if (verbs_conn_busy(ep))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	if (verbs_qp_fits(ep, cep, attr))
		return DAT_SUCCESS;
	if (dapl_ep_busy(ep))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	verbs_cm(ep)->drop(ep);
	return verbs_qp_replace(ep, attr);
}
