/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The passive side of connection management: service points (PSP, RSP)
 * and the connection requests (CR) a peer's request becomes on them
 * (dapl_cm_request), with their accept, reject and handoff.  Apart from
 * cm.c (the active side, disconnect, the connection events), with which
 * it shares only bad_arg (cm_int.h); the EP state table both follow and
 * the locking rules are in cm.c's header.
 *
 * A PSP with DAT_PSP_PROVIDER_FLAG makes an EP for each request
 * (dat_psp_create(3DAT), as OFA dapl does): default attributes,
 * DAT_HANDLE_NULL for the PZ and the EVDs, TENTATIVE_CONNECTION_PENDING
 * (UNCONFIGURED_TENTATIVE until dat_ep_modify gives it a PZ, which
 * creates its queue pair); dat_cr_query returns it as local_ep_handle,
 * dat_cr_accept accepts on it (ep_handle NULL or that EP), and
 * dat_cr_reject (or a handoff) frees it.  An accepted one is the
 * consumer's like any other EP.
 */
#include <string.h>

#include "udapl.h"
#include "slots.h"
#include "cm_int.h"

/* Values of dapl_sp.listening. */
enum {
	SP_IDLE,      /* the provider is not listening */
	SP_LISTENING, /* requests become CRs */
	SP_CONSUMED,  /* an RSP that got its one request: others are
		       * rejected until dat_rsp_free stops the listen */
};

static int sp_alive(const struct dapl_sp *sp)
{
	return dapl_obj_ok(sp, DAT_HANDLE_TYPE_PSP) ||
	       dapl_obj_ok(sp, DAT_HANDLE_TYPE_RSP);
}

static int sp_is_rsp(const struct dapl_sp *sp)
{
	return sp->obj.type == DAT_HANDLE_TYPE_RSP;
}

/* ---- events ---- */

static void post_cr_event(struct dapl_sp *sp, struct dapl_cr *cr)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_CONNECTION_REQUEST_EVENT;
	ev.evd_handle = sp->evd;
	if (sp_is_rsp(sp))
		ev.event_data.cr_arrival_event_data.sp_handle.rsp_handle = sp;
	else
		ev.event_data.cr_arrival_event_data.sp_handle.psp_handle = sp;
	ev.event_data.cr_arrival_event_data.local_ia_address_ptr =
	    (DAT_IA_ADDRESS_PTR)&sp->obj.ia->addr;
	ev.event_data.cr_arrival_event_data.conn_qual = sp->qual;
	ev.event_data.cr_arrival_event_data.cr_handle = cr;
	dapl_evd_post_reserved(sp->evd, &ev);
}

/* ---- service points ---- */

static DAT_RETURN cr_evd_check(struct dapl_ia *ia, DAT_EVD_HANDLE h)
{
	struct dapl_evd *evd = h;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD) || evd->obj.ia != ia ||
	    !(evd->flags & DAT_EVD_CR_FLAG))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
	return DAT_SUCCESS;
}

/* Makes a service point and starts listening on *qual (0: any). */
static DAT_RETURN sp_create(struct dapl_ia *ia, DAT_HANDLE_TYPE type,
			    DAT_CONN_QUAL *qual, struct dapl_evd *evd,
			    DAT_PSP_FLAGS flags, struct dapl_ep *ep,
			    struct dapl_sp **out)
{
	struct dapl_sp *sp;
	DAT_RETURN rc;

	sp = dapl_obj_alloc(ia, type, sizeof(*sp));
	if (!sp)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	sp->qual = *qual;
	sp->evd = evd;
	sp->psp_flags = flags;
	sp->ep = ep;
	/* Set before listen: a request may arrive before it returns. */
	__atomic_store_n(&sp->listening, SP_LISTENING, __ATOMIC_RELEASE);
	rc = ia->ops->listen(sp, qual);
	if (rc) {
		dapl_obj_free(sp);
		return rc;
	}
	sp->qual = *qual;
	dapl_evd_get(evd);
	*out = sp;
	return DAT_SUCCESS;
}

