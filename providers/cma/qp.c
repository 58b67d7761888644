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
 * Inline data: we ask for CMA_INLINE_WANT bytes and take what the device
 * grants (ep->max_inline); udapl sends anything that small inline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cma.h"

static const uint32_t cma_inline_try[] = {256, 128, 64, 0};

static struct ibv_cq *cma_evd_cq(struct dapl_evd *evd)
{
	struct cma_cq *c = evd ? evd->prov : NULL;

	return c ? c->cq : NULL;
}

static int cma_max(int a, int b)
{
	return a > b ? a : b;
}

/* What the QP needs for these EP attributes (at least 1 of each). */
static void cma_caps(const DAT_EP_ATTR *attr, struct ibv_qp_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = cma_max(attr->max_request_dtos, 1);
	cap->max_recv_wr = cma_max(attr->max_recv_dtos, 1);
	cap->max_send_sge =
	    cma_max(cma_max(attr->max_request_iov, 1),
		    cma_max(attr->max_rdma_read_iov, attr->max_rdma_write_iov));
	cap->max_recv_sge = cma_max(attr->max_recv_iov, 1);
}

void cma_qp_to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

	if (qp && ibv_modify_qp(qp, &a, IBV_QP_STATE))
		dapl_dbg(DAPL_DBG_WARN, "cma: QP to ERR failed");
}

/* RESET -> INIT with every access the device has: rdma_cm narrows it to
 * the negotiated RDMA read depth when the connection is set up. */
static int cma_qp_init(struct cma_ia *cia, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
	    .qp_state = IBV_QPS_INIT,
	    .pkey_index = 0,
	    .port_num = cia->port,
	    .qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (!(cia->disable & CMA_NO_ATOMIC) &&
	    cia->dattr.atomic_cap != IBV_ATOMIC_NONE)
		a.qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_ACCESS_FLAGS);
}

