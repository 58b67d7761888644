/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RMRs: memory windows, with the automatic fence of dat_rmr_bind(3DAT).
 *
 * An RMR is a transport memory window (ops->mw_alloc) in one PZ.
 * dat_rmr_bind posts the bind on the EP's send queue through
 * ops->post_send (DAPL_OP_BIND_MW, with a struct dapl_mw_post), taking a
 * cookie from the EP's request ring like any request, so its completion
 * comes back on the request EVD as a DAT_RMR_BIND_COMPLETION_EVENT
 * (evd_dequeue.c turns the cookie's rmr into the event).  Windows that
 * must be invalidated before they are bound again or unbound (type 2 on
 * verbs: rmr->inv_first) get a DAPL_OP_LOCAL_INV first, on a cookie of
 * its own whose completion evd_dequeue.c drops; an unbind of such a
 * window is that invalidation alone, on the bind's cookie.
 *
 * The automatic fence: a bind sets ep->rmr_fence under ep->lock; the
 * next request posted on the EP (a DTO in dto.c, or another bind here)
 * carries DAPL_POST_FENCE, so nothing posted after a bind starts before
 * the bind completed, and the peer cannot use an rmr_context that came
 * in a later Send too early.  dapl_rmr_fenced counts each such fence in
 * the IA (dat_ia_query: vendor attribute DAPL_RMR_FENCES).
 *
 * The binding (rmr->lmr, bound, priv, rmr_context) changes only when a
 * bind is posted on a CONNECTED EP: in DISCONNECTED the bind is posted
 * to be flushed and the window keeps its state.  The LMR a window is
 * bound to holds a use_count (under ia->lock), so dat_lmr_free refuses
 * it with DAT_INVALID_STATE until the window is unbound or freed.  A bind
 * that fails after the call returned breaks the connection: the
 * provider's completion path reports DAT_CONNECTION_EVENT_BROKEN and the
 * EP goes DISCONNECTED (as for any error completion).
 */
#include <stdio.h>
#include <string.h>

#include "slots.h"

#define BAD_RMR DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR)
#define BIND_FLAGS                                                             \
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG |      \
	 DAT_COMPLETION_BARRIER_FENCE_FLAG)

/* ---- create, query, free ---- */

DAT_RETURN dapl_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	struct dapl_pz *pz = pz_handle;
	struct dapl_rmr *rmr;
	struct dapl_ia *ia;
	DAT_RETURN rc;

	if (!dapl_obj_ok(pz, DAT_HANDLE_TYPE_PZ))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	ia = pz->obj.ia;
	if (!dapl_ia_has(ia, DAPL_CAP_MW) || !ia->attr.max_rmrs)
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!rmr_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	rmr = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_RMR, sizeof(*rmr));
	if (!rmr)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	rmr->pz = pz;
	rc = ia->ops->mw_alloc(rmr);
	if (rc != DAT_SUCCESS) {
		dapl_obj_free(rmr);
		return rc;
	}
	pthread_mutex_lock(&ia->lock);
	pz->use_count++;
	pthread_mutex_unlock(&ia->lock);
	*rmr_handle = rmr;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_rmr_query(DAT_RMR_HANDLE rmr_handle,
			  DAT_RMR_PARAM_MASK rmr_param_mask,
			  DAT_RMR_PARAM *rmr_param)
{
	struct dapl_rmr *rmr = rmr_handle;
	DAT_RMR_PARAM_MASK m = rmr_param_mask;
	DAT_RMR_PARAM *p = rmr_param;
	struct dapl_ia *ia;

	if (!dapl_obj_ok(rmr, DAT_HANDLE_TYPE_RMR))
		return BAD_RMR;
	if (m & ~(DAT_RMR_PARAM_MASK)DAT_RMR_FIELD_ALL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!p)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ia = rmr->obj.ia;
	/* An unbound window reports a zero triplet, privileges and
	 * context (dat_rmr_query(3DAT): they are undefined then). */
	pthread_mutex_lock(&ia->lock);
	if (m & DAT_RMR_FIELD_IA_HANDLE)
		p->ia_handle = ia;
	if (m & DAT_RMR_FIELD_PZ_HANDLE)
		p->pz_handle = rmr->pz;
	if (m & DAT_RMR_FIELD_LMR_TRIPLET)
		p->lmr_triplet = rmr->bound;
	if (m & DAT_RMR_FIELD_MEM_PRIV)
		p->mem_priv = rmr->priv;
	if (m & DAT_RMR_FIELD_RMR_CONTEXT)
		p->rmr_context = rmr->rmr_context;
	pthread_mutex_unlock(&ia->lock);
	return DAT_SUCCESS;
}