static DAT_RETURN psp_args(struct dapl_ia *ia, DAT_EVD_HANDLE evd_handle,
			   DAT_PSP_FLAGS psp_flags, DAT_PSP_HANDLE *psp_handle)
{
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	rc = cr_evd_check(ia, evd_handle);
	if (rc)
		return rc;
	if (psp_flags != DAT_PSP_CONSUMER_FLAG &&
	    psp_flags != DAT_PSP_PROVIDER_FLAG)
		return bad_arg(DAT_INVALID_ARG4);
	if (!psp_handle)
		return bad_arg(DAT_INVALID_ARG5);
	return DAT_SUCCESS;
}

DAT_RETURN dapl_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			   DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			   DAT_PSP_HANDLE *psp_handle)
{
	DAT_RETURN rc = psp_args(ia_handle, evd_handle, psp_flags, psp_handle);

	if (rc)
		return rc;
	/* 0 is how the provider is asked for "any" (dat_psp_create_any). */
	if (!conn_qual)
		return bad_arg(DAT_INVALID_ARG2);
	return sp_create(ia_handle, DAT_HANDLE_TYPE_PSP, &conn_qual, evd_handle,
			 psp_flags, NULL, (struct dapl_sp **)psp_handle);
}

DAT_RETURN dapl_psp_create_any(DAT_IA_HANDLE ia_handle,
			       DAT_CONN_QUAL *conn_qual,
			       DAT_EVD_HANDLE evd_handle,
			       DAT_PSP_FLAGS psp_flags,
			       DAT_PSP_HANDLE *psp_handle)
{
	DAT_RETURN rc = psp_args(ia_handle, evd_handle, psp_flags, psp_handle);
	DAT_CONN_QUAL qual = 0;

	if (rc)
		return rc;
	if (!conn_qual)
		return bad_arg(DAT_INVALID_ARG2);
	rc = sp_create(ia_handle, DAT_HANDLE_TYPE_PSP, &qual, evd_handle,
		       psp_flags, NULL, (struct dapl_sp **)psp_handle);
	if (!rc)
		*conn_qual = qual;
	return rc;
}

DAT_RETURN dapl_psp_query(DAT_PSP_HANDLE psp_handle,
			  DAT_PSP_PARAM_MASK psp_param_mask,
			  DAT_PSP_PARAM *psp_param)
{
	struct dapl_sp *sp = psp_handle;

	if (!dapl_obj_ok(sp, DAT_HANDLE_TYPE_PSP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
	if (psp_param_mask & ~DAT_PSP_FIELD_ALL)
		return bad_arg(DAT_INVALID_ARG2);
	if (!psp_param)
		return bad_arg(DAT_INVALID_ARG3);
	if (psp_param_mask & DAT_PSP_FIELD_IA_HANDLE)
		psp_param->ia_handle = sp->obj.ia;
	if (psp_param_mask & DAT_PSP_FIELD_CONN_QUAL)
		psp_param->conn_qual = sp->qual;
	if (psp_param_mask & DAT_PSP_FIELD_EVD_HANDLE)
		psp_param->evd_handle = sp->evd;
	if (psp_param_mask & DAT_PSP_FIELD_PSP_FLAGS)
		psp_param->psp_flags = sp->psp_flags;
	return DAT_SUCCESS;
}

/* An RSP's EP leaves RESERVED (the RSP goes away or never listened). */
static void rsp_release_ep(struct dapl_sp *sp)
{
	struct dapl_ep *ep = sp->ep;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return;
	dapl_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_RESERVED)
		ep->state = DAT_EP_STATE_UNCONNECTED;
	else if (ep->state == DAT_EP_STATE_UNCONFIGURED_RESERVED)
		ep->state = DAT_EP_STATE_UNCONFIGURED_UNCONNECTED;
	if (ep->sp == sp)
		ep->sp = NULL;
	dapl_unlock(&ep->lock);
}

/*
 * Stops listening and frees a service point.  CRs it already produced
 * stay valid (dat_psp_free(3DAT)): they keep what they need themselves.
 */
static void sp_destroy(struct dapl_sp *sp)
{
	int was =
	    __atomic_exchange_n(&sp->listening, SP_IDLE, __ATOMIC_ACQ_REL);

	if (was != SP_IDLE)
		sp->obj.ia->ops->listen_stop(sp);
	/* no request upcall for sp runs or will run after this */
	dapl_progress_quiesce(sp);
	if (sp_is_rsp(sp))
		rsp_release_ep(sp);
	dapl_evd_put(sp->evd);
	dapl_obj_free(sp);
}

DAT_RETURN dapl_psp_free(DAT_PSP_HANDLE psp_handle)
{
	if (!dapl_obj_ok(psp_handle, DAT_HANDLE_TYPE_PSP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
	sp_destroy(psp_handle);
	return DAT_SUCCESS;
}

void dapl_sp_teardown(struct dapl_sp *sp)
{
	sp_destroy(sp);
}

DAT_RETURN dapl_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			   DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			   DAT_RSP_HANDLE *rsp_handle)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_ep *ep = ep_handle;
	struct dapl_sp *sp;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	/* A NULL EP asks for a Provider-created one: not offered. */
	if (!ep)
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP) || ep->obj.ia != ia)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	rc = cr_evd_check(ia, evd_handle);
	if (rc)
		return rc;
	if (!conn_qual)
		return bad_arg(DAT_INVALID_ARG2);
	if (!rsp_handle)
		return bad_arg(DAT_INVALID_ARG5);

	dapl_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		rc = dapl_ep_state_error(ep->state);
		dapl_unlock(&ep->lock);
		return rc;
	}
	ep->state = DAT_EP_STATE_RESERVED;
	dapl_unlock(&ep->lock);

	rc = sp_create(ia, DAT_HANDLE_TYPE_RSP, &conn_qual, evd_handle,
		       DAT_PSP_CONSUMER_FLAG, ep, &sp);
	dapl_lock(&ep->lock);
	if (rc && ep->state == DAT_EP_STATE_RESERVED)
		ep->state = DAT_EP_STATE_UNCONNECTED;
	else if (!rc)
		ep->sp = sp;
	dapl_unlock(&ep->lock);
	if (!rc)
		*rsp_handle = sp;
	return rc;
}