static DAT_RETURN cma_qp_err(int err)
{
	if (err == EINVAL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
}

/* A new QP in INIT for ep with attr, into out (qp, dummy_cq, cap). */
static DAT_RETURN cma_qp_build(struct dapl_ep *ep, const DAT_EP_ATTR *attr,
			       struct cma_ep *out)
{
	struct cma_ia *cia = cma_ia_of(ep);
	struct ibv_pd *pd = ep->pz ? ep->pz->prov : NULL;
	struct ibv_qp_init_attr init = {
	    .qp_context = ep,
	    .send_cq = cma_evd_cq(ep->request_evd),
	    .recv_cq = cma_evd_cq(ep->recv_evd),
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
	cma_caps(attr, &out->cap);
	/* receives come from the SRQ (udapl/srq.c, srq.c) */
	if (ep->srq) {
		init.srq = ep->srq->prov;
		out->cap.max_recv_wr = out->cap.max_recv_sge = 0;
	}
	out->qp = NULL;
	err = EINVAL;
	for (i = 0;
	     !out->qp && i < sizeof(cma_inline_try) / sizeof(cma_inline_try[0]);
	     i++) {
		init.cap = out->cap;
		init.cap.max_inline_data = cma_inline_try[i];
		out->qp = ibv_create_qp(pd, &init);
		err = errno;
		if (!out->qp && err != EINVAL)
			break;
	}
	if (!out->qp)
		goto fail;
	if (cma_qp_init(cia, out->qp)) {
		err = errno;
		ibv_destroy_qp(out->qp);
		out->qp = NULL;
		goto fail;
	}
	if (ep->srq && cma_qpn_add(cia, out->qp->qp_num, ep)) {
		ibv_destroy_qp(out->qp);
		out->qp = NULL;
		err = ENOMEM;
		goto fail;
	}
	ep->max_inline = init.cap.max_inline_data;
	return DAT_SUCCESS;
fail:
	dapl_dbg(DAPL_DBG_ERR, "cma: QP create: %s", strerror(err));
	if (out->dummy_cq)
		ibv_destroy_cq(out->dummy_cq);
	out->dummy_cq = NULL;
	return cma_qp_err(err);
}

static void cma_qp_free(struct cma_ep *q)
{
	if (q->qp && q->qp->srq)
		cma_qpn_del(cma_ia_of(q->qp->qp_context), q->qp->qp_num);
	if (q->qp && ibv_destroy_qp(q->qp))
		dapl_dbg(DAPL_DBG_ERR, "cma: ibv_destroy_qp failed");
	if (q->dummy_cq)
		ibv_destroy_cq(q->dummy_cq);
	q->qp = NULL;
	q->dummy_cq = NULL;
}

DAT_RETURN cma_qp_create(struct dapl_ep *ep)
{
	struct cma_ep *cep = calloc(1, sizeof(*cep));
	DAT_RETURN ret;

	if (!cep)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	ret = cma_qp_build(ep, &ep->attr, cep);
	if (ret != DAT_SUCCESS) {
		free(cep);
		return ret;
	}
	ep->prov = cep;
	return DAT_SUCCESS;
}

void cma_qp_destroy(struct dapl_ep *ep)
{
	struct cma_ep *cep = ep->prov;
	struct cma_ia *cia = cma_ia_of(ep);

	if (!cep)
		return;
	cma_conn_drop(cia, cep);
	pthread_mutex_lock(&cia->lock);
	cma_note_forget(cia, ep);
	ep->prov = NULL; /* the async thread reports nothing more */
	cma_upcall_wait(cia, ep);
	pthread_mutex_unlock(&cia->lock);
	cma_qp_free(cep);
	free(cep);
}

/* Builds the replacement first, so a failure leaves the EP as it was. */
static DAT_RETURN cma_qp_replace(struct dapl_ep *ep, const DAT_EP_ATTR *attr)
{
	struct cma_ep *cep = ep->prov;
	struct cma_ep fresh;
	DAT_RETURN ret;

	ret = cma_qp_build(ep, attr, &fresh);
	if (ret != DAT_SUCCESS)
		return ret;
	cma_qp_free(cep);
	cep->qp = fresh.qp;
	cep->dummy_cq = fresh.dummy_cq;
	cep->cap = fresh.cap;
	return DAT_SUCCESS;
}

/* After a disconnect: a fresh QP (the old one is in ERR) and no CM id. */
DAT_RETURN cma_qp_reset(struct dapl_ep *ep)
{
	struct cma_ep *cep = ep->prov;

	if (!cep)
		return cma_qp_create(ep);
	cma_conn_drop(cma_ia_of(ep), cep);
	return cma_qp_replace(ep, &ep->attr);
}

/* Does the current QP already fit attr and the EP's PZ and EVDs? */
static int cma_qp_fits(const struct dapl_ep *ep, const struct cma_ep *cep,
		       const DAT_EP_ATTR *attr)
{
	struct ibv_cq *scq = cma_evd_cq(ep->request_evd);
	struct ibv_cq *rcq = cma_evd_cq(ep->recv_evd);
	struct ibv_qp_cap cap;

	cma_caps(attr, &cap);
	if (ep->srq)
		cap.max_recv_wr = cap.max_recv_sge = 0;
	return cap.max_send_wr == cep->cap.max_send_wr &&
	       cap.max_recv_wr == cep->cap.max_recv_wr &&
	       cap.max_send_sge == cep->cap.max_send_sge &&
	       cap.max_recv_sge == cep->cap.max_recv_sge &&
	       cep->qp->pd == (struct ibv_pd *)ep->pz->prov &&
	       cep->qp->send_cq == (scq ? scq : cep->dummy_cq) &&
	       cep->qp->recv_cq == (rcq ? rcq : cep->dummy_cq);
}

/*
 * dat_ep_modify before a connection: verbs cannot resize a QP, so a QP
 * that no longer fits is replaced (only while nothing is posted on it;
 * udapl updates ep->pz and the EVDs before calling this).
 */
DAT_RETURN cma_qp_modify(struct dapl_ep *ep, const DAT_EP_ATTR *attr)
{
	struct cma_ia *cia = cma_ia_of(ep);
	struct cma_ep *cep = ep->prov;
	int busy;

	if (!cep || !cep->qp)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	pthread_mutex_lock(&cia->lock);
	busy = cep->conn && cep->conn->state != CMA_CONN_CLOSED;
	pthread_mutex_unlock(&cia->lock);
	if (busy)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	if (cma_qp_fits(ep, cep, attr))
		return DAT_SUCCESS;
	if (dapl_cookie_outstanding(&ep->send_ring) ||
	    dapl_cookie_outstanding(&ep->recv_ring))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	cma_conn_drop(cia, cep);
	return cma_qp_replace(ep, attr);
}
