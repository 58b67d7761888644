/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An EP's parameters and status: dat_ep_query, dat_ep_get_status,
 * dat_ep_recv_query, dat_ep_set_watermark, and dat_ep_modify, which may
 * have to rebuild the queue pair (or leave the EP UNCONFIGURED: ep.c's
 * header).  Apart from ep.c, the EP's life, which it builds on: the
 * state twins, handle checks, use counts and attribute check of ep.c and
 * the rings of ep_ring.c (ep_int.h); neither calls back here.
 */
#include <stdlib.h>

#include "udapl.h"
#include "slots.h"
#include "ep_int.h"

/* ---- query, status ---- */

DAT_RETURN dapl_ep_query(DAT_EP_HANDLE ep_handle,
			 DAT_EP_PARAM_MASK ep_param_mask,
			 DAT_EP_PARAM *ep_param)
{
	struct dapl_ep *ep = ep_handle;
	DAT_EP_PARAM *p = ep_param;
	DAT_EP_PARAM_MASK m = ep_param_mask;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return EP_ERR_HANDLE;
	if (m & ~DAT_EP_FIELD_ALL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!p)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	dapl_lock(&ep->lock);
	if (m & DAT_EP_FIELD_IA_HANDLE)
		p->ia_handle = ep->obj.ia;
	if (m & DAT_EP_FIELD_EP_STATE)
		p->ep_state = ep->state;
	if (m & DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR)
		p->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->obj.ia->addr;
	if (m & DAT_EP_FIELD_LOCAL_PORT_QUAL)
		p->local_port_qual = ep->local_qual;
	if (m & DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR)
		p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->remote_addr;
	if (m & DAT_EP_FIELD_REMOTE_PORT_QUAL)
		p->remote_port_qual = ep->remote_qual;
	if (m & DAT_EP_FIELD_PZ_HANDLE)
		p->pz_handle = ep->pz;
	if (m & DAT_EP_FIELD_RECV_EVD_HANDLE)
		p->recv_evd_handle = ep->recv_evd;
	if (m & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		p->request_evd_handle = ep->request_evd;
	if (m & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		p->connect_evd_handle = ep->connect_evd;
	if (m & DAT_EP_FIELD_SRQ_HANDLE)
		p->srq_handle = ep->srq;
	/* The attribute bits select parts of one struct; copying all of it
	 * is the "can return values for any other parameters" latitude. */
	if (m & DAT_EP_FIELD_EP_ATTR_ALL)
		p->ep_attr = ep->attr;
	dapl_unlock(&ep->lock);
	return DAT_SUCCESS;
}

DAT_RETURN dapl_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			      DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *request_idle)
{
	struct dapl_ep *ep = ep_handle;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return EP_ERR_HANDLE;
	/* A snapshot: "no heroic synchronization" is asked for. */
	if (ep_state)
		*ep_state = __atomic_load_n(&ep->state, __ATOMIC_RELAXED);
	if (recv_idle)
		*recv_idle = dapl_cookie_outstanding(&ep->recv_ring) ? DAT_FALSE
								     : DAT_TRUE;
	if (request_idle)
		*request_idle = dapl_cookie_outstanding(&ep->send_ring)
				    ? DAT_FALSE
				    : DAT_TRUE;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_ep_recv_query(DAT_EP_HANDLE ep_handle,
			      DAT_COUNT *nbufs_allocated,
			      DAT_COUNT *bufs_alloc_span)
{
	struct dapl_ep *ep = ep_handle;
	DAT_COUNT n;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return EP_ERR_HANDLE;
	/* With an SRQ the transport does not say which buffers an EP has
	 * taken and not completed yet. */
	if (ep->srq) {
		if (nbufs_allocated)
			*nbufs_allocated = DAT_VALUE_UNKNOWN;
		if (bufs_alloc_span)
			*bufs_alloc_span = DAT_VALUE_UNKNOWN;
		return DAT_SUCCESS;
	}
	/* Without an SRQ a buffer is allocated to the EP when posted and
	 * receives complete in order, so the span equals the count. */
	n = (DAT_COUNT)dapl_cookie_outstanding(&ep->recv_ring);
	if (nbufs_allocated)
		*nbufs_allocated = n;
	if (bufs_alloc_span)
		*bufs_alloc_span = n;
	return DAT_SUCCESS;
}

/*
 * High watermarks are not supported (DAT_PROVIDER_ATTR reports
 * srq_watermarks_supported 0): setting the default, "infinite", is a
 * no-op that succeeds, anything else is DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dapl_ep_set_watermark(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT soft_high_watermark,
				 DAT_COUNT hard_high_watermark)
{
	if (!dapl_obj_ok(ep_handle, DAT_HANDLE_TYPE_EP))
		return EP_ERR_HANDLE;
	if (soft_high_watermark < 0 &&
	    soft_high_watermark != DAT_WATERMARK_INFINITE)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (hard_high_watermark < 0 &&
	    hard_high_watermark != DAT_WATERMARK_INFINITE)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (soft_high_watermark == DAT_WATERMARK_INFINITE &&
	    hard_high_watermark == DAT_WATERMARK_INFINITE)
		return DAT_SUCCESS;
	return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

/* ---- modify ---- */

#define EP_FIELDS_FIXED                                                        \
	(DAT_EP_FIELD_IA_HANDLE | DAT_EP_FIELD_EP_STATE |                      \
	 DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR | DAT_EP_FIELD_LOCAL_PORT_QUAL |    \
	 DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR | DAT_EP_FIELD_REMOTE_PORT_QUAL |  \
	 DAT_EP_FIELD_SRQ_HANDLE)
/* Modifiable only in the quiescent UNCONNECTED state. */
#define EP_FIELDS_QUIESCENT                                                    \
	(DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR |                             \
	 DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR |                        \
	 DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR |                              \
	 DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR)

/* The state rules of dat_ep_modify(3DAT), on the configured state. */
static int ep_modify_allowed(DAT_EP_STATE s, DAT_EP_PARAM_MASK m)
{
	s = dapl_ep_configured(s);
	if ((m & EP_FIELDS_QUIESCENT) && s != DAT_EP_STATE_UNCONNECTED)
		return 0;
	if ((m & DAT_EP_FIELD_PZ_HANDLE) && s != DAT_EP_STATE_UNCONNECTED &&
	    s != DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING)
		return 0;
	switch (s) {
	case DAT_EP_STATE_UNCONNECTED:
	case DAT_EP_STATE_RESERVED:
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
		return 1;
	default:
		return 0;
	}
}

/* What the EP would look like after the modify. */
struct ep_shape {
	DAT_EP_ATTR attr;
	struct dapl_pz *pz;
	struct dapl_evd *recv_evd, *request_evd, *connect_evd;
};

static void ep_attr_merge(DAT_EP_ATTR *a, const DAT_EP_ATTR *n,
			  DAT_EP_PARAM_MASK m)
{
#define TAKE(bit, field)                                                       \
	do {                                                                   \
		if (m & (bit))                                                 \
			a->field = n->field;                                   \
	} while (0)
	TAKE(DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, service_type);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, max_message_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, max_rdma_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_QOS, qos);
	TAKE(DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, recv_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
	     request_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, max_recv_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, max_request_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, max_recv_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, max_rdma_read_in);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out);
	TAKE(DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, srq_soft_hw);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, max_rdma_read_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, max_rdma_write_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR,
	     ep_transport_specific_count);
	TAKE(DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR,
	     ep_transport_specific);
	TAKE(DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR,
	     ep_provider_specific_count);
	TAKE(DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR, ep_provider_specific);