DAT_RETURN dapl_rsp_query(DAT_RSP_HANDLE rsp_handle,
			  DAT_RSP_PARAM_MASK rsp_param_mask,
			  DAT_RSP_PARAM *rsp_param)
{
	struct dapl_sp *sp = rsp_handle;

	if (!dapl_obj_ok(sp, DAT_HANDLE_TYPE_RSP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP);
	if (rsp_param_mask & ~DAT_RSP_FIELD_ALL)
		return bad_arg(DAT_INVALID_ARG2);
	if (!rsp_param)
		return bad_arg(DAT_INVALID_ARG3);
	if (rsp_param_mask & DAT_RSP_FIELD_IA_HANDLE)
		rsp_param->ia_handle = sp->obj.ia;
	if (rsp_param_mask & DAT_RSP_FIELD_CONN_QUAL)
		rsp_param->conn_qual = sp->qual;
	if (rsp_param_mask & DAT_RSP_FIELD_EVD_HANDLE)
		rsp_param->evd_handle = sp->evd;
	if (rsp_param_mask & DAT_RSP_FIELD_EP_HANDLE)
		rsp_param->ep_handle = sp->ep;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_rsp_free(DAT_RSP_HANDLE rsp_handle)
{
	if (!dapl_obj_ok(rsp_handle, DAT_HANDLE_TYPE_RSP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP);
	sp_destroy(rsp_handle);
	return DAT_SUCCESS;
}

/* ---- connection requests ---- */

static struct dapl_cr *cr_alloc(struct dapl_ia *ia)
{
	return dapl_obj_alloc(ia, DAT_HANDLE_TYPE_CR, sizeof(struct dapl_cr));
}

/*
 * Binds a new CR to its service point.  An RSP takes one request only,
 * and only while its EP is RESERVED; it then goes PASSIVE_CONNECTION_PENDING.
 * Returns
 * nonzero if the SP does not take it.
 */
static int cr_bind(struct dapl_sp *sp, struct dapl_cr *cr)
{
	struct dapl_ep *ep = sp->ep;
	int listening = SP_LISTENING;

	if (!sp_is_rsp(sp)) {
		if (__atomic_load_n(&sp->listening, __ATOMIC_ACQUIRE) !=
		    SP_LISTENING)
			return -1;
		if (sp->psp_flags != DAT_PSP_PROVIDER_FLAG)
			return 0;
		/* Provider-created EP: the CR holds it until accepted */
		if (dapl_ep_provider_create(sp->obj.ia, &ep))
			return -1;
		dapl_lock(&ep->lock);
		ep->cr = cr;
		dapl_unlock(&ep->lock);
		cr->ep = ep;
		cr->provider_ep = 1;
		return 0;
	}
	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return -1;
	dapl_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_RESERVED ||
	    !__atomic_compare_exchange_n(&sp->listening, &listening,
					 SP_CONSUMED, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		dapl_unlock(&ep->lock);
		return -1;
	}
	ep->state = DAT_EP_STATE_PASSIVE_CONNECTION_PENDING;
	ep->cr = cr;
	cr->ep = ep;
	dapl_unlock(&ep->lock);
	return 0;
}

int dapl_cm_request(struct dapl_sp *sp, struct dapl_tp_cr *prov_cr,
		    const struct sockaddr *remote, DAT_CONN_QUAL remote_qual,
		    const void *pdata, DAT_COUNT plen)
{
	struct dapl_cr *cr;

	if (!sp_alive(sp) ||
	    __atomic_load_n(&sp->listening, __ATOMIC_ACQUIRE) != SP_LISTENING)
		return -1;
	/* The CR EVD's queue is the backlog (dat_psp_create(3DAT)): one more
	 * request would overflow it, which the consumer learns from its
	 * async EVD; the request itself is rejected. */
	if (__atomic_load_n(&sp->cr_count, __ATOMIC_RELAXED) >= sp->evd->qlen) {
		dapl_evd_post_async(sp->obj.ia, DAT_ASYNC_ERROR_EVD_OVERFLOW,
				    sp->evd, DAT_EVD_OVERFLOW_ERROR);
		return -1;
	}
	/* The request's event must have room on the EVD, which other
	 * service points and connection events may share: a request that
	 * would be dropped there is rejected instead (the peer hears of it)
	 * and the overflow reported, so that no request is ever lost. */
	switch (dapl_evd_reserve(sp->evd)) {
	case 0:
		break;
	case DAPL_EVD_FULL:
		dapl_evd_post_async(sp->obj.ia, DAT_ASYNC_ERROR_EVD_OVERFLOW,
				    sp->evd, DAT_EVD_OVERFLOW_ERROR);
		return -1;
	default:
		return -1;
	}
	cr = cr_alloc(sp->obj.ia); /* before any EP lock: takes the IA's */
	if (!cr) {
		dapl_evd_unreserve(sp->evd);
		return -1;
	}
	cr->sp = sp;
	cr->obj.tp = prov_cr;
	cr->remote_qual = remote_qual;
	if (remote)
		memcpy(&cr->remote_addr, remote,
		       remote->sa_family == AF_INET6
			   ? sizeof(struct sockaddr_in6)
			   : sizeof(struct sockaddr_in));
	if (pdata && plen > 0) {
		if ((size_t)plen > sizeof(cr->pdata))
			plen = sizeof(cr->pdata);
		memcpy(cr->pdata, pdata, plen);
		cr->pdata_len = plen;
	}
	if (cr_bind(sp, cr)) {
		dapl_obj_free(cr);
		dapl_evd_unreserve(sp->evd);
		return -1;
	}
	__atomic_add_fetch(&sp->cr_count, 1, __ATOMIC_RELAXED);
	post_cr_event(sp, cr);
	dapl_dbg(DAPL_DBG_CM, "sp %p: connection request, cr %p", (void *)sp,
		 (void *)cr);
	return 0;
}

/* The CR is done (accepted, rejected, handed off, torn down). */
static void cr_free(struct dapl_cr *cr)
{
	__atomic_sub_fetch(&cr->sp->cr_count, 1, __ATOMIC_RELAXED);
	dapl_obj_free(cr);
}

/* An RSP's EP whose CR went away is the consumer's again; a
 * Provider-created one is freed (free_provider_ep) or, at IA teardown,
 * left UNCONNECTED for the EP teardown. */
static void cr_release_ep(struct dapl_cr *cr, int free_provider_ep)
{
	struct dapl_ep *ep = cr->ep;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return;
	dapl_lock(&ep->lock);
	if (ep->cr == cr) {
		ep->cr = NULL;
		if (ep->state == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
		    ep->state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING)
			ep->state = DAT_EP_STATE_UNCONNECTED;
		else if (ep->state == DAT_EP_STATE_UNCONFIGURED_PASSIVE ||
			 ep->state == DAT_EP_STATE_UNCONFIGURED_TENTATIVE)
			ep->state = DAT_EP_STATE_UNCONFIGURED_UNCONNECTED;
	}
	dapl_unlock(&ep->lock);
	if (cr->provider_ep && free_provider_ep) {
		/* "control of the Local Endpoint is returned back to the
		 * Provider and its ep_handle is no longer usable" */
		cr->ep = NULL;
		dapl_ep_provider_free(ep);
	}
}

DAT_RETURN dapl_cr_query(DAT_CR_HANDLE cr_handle,
			 DAT_CR_PARAM_MASK cr_param_mask,
			 DAT_CR_PARAM *cr_param)
{
	struct dapl_cr *cr = cr_handle;
	DAT_CR_PARAM *p = cr_param;

	if (!dapl_obj_ok(cr, DAT_HANDLE_TYPE_CR))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (cr_param_mask & ~DAT_CR_FIELD_ALL)
		return bad_arg(DAT_INVALID_ARG2);
	if (!p)
		return bad_arg(DAT_INVALID_ARG3);
	if (cr_param_mask & DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR)
		p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&cr->remote_addr;
	if (cr_param_mask & DAT_CR_FIELD_REMOTE_PORT_QUAL)
		p->remote_port_qual = cr->remote_qual;
	if (cr_param_mask & DAT_CR_FIELD_PRIVATE_DATA_SIZE)
		p->private_data_size = cr->pdata_len;
	/* Points into the CR: valid until it is accepted or rejected. */
	if (cr_param_mask & DAT_CR_FIELD_PRIVATE_DATA)
		p->private_data = cr->pdata_len ? cr->pdata : NULL;
	if (cr_param_mask & DAT_CR_FIELD_LOCAL_EP_HANDLE)
		p->local_ep_handle = cr->ep;
	return DAT_SUCCESS;
}

/* The EP that accepts cr, or NULL with *rc set. */
static struct dapl_ep *accept_ep(struct dapl_cr *cr, DAT_EP_HANDLE ep_handle,
				 DAT_RETURN *rc)
{
	struct dapl_ep *ep = ep_handle;

	if (cr->ep) {
		/* An RSP's CR, or one with a Provider-created EP, names
		 * its EP: DAT_HANDLE_NULL (or that EP). */
		if (ep && ep != cr->ep) {
			*rc = dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP)
				  ? bad_arg(DAT_INVALID_ARG2)
				  : DAPL_ERR(DAT_INVALID_HANDLE,
					     DAT_INVALID_HANDLE_EP);
			return NULL;
		}
		return cr->ep;
	}
	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP) || ep->obj.ia != cr->obj.ia) {
		*rc = DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		return NULL;
	}
	return ep;
}