/* Forgets the binding; returns the LMR it held, under ia->lock. */
static struct dapl_lmr *rmr_unbind_locked(struct dapl_rmr *rmr)
{
	struct dapl_lmr *old = rmr->lmr;

	if (old)
		old->use_count--;
	rmr->lmr = NULL;
	memset(&rmr->bound, 0, sizeof(rmr->bound));
	rmr->priv = 0;
	rmr->rmr_context = 0;
	return old;
}

/* Gives the window back; the transport unbinds a bound one, so the
 * previous rmr_context fails at this side from now on. */
static void rmr_release(struct dapl_rmr *rmr)
{
	struct dapl_ia *ia = rmr->obj.ia;

	if (ia->ops->mw_free)
		ia->ops->mw_free(rmr);
	pthread_mutex_lock(&ia->lock);
	rmr_unbind_locked(rmr);
	rmr->pz->use_count--;
	pthread_mutex_unlock(&ia->lock);
	dapl_obj_free(rmr);
}

DAT_RETURN dapl_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	if (!dapl_obj_ok(rmr_handle, DAT_HANDLE_TYPE_RMR))
		return BAD_RMR;
	rmr_release(rmr_handle);
	return DAT_SUCCESS;
}

void dapl_rmr_revoked(struct dapl_rmr *rmr)
{
	struct dapl_ia *ia = rmr->obj.ia;

	pthread_mutex_lock(&ia->lock);
	rmr_unbind_locked(rmr);
	pthread_mutex_unlock(&ia->lock);
}

void dapl_rmr_teardown(struct dapl_rmr *rmr)
{
	rmr_release(rmr);
}

/* ---- bind ---- */

/* [va, va + len) inside the LMR's registration (overflow-safe). */
static int lmr_covers(const struct dapl_lmr *lmr, DAT_VADDR va, DAT_VLEN len)
{
	return va >= lmr->reg_addr && len <= lmr->reg_len &&
	       va - lmr->reg_addr <= lmr->reg_len - len;
}

/*
 * The LMR side of a bind (not for an unbind): the triplet names a live
 * LMR of this IA (else the triplet is an invalid parameter), in the RMR's
 * PZ (else a protection violation), and lies inside it; the window's
 * remote privileges need the matching local ones of the LMR (remote read
 * needs local read, remote write local write: the DAT 1.2 rule, else a
 * privileges violation).
 */
static DAT_RETURN bind_lmr_check(const struct dapl_rmr *rmr,
				 const DAT_LMR_TRIPLET *t,
				 DAT_MEM_PRIV_FLAGS priv,
				 struct dapl_lmr **lmrp)
{
	struct dapl_lmr *lmr = dapl_lmr_lookup(rmr->obj.ia, t->lmr_context);

	if (!lmr)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (lmr->pz != rmr->pz)
		return DAPL_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
	if (!lmr_covers(lmr, t->virtual_address, t->segment_length))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (((priv & DAT_MEM_PRIV_REMOTE_READ_FLAG) &&
	     !(lmr->priv & DAT_MEM_PRIV_LOCAL_READ_FLAG)) ||
	    ((priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG) &&
	     !(lmr->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG)))
		return DAPL_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE);
	*lmrp = lmr;
	return DAT_SUCCESS;
}

/* One bind, as it goes from the checks to the send queue. */
struct bind_req {
	struct dapl_rmr *rmr;
	struct dapl_ep *ep;
	struct dapl_mw_post mw;
	DAT_LMR_TRIPLET triplet;
	DAT_RMR_COOKIE cookie;
	DAT_COMPLETION_FLAGS flags;
	int posted;		/* something went to the send queue */
	int inv_done;		/* the old binding was invalidated */
	int soft;		/* nothing to post: complete in software */
};