#undef TAKE
}

/* True if the change needs a new queue pair (its PD, CQs or sizes). */
static int ep_needs_new_qp(const struct dapl_ep *ep, const struct ep_shape *n)
{
	const DAT_EP_ATTR *a = &ep->attr, *b = &n->attr;

	return n->pz != ep->pz || n->recv_evd != ep->recv_evd ||
	       n->request_evd != ep->request_evd ||
	       a->max_recv_dtos != b->max_recv_dtos ||
	       a->max_request_dtos != b->max_request_dtos ||
	       a->max_recv_iov != b->max_recv_iov ||
	       a->max_request_iov != b->max_request_iov ||
	       a->max_rdma_read_iov != b->max_rdma_read_iov ||
	       a->max_rdma_write_iov != b->max_rdma_write_iov;
}

static void ep_shape_get(const struct dapl_ep *ep, struct ep_shape *s)
{
	s->attr = ep->attr;
	s->pz = ep->pz;
	s->recv_evd = ep->recv_evd;
	s->request_evd = ep->request_evd;
	s->connect_evd = ep->connect_evd;
}

static void ep_shape_set(struct dapl_ep *ep, const struct ep_shape *s)
{
	ep->attr = s->attr;
	dapl_ep_post_limits(ep);
	ep->pz = s->pz;
	ep->recv_evd = s->recv_evd;
	ep->request_evd = s->request_evd;
	ep->connect_evd = s->connect_evd;
}