DAT_RETURN dapl_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			  DAT_COUNT private_data_size,
			  const DAT_PVOID private_data)
{
	struct dapl_cr *cr = cr_handle;
	const struct dapl_ops *ops;
	DAT_EP_STATE want;
	struct dapl_ep *ep;
	DAT_RETURN rc;

	if (!dapl_obj_ok(cr, DAT_HANDLE_TYPE_CR))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	ops = cr->obj.ia->ops;
	ep = accept_ep(cr, ep_handle, &rc);
	if (!ep)
		return rc;
	if (private_data_size < 0 ||
	    private_data_size > cr->obj.ia->caps.max_private_data)
		return bad_arg(DAT_INVALID_ARG3);
	if (private_data_size && !private_data)
		return bad_arg(DAT_INVALID_ARG4);

	want = cr->provider_ep ? DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING
	       : cr->ep	       ? DAT_EP_STATE_PASSIVE_CONNECTION_PENDING
			       : DAT_EP_STATE_UNCONNECTED;
	dapl_lock(&ep->lock);
	if (ep->state != want) {
		rc = dapl_ep_state_error(ep->state);
		dapl_unlock(&ep->lock);
		return rc;
	}
	ep->state = DAT_EP_STATE_COMPLETION_PENDING;
	ep->cm_done = 0;
	ep->pdata_len = 0;
	ep->remote_addr = cr->remote_addr;
	ep->remote_qual = cr->remote_qual;
	if (sp_alive(cr->sp))
		ep->local_qual = cr->sp->qual;
	dapl_unlock(&ep->lock);

	rc = ops->accept(cr, ep, private_data, private_data_size);

	dapl_lock(&ep->lock);
	if (rc) {
		/* No effect on the EP or the CR (dat_cr_accept(3DAT)). */
		if (ep->state == DAT_EP_STATE_COMPLETION_PENDING &&
		    !ep->cm_done)
			ep->state = want;
	} else if (ep->cr == cr) {
		ep->cr = NULL;
	}
	dapl_unlock(&ep->lock);
	if (!rc)
		cr_free(cr); /* the provider's part now belongs to the EP */
	return rc;
}