/* Takes a cookie and posts one work request, under ep->lock. */
static DAT_RETURN bind_post_one(struct bind_req *b, enum dapl_op op,
				enum dapl_op cookie_op, unsigned flags)
{
	struct dapl_ep *ep = b->ep;
	struct dapl_cookie_ring *r = &ep->send_ring;
	struct dapl_cookie *c = dapl_cookie_get(r);
	struct dapl_post p;
	DAT_RETURN rc;

	if (!c)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	c->ep = ep;
	c->user_cookie = b->cookie;
	c->rmr = b->rmr;
	c->length = 0;
	c->op = (uint8_t)cookie_op;
	c->signaled = cookie_op == DAPL_OP_BIND_MW &&
		      !(b->flags & DAT_COMPLETION_SUPPRESS_FLAG);
	memset(&p, 0, sizeof(p));
	p.op = op;
	p.cookie = c;
	/* Binds are rare: every one asks the transport for a completion,
	 * which also retires the ring; suppressed ones are dropped. */
	p.flags = flags | DAPL_POST_SIGNALED;
	if (ep->rmr_fence)
		p.flags |= DAPL_POST_FENCE;
	p.mw = &b->mw;
	/* read by the poller (evd_dequeue.c cqe_deliver) */
	DAPL_HAPPENS_BEFORE(c);
	rc = ep->obj.ia->ops->post_send(ep, &p);
	if (rc) {
		dapl_cookie_unget(r);
		return rc;
	}
	if (ep->rmr_fence)
		dapl_rmr_fenced(ep);
	b->posted = 1;
	return DAT_SUCCESS;
}

/*
 * The work requests of a bind, under ep->lock: an invalidation first
 * where the window needs one, then the bind itself (an unbind of such a
 * window is the invalidation alone; of a window not bound, nothing: it
 * completes in software).
 */
static DAT_RETURN bind_post(struct bind_req *b)
{
	struct dapl_rmr *rmr = b->rmr;
	int unbind = !b->mw.length;
	unsigned fence = b->flags & DAT_COMPLETION_BARRIER_FENCE_FLAG
				 ? DAPL_POST_FENCE
				 : 0;
	DAT_RETURN rc;

	/* Nothing to undo: no transport knows an unbind of a free window
	 * (type 2 refuses one, and some providers need the window's MR). */
	if (unbind && !rmr->lmr) {
		b->soft = 1;
		return DAT_SUCCESS;
	}
	if (rmr->inv_first && rmr->lmr) {
		rc = bind_post_one(b, DAPL_OP_LOCAL_INV,
				   unbind ? DAPL_OP_BIND_MW : DAPL_OP_LOCAL_INV,
				   fence);
		if (rc)
			return rc;
		b->inv_done = 1;
		if (unbind)
			return DAT_SUCCESS;
	}
	return bind_post_one(b, DAPL_OP_BIND_MW, DAPL_OP_BIND_MW, fence);
}

/* The completion of an unbind with nothing to post. */
static void bind_soft_complete(const struct bind_req *b)
{
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	struct dapl_evd *evd = b->ep->request_evd;
	DAT_EVENT ev;

	if (!evd || (!b->mw.flush && (b->flags & DAT_COMPLETION_SUPPRESS_FLAG)))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_RMR_BIND_COMPLETION_EVENT;
	ev.evd_handle = evd;
	d = &ev.event_data.rmr_completion_event_data;
	d->rmr_handle = b->rmr;
	d->user_cookie = b->cookie;
	d->status = b->mw.flush ? DAT_DTO_ERR_FLUSHED : DAT_DTO_SUCCESS;
	dapl_evd_post(evd, &ev);
}

/*
 * Under ia->lock, after the post: the window's new binding.  Returns the
 * LMR whose pin is to be dropped (the old binding's, or the new one's
 * when nothing was bound).
 */