/* The use counts follow the EP from the objects of o to those of n. */
static void ep_shape_refs(const struct ep_shape *o, const struct ep_shape *n)
{
	if (o->pz != n->pz) {
		dapl_ep_pz_ref(n->pz, 1);
		dapl_ep_pz_ref(o->pz, -1);
	}
	if (o->recv_evd != n->recv_evd) {
		dapl_ep_evd_get(n->recv_evd);
		dapl_ep_evd_put(o->recv_evd);
	}
	if (o->request_evd != n->request_evd) {
		dapl_ep_evd_get(n->request_evd);
		dapl_ep_evd_put(o->request_evd);
	}
	if (o->connect_evd != n->connect_evd) {
		dapl_ep_evd_get(n->connect_evd);
		dapl_ep_evd_put(o->connect_evd);
	}
}

/*
 * A queue pair cannot change its PD, CQs or sizes: make a new one.  Only
 * with nothing posted (the spec lets these change before a connection
 * only).  If neither the new nor the old queue pair can be made, the EP
 * is left UNCONFIGURED with the old parameters.  Called with ep->lock;
 * the caller moves the use counts (IA and EVD locks) after unlocking.
 */
static DAT_RETURN ep_rebuild_qp(struct dapl_ep *ep, const struct ep_shape *n)
{
	const struct dapl_ops *ops = ep->obj.ia->ops;
	struct dapl_cookie_ring send = {0}, recv = {0};
	struct ep_shape old;
	DAT_RETURN rc;

	if (dapl_cookie_outstanding(&ep->send_ring) ||
	    dapl_cookie_outstanding(&ep->recv_ring))
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EP_NOTREADY);
	if (dapl_ep_ring_alloc(&send, n->attr.max_request_dtos, ep) ||
	    dapl_ep_ring_alloc(&recv, n->attr.max_recv_dtos, ep)) {
		free(send.slot);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	ep_shape_get(ep, &old);
	if (dapl_ep_has_qp(ep->state))
		ops->qp_destroy(ep);
	ep_shape_set(ep, n);
	rc = ops->qp_create(ep);
	if (rc) {
		free(send.slot);
		free(recv.slot);
		ep_shape_set(ep, &old);
		/* a Provider-created EP had no PZ, hence no queue pair */
		if (!old.pz || ops->qp_create(ep))
			ep->state = dapl_ep_unconfigured(ep->state);
		else
			ep->state = dapl_ep_configured(ep->state);
		return rc;
	}
	dapl_ep_ring_release(&ep->send_ring);
	dapl_ep_ring_release(&ep->recv_ring);
	ep->send_ring = send;
	ep->recv_ring = recv;
	ep->state = dapl_ep_configured(ep->state);
	return DAT_SUCCESS;
}