DAT_RETURN dapl_cr_reject(DAT_CR_HANDLE cr_handle)
{
	struct dapl_cr *cr = cr_handle;
	DAT_RETURN rc;

	if (!dapl_obj_ok(cr, DAT_HANDLE_TYPE_CR))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	/* The peer sees DAT_CONNECTION_EVENT_PEER_REJECTED. */
	rc = cr->obj.ia->ops->reject(cr);
	if (rc)
		return rc;
	cr_release_ep(cr, 1);
	cr_free(cr);
	return DAT_SUCCESS;
}

void dapl_cr_teardown(struct dapl_cr *cr)
{
	cr->obj.ia->ops->cr_destroy(cr);
	cr_release_ep(cr, 0); /* the IA's EP teardown frees it */
	cr_free(cr);
}

/* The listening service point of this IA with qualifier qual, or NULL. */
static struct dapl_sp *sp_find(struct dapl_ia *ia, DAT_CONN_QUAL qual)
{
	static const DAT_HANDLE_TYPE types[] = {DAT_HANDLE_TYPE_PSP,
						DAT_HANDLE_TYPE_RSP};
	struct dapl_list *pos, *tmp;
	struct dapl_sp *found = NULL;
	unsigned i;

	pthread_mutex_lock(&ia->lock);
	for (i = 0; i < 2 && !found; i++) {
		dapl_list_for_each_safe(pos, tmp, &ia->objects[types[i]])
		{
			struct dapl_sp *sp =
			    (struct dapl_sp *)dapl_obj_of_link(pos);

			if (sp->qual == qual &&
			    __atomic_load_n(&sp->listening, __ATOMIC_ACQUIRE) ==
				SP_LISTENING) {
				found = sp;
				break;
			}
		}
	}
	pthread_mutex_unlock(&ia->lock);
	return found;
}

