/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What udapl adds around a transport's ops: defaults for the optional
 * ops (a transport without SRQs or memory windows writes nothing for
 * them, as rdma-core's default ops table does for its drivers), the
 * checks of the capability record ops->ia_open filled, and the accessors
 * transport.h declares.
 */
#include <string.h>

#include "udapl.h"

static DAT_RETURN no_srq_create(struct dapl_srq *srq DAPL_UNUSED)
{
	return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

static DAT_RETURN no_srq_modify(struct dapl_srq *srq DAPL_UNUSED,
				DAT_COUNT max_wr DAPL_UNUSED,
				DAT_COUNT limit DAPL_UNUSED)
{
	return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

static void no_srq_destroy(struct dapl_srq *srq DAPL_UNUSED)
{
}

static DAT_RETURN no_srq_post_recv(struct dapl_srq *srq DAPL_UNUSED,
				   const struct dapl_post *p DAPL_UNUSED)
{
	return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

static DAT_RETURN no_mw_alloc(struct dapl_rmr *rmr DAPL_UNUSED)
{
	return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

static void no_mw_free(struct dapl_rmr *rmr DAPL_UNUSED)
{
}

void dapl_ops_fill_defaults(struct dapl_ops *ops)
{
	/* SRQ: all four or none */
	if (!ops->srq_create || !ops->srq_modify || !ops->srq_destroy ||
	    !ops->srq_post_recv) {
		ops->srq_create = no_srq_create;
		ops->srq_modify = no_srq_modify;
		ops->srq_destroy = no_srq_destroy;
		ops->srq_post_recv = no_srq_post_recv;
	}
	if (!ops->mw_alloc || !ops->mw_free) {
		ops->mw_alloc = no_mw_alloc;
		ops->mw_free = no_mw_free;
	}
	/* qp_modify and progress stay NULL when absent: ep_param.c and
	 * the engine look for them. */
}

static void cap_count(DAT_COUNT *v)
{
	if (*v > DAPL_MAX_SGE)
		*v = DAPL_MAX_SGE;
}

void dapl_caps_apply(struct dapl_ia *ia)
{
	struct dapl_caps *c = &ia->caps;
	DAT_IA_ATTR *a = &c->attr;

	if (ia->ops->srq_create == no_srq_create)
		c->flags &= ~(uint32_t)DAPL_CAP_SRQ;
	if (ia->ops->mw_alloc == no_mw_alloc)
		c->flags &= ~(uint32_t)DAPL_CAP_MW;
	if (!(c->flags & DAPL_CAP_SRQ))
		a->max_srqs = a->max_ep_per_srq = a->max_recv_per_srq = 0;
	if (!(c->flags & DAPL_CAP_MW)) {
		c->mw_types = 0;
		c->mw_note = NULL;
		a->max_rmrs = 0;
		a->max_rmr_target_address = 0;
	}
	if (c->progress == DAPL_PROGRESS_POLL && !ia->ops->progress)
		c->progress = DAPL_PROGRESS_FD;
	if (c->max_private_data < 0)
		c->max_private_data = 0;
	/* A post builds its scatter list on the stack: never more than that. */
	cap_count(&a->max_iov_segments_per_dto);
	cap_count(&a->max_iov_segments_per_rdma_read);
	cap_count(&a->max_iov_segments_per_rdma_write);
	ia->attr = *a;
}

/* ---- accessors (transport.h) ---------------------------------------------- */

const struct sockaddr *dapl_ia_addr(const struct dapl_ia *ia)
{
	return (const struct sockaddr *)&ia->addr;
}

void dapl_ia_set_addr(struct dapl_ia *ia, const struct sockaddr *sa)
{
	size_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					       : sizeof(struct sockaddr_in);

	memset(&ia->addr, 0, sizeof(ia->addr));
	memcpy(&ia->addr, sa, len);
}

const struct dapl_caps *dapl_ia_caps(const struct dapl_ia *ia)
{
	return &ia->caps;
}

const DAT_EP_ATTR *dapl_ep_attr(const struct dapl_ep *ep)
{
	return &ep->attr;
}

struct dapl_pz *dapl_ep_pz(const struct dapl_ep *ep)
{
	return ep->pz;
}

struct dapl_evd *dapl_ep_request_evd(const struct dapl_ep *ep)
{
	return ep->request_evd;
}

struct dapl_evd *dapl_ep_recv_evd(const struct dapl_ep *ep)
{
	return ep->recv_evd;
}

struct dapl_srq *dapl_ep_srq(const struct dapl_ep *ep)
{
	return ep->srq;
}

void dapl_evd_set_cq_direct(struct dapl_evd *evd,
			    const struct dapl_cq_direct *d)
{
	/* Taken only whole: a poll, the op that converts what udapl does
	 * not take, and offsets inside the record. */
	if (d && d->poll && evd->obj.ia->ops->cq_direct_cqe &&
	    d->status_off <= DAPL_CQ_DIRECT_REC - sizeof(uint32_t) &&
	    d->len_off <= DAPL_CQ_DIRECT_REC - sizeof(uint32_t) &&
	    d->status_off >= sizeof(uint64_t) && d->len_off >= sizeof(uint64_t))
		evd->direct = *d;
	else
		memset(&evd->direct, 0, sizeof(evd->direct));
}

void dapl_ep_set_max_inline(struct dapl_ep *ep, uint32_t max_inline)
{
	ep->max_inline = max_inline;
}

int dapl_ep_busy(const struct dapl_ep *ep)
{
	return dapl_cookie_outstanding(&ep->send_ring) ||
	       dapl_cookie_outstanding(&ep->recv_ring);
}

struct dapl_ep *dapl_wr_id_ep(uint64_t wr_id)
{
	const struct dapl_cookie *c = (const void *)(uintptr_t)wr_id;

	return c ? c->ep : NULL;
}

struct dapl_pz *dapl_lmr_pz(const struct dapl_lmr *lmr)
{
	return lmr->pz;
}

void dapl_lmr_set_reg(struct dapl_lmr *lmr, DAT_LMR_CONTEXT lmr_context,
		      DAT_RMR_CONTEXT rmr_context, DAT_VADDR addr, DAT_VLEN len)
{
	lmr->lmr_context = lmr_context;
	lmr->rmr_context = rmr_context;
	lmr->reg_addr = addr;
	lmr->reg_len = len;
}

void dapl_lmr_reg(const struct dapl_lmr *lmr, DAT_VADDR *addr, DAT_VLEN *len)
{
	*addr = lmr->reg_addr;
	*len = lmr->reg_len;
}

DAT_MEM_PRIV_FLAGS dapl_lmr_priv(const struct dapl_lmr *lmr)
{
	return lmr->priv;
}

struct dapl_pz *dapl_rmr_pz(const struct dapl_rmr *rmr)
{
	return rmr->pz;
}

struct dapl_lmr *dapl_rmr_lmr(const struct dapl_rmr *rmr)
{
	return rmr->lmr;
}

void dapl_rmr_set_inv_first(struct dapl_rmr *rmr, int inv_first)
{
	rmr->inv_first = inv_first;
}

struct dapl_pz *dapl_srq_pz(const struct dapl_srq *srq)
{
	return srq->pz;
}

const DAT_SRQ_ATTR *dapl_srq_attr(const struct dapl_srq *srq)
{
	return &srq->attr;
}