/* Checks the new handles of a modify; fills n. */
static DAT_RETURN ep_modify_handles(struct dapl_ep *ep, DAT_EP_PARAM_MASK m,
				    const DAT_EP_PARAM *p, struct ep_shape *n)
{
	struct dapl_ia *ia = ep->obj.ia;

	if (m & DAT_EP_FIELD_PZ_HANDLE) {
		if (!dapl_ep_pz_ok(ia, p->pz_handle))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_PZ);
		n->pz = p->pz_handle;
	}
	if (m & DAT_EP_FIELD_RECV_EVD_HANDLE) {
		if (!dapl_ep_evd_ok(ia, p->recv_evd_handle, DAT_EVD_DTO_FLAG))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_RECV);
		n->recv_evd = p->recv_evd_handle;
	}
	if (m & DAT_EP_FIELD_REQUEST_EVD_HANDLE) {
		if (!dapl_ep_evd_ok(ia, p->request_evd_handle,
				    DAT_EVD_DTO_FLAG))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_REQUEST);
		n->request_evd = p->request_evd_handle;
	}
	if (m & DAT_EP_FIELD_CONNECT_EVD_HANDLE) {
		if (!dapl_ep_evd_ok(ia, p->connect_evd_handle,
				    DAT_EVD_CONNECTION_FLAG))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_CONN);
		n->connect_evd = p->connect_evd_handle;
	}
	if (m & DAT_EP_FIELD_EP_ATTR_ALL)
		ep_attr_merge(&n->attr, &p->ep_attr, m);
	return dapl_ep_attr_check(ia, &n->attr,
			     DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
}

/* On success the EP has moved from *old to *n; the use counts not yet. */
static DAT_RETURN ep_modify_locked(struct dapl_ep *ep, DAT_EP_PARAM_MASK m,
				   const DAT_EP_PARAM *p, struct ep_shape *old,
				   struct ep_shape *n)
{
	const struct dapl_ops *ops = ep->obj.ia->ops;
	DAT_RETURN rc;

	if (!ep_modify_allowed(ep->state, m))
		return dapl_ep_state_error(ep->state);
	ep_shape_get(ep, old);
	*n = *old;
	rc = ep_modify_handles(ep, m, p, n);
	if (rc)
		return rc;
	if (!n->pz) {
		/* A Provider-created EP still without a PZ: no queue pair
		 * yet, the new parameters are simply kept. */
		ep_shape_set(ep, n);
		return DAT_SUCCESS;
	}
	if (ep_needs_new_qp(ep, n) || !dapl_ep_has_qp(ep->state))
		return ep_rebuild_qp(ep, n);
	/* Same queue pair: the provider takes note of the rest (RDMA read
	 * depths and the like go into the connection parameters). */
	if (ops->qp_modify) {
		rc = ops->qp_modify(ep, &n->attr);
		if (rc)
			return rc;
	}
	ep_shape_set(ep, n);
	return DAT_SUCCESS;
}

DAT_RETURN dapl_ep_modify(DAT_EP_HANDLE ep_handle,
			  DAT_EP_PARAM_MASK ep_param_mask,
			  const DAT_EP_PARAM *ep_param)
{
	struct dapl_ep *ep = ep_handle;
	struct ep_shape old, n;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return EP_ERR_HANDLE;
	if (ep_param_mask & ~DAT_EP_FIELD_ALL ||
	    ep_param_mask & EP_FIELDS_FIXED)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!ep_param)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!ep_param_mask)
		return DAT_SUCCESS;
	dapl_lock(&ep->lock);
	rc = ep_modify_locked(ep, ep_param_mask, ep_param, &old, &n);
	dapl_unlock(&ep->lock);
	if (!rc)
		ep_shape_refs(&old, &n);
	return rc;
}