/*
 * Hands the request to another service point of this IA: a new CR there
 * (the old handle is destroyed, as the spec says) with the same provider
 * part, announced by a new CONNECTION_REQUEST event on that SP's EVD.
 */
DAT_RETURN dapl_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff)
{
	struct dapl_cr *cr = cr_handle, *n;
	struct dapl_sp *sp;

	if (!dapl_obj_ok(cr, DAT_HANDLE_TYPE_CR))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	sp = sp_find(cr->obj.ia, handoff);
	if (!sp)
		return bad_arg(DAT_INVALID_ARG2);
	/* Room for the new request event first: a handoff to a service
	 * point whose EVD is full fails and leaves this CR as it was. */
	switch (dapl_evd_reserve(sp->evd)) {
	case 0:
		break;
	case DAPL_EVD_FULL:
		return DAPL_ERR(DAT_QUEUE_FULL, DAT_NO_SUBTYPE);
	default:
		return bad_arg(DAT_INVALID_ARG2);
	}
	n = cr_alloc(cr->obj.ia);
	if (!n) {
		dapl_evd_unreserve(sp->evd);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	n->sp = sp;
	n->obj.tp = cr->obj.tp;
	n->remote_addr = cr->remote_addr;
	n->remote_qual = cr->remote_qual;
	memcpy(n->pdata, cr->pdata, sizeof(n->pdata));
	n->pdata_len = cr->pdata_len;
	if (cr_bind(sp, n)) {
		/* An RSP that is not RESERVED any more: no taker. */
		dapl_obj_free(n);
		dapl_evd_unreserve(sp->evd);
		return bad_arg(DAT_INVALID_ARG2);
	}
	cr_release_ep(cr, 1);
	cr_free(cr);
	__atomic_add_fetch(&sp->cr_count, 1, __ATOMIC_RELAXED);
	post_cr_event(sp, n);
	return DAT_SUCCESS;
}