static void bind_commit(struct bind_req *b, DAT_RETURN rc)
{
	struct dapl_rmr *rmr = b->rmr;
	struct dapl_ia *ia = rmr->obj.ia;

	pthread_mutex_lock(&ia->lock);
	if (b->mw.lmr && (rc || b->mw.flush))
		b->mw.lmr->use_count--; /* the pin of a bind not made */
	if (!b->mw.flush && (rc == DAT_SUCCESS || b->inv_done))
		rmr_unbind_locked(rmr);
	if (!b->mw.flush && rc == DAT_SUCCESS && b->mw.lmr) {
		rmr->lmr = b->mw.lmr; /* keeps the pin */
		rmr->bound = b->triplet;
		rmr->priv = b->mw.priv;
		rmr->rmr_context = b->mw.context;
	}
	pthread_mutex_unlock(&ia->lock);
}

/* The EP side, under ep->lock: its state, then the posts. */
static DAT_RETURN bind_on_ep(struct bind_req *b)
{
	struct dapl_ep *ep = b->ep;
	DAT_RETURN rc;

	dapl_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		b->mw.flush = 1; /* the QP is in error: flushed at once */
	} else if (ep->state != DAT_EP_STATE_CONNECTED) {
		rc = dapl_ep_state_error(ep->state);
		goto out;
	}
	rc = bind_post(b);
	if (!b->mw.flush && b->posted && !b->soft)
		ep->rmr_fence = 1;
out:
	dapl_unlock(&ep->lock);
	return rc;
}

static DAT_RETURN bind_args(const struct dapl_rmr *rmr,
			    const struct dapl_ep *ep,
			    const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS priv,
			    DAT_COMPLETION_FLAGS flags, const void *out)
{
	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!t)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (priv & ~DAT_MEM_PRIV_ALL_FLAG)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if ((flags & ~BIND_FLAGS) ||
	    ((flags & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
	     !(ep->attr.request_completion_flags &
	       DAT_COMPLETION_UNSIGNALLED_FLAG)))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (!out)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	/* LMR, RMR and EP share one PZ. */
	if (ep->pz != rmr->pz)
		return DAPL_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

DAT_RETURN dapl_rmr_bind(DAT_RMR_HANDLE rmr_handle,
			 const DAT_LMR_TRIPLET *lmr_triplet,
			 DAT_MEM_PRIV_FLAGS mem_priv, DAT_EP_HANDLE ep_handle,
			 DAT_RMR_COOKIE user_cookie,
			 DAT_COMPLETION_FLAGS completion_flags,
			 DAT_RMR_CONTEXT *rmr_context)
{
	struct dapl_rmr *rmr = rmr_handle;
	struct bind_req b;
	struct dapl_ia *ia;
	DAT_RETURN rc;

	if (!dapl_obj_ok(rmr, DAT_HANDLE_TYPE_RMR))
		return BAD_RMR;
	rc = bind_args(rmr, ep_handle, lmr_triplet, mem_priv,
		       completion_flags, rmr_context);
	if (rc)
		return rc;
	memset(&b, 0, sizeof(b));
	b.rmr = rmr;
	b.ep = ep_handle;
	b.cookie = user_cookie;
	b.flags = completion_flags;
	b.mw.rmr = rmr;
	b.mw.priv = mem_priv & (DAT_MEM_PRIV_REMOTE_READ_FLAG |
				DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	ia = rmr->obj.ia;
	if (lmr_triplet->segment_length) {
		struct dapl_lmr *lmr = NULL;

		rc = bind_lmr_check(rmr, lmr_triplet, mem_priv, &lmr);
		if (rc)
			return rc;
		/* Pinned before the post, so that no dat_lmr_free slips
		 * in between the checks and the bind. */
		pthread_mutex_lock(&ia->lock);
		if (!dapl_obj_ok(lmr, DAT_HANDLE_TYPE_LMR))
			rc = DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		else
			lmr->use_count++;
		pthread_mutex_unlock(&ia->lock);
		if (rc)
			return rc;
		b.triplet = *lmr_triplet;
		b.mw.lmr = lmr;
		b.mw.addr = lmr_triplet->virtual_address;
		b.mw.length = lmr_triplet->segment_length;
	}
	rc = bind_on_ep(&b);
	bind_commit(&b, rc);
	if (rc)
		return rc;
	if (b.soft)
		bind_soft_complete(&b);
	/* An unbind's context is undefined (dat_rmr_bind(3DAT)): 0. */
	*rmr_context = b.mw.length ? b.mw.context : 0;
	return DAT_SUCCESS;
}
