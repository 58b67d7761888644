/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints: create, reset, free, and the EP state machine shared with
 * ep_param.c (query, status, modify), cm.c and sp.c (connections) and
 * dto.c (posts).
 *
 * States follow the DAT 1.2 EP state table.  Besides the nine ordinary
 * states an EP can land in an UNCONFIGURED_* twin when dat_ep_modify had
 * to rebuild the queue pair and neither the new nor the old one could be
 * made: then the EP has no queue pair, posts and connections get
 * DAT_INVALID_STATE, and a later dat_ep_modify may configure it again.
 *
 * The helpers ep_param.c builds on (the UNCONFIGURED twins, the handle
 * checks and use counts, the attribute check) are declared in ep_int.h;
 * the EP's cookie rings are ep_ring.c's.
 */
#include <limits.h>
#include <string.h>

#include "udapl.h"
#include "slots.h"
#include "ep_int.h"

/* ---- the posts' invariants ---- */

/* What a post compares (struct dapl_ep, udapl.h), worked out again after
 * each change of ep->attr, ep->srq or the one-segment ops. */
void dapl_ep_post_limits(struct dapl_ep *ep)
{
	const DAT_COMPLETION_FLAGS u = DAT_COMPLETION_UNSIGNALLED_FLAG;

	ep->req_flags_refused =
	    ~(REQUEST_POST_FLAGS &
	      ~(ep->attr.request_completion_flags & u ? 0 : u));
	ep->recv_flags_refused =
	    ~(RECV_POST_FLAGS & ~(ep->attr.recv_completion_flags & u ? 0 : u));
	ep->send1_ok = ep->attr.max_request_iov != 0 && ep->post_send1;
	ep->recv1_ok =
	    ep->attr.max_recv_iov != 0 && ep->post_recv1 && !ep->srq;
}

/* ---- states ---- */

DAT_RETURN dapl_ep_state_error(DAT_EP_STATE state)
{
	static const DAT_RETURN_SUBTYPE sub[] = {
	    [DAT_EP_STATE_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONNECTED,
	    [DAT_EP_STATE_UNCONFIGURED_UNCONNECTED] =
		DAT_INVALID_STATE_EP_UNCONFIGURED,
	    [DAT_EP_STATE_RESERVED] = DAT_INVALID_STATE_EP_RESERVED,
	    [DAT_EP_STATE_UNCONFIGURED_RESERVED] =
		DAT_INVALID_STATE_EP_UNCONFRESERVED,
	    [DAT_EP_STATE_PASSIVE_CONNECTION_PENDING] =
		DAT_INVALID_STATE_EP_PASSCONNPENDING,
	    [DAT_EP_STATE_UNCONFIGURED_PASSIVE] =
		DAT_INVALID_STATE_EP_UNCONFPASSIVE,
	    [DAT_EP_STATE_ACTIVE_CONNECTION_PENDING] =
		DAT_INVALID_STATE_EP_ACTCONNPENDING,
	    [DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING] =
		DAT_INVALID_STATE_EP_TENTCONNPENDING,
	    [DAT_EP_STATE_UNCONFIGURED_TENTATIVE] =
		DAT_INVALID_STATE_EP_UNCONFTENTATIVE,
	    [DAT_EP_STATE_CONNECTED] = DAT_INVALID_STATE_EP_CONNECTED,
	    [DAT_EP_STATE_DISCONNECT_PENDING] =
		DAT_INVALID_STATE_EP_DISCPENDING,
	    [DAT_EP_STATE_DISCONNECTED] = DAT_INVALID_STATE_EP_DISCONNECTED,
	    [DAT_EP_STATE_COMPLETION_PENDING] =
		DAT_INVALID_STATE_EP_COMPLPENDING,
	};

	if ((unsigned)state >= sizeof(sub) / sizeof(sub[0]))
		return DAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	return DAPL_ERR(DAT_INVALID_STATE, sub[state]);
}

/* The UNCONFIGURED twin of a state, for an EP that lost its queue pair. */
DAT_EP_STATE dapl_ep_unconfigured(DAT_EP_STATE s)
{
	switch (s) {
	case DAT_EP_STATE_RESERVED:
		return DAT_EP_STATE_UNCONFIGURED_RESERVED;
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
		return DAT_EP_STATE_UNCONFIGURED_PASSIVE;
	case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
		return DAT_EP_STATE_UNCONFIGURED_TENTATIVE;
	default:
		return DAT_EP_STATE_UNCONFIGURED_UNCONNECTED;
	}
}

/* The configured state of an UNCONFIGURED twin (others unchanged). */
DAT_EP_STATE dapl_ep_configured(DAT_EP_STATE s)
{
	switch (s) {
	case DAT_EP_STATE_UNCONFIGURED_UNCONNECTED:
		return DAT_EP_STATE_UNCONNECTED;
	case DAT_EP_STATE_UNCONFIGURED_RESERVED:
		return DAT_EP_STATE_RESERVED;
	case DAT_EP_STATE_UNCONFIGURED_PASSIVE:
		return DAT_EP_STATE_PASSIVE_CONNECTION_PENDING;
	case DAT_EP_STATE_UNCONFIGURED_TENTATIVE:
		return DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING;
	default:
		return s;
	}
}

int dapl_ep_has_qp(DAT_EP_STATE s)
{
	return dapl_ep_configured(s) == s;
}

/* ---- handle checks ---- */

int dapl_ep_evd_ok(struct dapl_ia *ia, DAT_EVD_HANDLE h, DAT_EVD_FLAGS flag)
{
	struct dapl_evd *evd = h;

	if (!h)
		return 1; /* "not interested in these events" */
	return dapl_obj_ok(h, DAT_HANDLE_TYPE_EVD) && evd->obj.ia == ia &&
	       (evd->flags & flag);
}

int dapl_ep_pz_ok(struct dapl_ia *ia, DAT_PZ_HANDLE h)
{
	return dapl_obj_ok(h, DAT_HANDLE_TYPE_PZ) &&
	       ((struct dapl_pz *)h)->obj.ia == ia;
}

void dapl_ep_pz_ref(struct dapl_pz *pz, int delta)
{
	struct dapl_ia *ia;

	if (!pz)
		return; /* a Provider-created EP not yet given a PZ */
	ia = pz->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pz->use_count += delta;
	pthread_mutex_unlock(&ia->lock);
}

void dapl_ep_evd_get(struct dapl_evd *evd)
{
	if (evd)
		dapl_evd_get(evd);
}

void dapl_ep_evd_put(struct dapl_evd *evd)
{
	if (evd)
		dapl_evd_put(evd);
}

/* ---- attributes ---- */

static DAT_COUNT min_count(DAT_COUNT a, DAT_COUNT b)
{
	return a < b ? a : b;
}

/* A device limit, or a cap when the provider left it 0. */
static DAT_COUNT iov_limit(const DAT_IA_ATTR *ia, DAT_COUNT specific)
{
	DAT_COUNT lim = specific > 0 ? specific : ia->max_iov_segments_per_dto;

	return min_count(lim, DAPL_MAX_SGE);
}

static void ep_attr_default(const struct dapl_ia *ia, DAT_EP_ATTR *a)
{
	const DAT_IA_ATTR *lim = &ia->attr;

	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	a->max_message_size = lim->max_message_size;
	a->max_rdma_size = lim->max_rdma_size;
	a->qos = DAT_QOS_BEST_EFFORT;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->max_recv_dtos = min_count(64, lim->max_dto_per_ep);
	a->max_request_dtos = min_count(64, lim->max_dto_per_ep);
	a->max_recv_iov = min_count(4, iov_limit(lim, 0));
	a->max_request_iov = min_count(4, iov_limit(lim, 0));
	a->max_rdma_read_in = min_count(4, lim->max_rdma_read_per_ep_in);
	a->max_rdma_read_out = min_count(4, lim->max_rdma_read_per_ep_out);
	a->srq_soft_hw = DAT_HW_DEFAULT;
	a->max_rdma_read_iov =
	    min_count(4, iov_limit(lim, lim->max_iov_segments_per_rdma_read));
	a->max_rdma_write_iov =
	    min_count(4, iov_limit(lim, lim->max_iov_segments_per_rdma_write));
}

#define RECV_EP_FLAGS                                                          \
	(DAT_COMPLETION_SOLICITED_WAIT_FLAG |                                  \
	 DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_EVD_THRESHOLD_FLAG)
/* Request postings always support SUPPRESS, SOLICITED_WAIT and
 * BARRIER_FENCE, so asking for them is harmless. */
#define REQUEST_EP_FLAGS                                                       \
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG |   \
	 DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG | \
	 DAT_COMPLETION_EVD_THRESHOLD_FLAG)
#define QOS_ALL                                                                \
	(DAT_QOS_BEST_EFFORT | DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | \
	 DAT_QOS_ECONOMY | DAT_QOS_PREMIUM)

static int count_ok(DAT_COUNT v, DAT_COUNT max)
{
	return v >= 0 && v <= max;
}

/* Checks attributes against the IA's limits: bad is the DAT_RETURN for a
 * value out of range (INVALID_PARAMETER with the argument's subtype). */
DAT_RETURN dapl_ep_attr_check(const struct dapl_ia *ia, const DAT_EP_ATTR *a,
			 DAT_RETURN bad)
{
	const DAT_IA_ATTR *lim = &ia->attr;

	if (a->service_type != DAT_SERVICE_TYPE_RC)
		return bad;
	if (a->qos & ~QOS_ALL)
		return bad;
	if (a->qos & ~DAPL_QOS_SUPPORTED)
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (a->recv_completion_flags & ~RECV_EP_FLAGS ||
	    a->request_completion_flags & ~REQUEST_EP_FLAGS)
		return bad;
	if (a->max_message_size > lim->max_message_size ||
	    a->max_rdma_size > lim->max_rdma_size)
		return bad;
	if (!count_ok(a->max_recv_dtos, lim->max_dto_per_ep) ||
	    !count_ok(a->max_request_dtos, lim->max_dto_per_ep) ||
	    !count_ok(a->max_recv_iov, iov_limit(lim, 0)) ||
	    !count_ok(a->max_request_iov, iov_limit(lim, 0)) ||
	    !count_ok(a->max_rdma_read_iov,
		      iov_limit(lim, lim->max_iov_segments_per_rdma_read)) ||
	    !count_ok(a->max_rdma_write_iov,
		      iov_limit(lim, lim->max_iov_segments_per_rdma_write)))
		return bad;
	if (!count_ok(a->max_rdma_read_in, lim->max_rdma_read_per_ep_in) ||
	    !count_ok(a->max_rdma_read_out, lim->max_rdma_read_per_ep_out))
		return bad;
	if (a->ep_transport_specific_count < 0 ||
	    (a->ep_transport_specific_count && !a->ep_transport_specific) ||
	    a->ep_provider_specific_count < 0 ||
	    (a->ep_provider_specific_count && !a->ep_provider_specific))
		return bad;
	return DAT_SUCCESS;
}

/* ---- create ---- */

static DAT_RETURN ep_check_handles(struct dapl_ia *ia, DAT_PZ_HANDLE pz,
				   DAT_EVD_HANDLE recv, DAT_EVD_HANDLE req,
				   DAT_EVD_HANDLE conn)
{
	if (!dapl_ep_pz_ok(ia, pz))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (!dapl_ep_evd_ok(ia, recv, DAT_EVD_DTO_FLAG))
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_RECV);
	if (!dapl_ep_evd_ok(ia, req, DAT_EVD_DTO_FLAG))
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_REQUEST);
	if (!dapl_ep_evd_ok(ia, conn, DAT_EVD_CONNECTION_FLAG))
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_CONN);
	return DAT_SUCCESS;
}

static void ep_destroy_mem(struct dapl_ep *ep)
{
	dapl_ep_ring_release(&ep->send_ring);
	dapl_ep_ring_release(&ep->recv_ring);
	dapl_lock_destroy(&ep->lock);
	dapl_obj_free(ep);
}

static DAT_RETURN ep_make(struct dapl_ia *ia, const DAT_EP_ATTR *a,
			  DAT_PZ_HANDLE pz_handle,
			  DAT_EVD_HANDLE recv_evd_handle,
			  DAT_EVD_HANDLE request_evd_handle,
			  DAT_EVD_HANDLE connect_evd_handle,
			  struct dapl_srq *srq, DAT_EP_HANDLE *ep_handle);

DAT_RETURN dapl_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			  DAT_EVD_HANDLE recv_evd_handle,
			  DAT_EVD_HANDLE request_evd_handle,
			  DAT_EVD_HANDLE connect_evd_handle,
			  const DAT_EP_ATTR *ep_attributes,
			  DAT_EP_HANDLE *ep_handle)
{
	struct dapl_ia *ia = ia_handle;
	DAT_EP_ATTR attr;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	rc = ep_check_handles(ia, pz_handle, recv_evd_handle,
			      request_evd_handle, connect_evd_handle);
	if (rc)
		return rc;
	if (!ep_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	if (ep_attributes) {
		attr = *ep_attributes;
		rc = dapl_ep_attr_check(
		    ia, &attr,
		    DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
		if (rc)
			return rc;
	} else {
		ep_attr_default(ia, &attr);
	}
	return ep_make(ia, &attr, pz_handle, recv_evd_handle,
		       request_evd_handle, connect_evd_handle, NULL, ep_handle);
}

/* Makes a checked EP (srq: dat_ep_create_with_srq, else NULL). */
static DAT_RETURN ep_make(struct dapl_ia *ia, const DAT_EP_ATTR *a,
			  DAT_PZ_HANDLE pz_handle,
			  DAT_EVD_HANDLE recv_evd_handle,
			  DAT_EVD_HANDLE request_evd_handle,
			  DAT_EVD_HANDLE connect_evd_handle,
			  struct dapl_srq *srq, DAT_EP_HANDLE *ep_handle)
{
	const DAT_EP_ATTR attr = *a;
	struct dapl_ep *ep;
	DAT_RETURN rc;

	ep = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_EP, sizeof(*ep));
	if (!ep)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	dapl_lock_init(&ep->lock);
	ep->nolock = ia->nolock;
	ep->post_send1 = ia->ops->post_send1;
	ep->post_recv1 = ia->ops->post_recv1;
	ep->post_write1 = ia->ops->post_write1;
	ep->post_read1 = ia->ops->post_read1;
	ep->post_atomic1 = ia->ops->post_atomic1;
	ep->state = DAT_EP_STATE_UNCONNECTED;
	ep->attr = attr;
	ep->pz = pz_handle;
	ep->recv_evd = recv_evd_handle;
	ep->request_evd = request_evd_handle;
	ep->connect_evd = connect_evd_handle;
	ep->srq = srq; /* for the whole life of the EP (ep_reset keeps it) */
	dapl_ep_post_limits(ep);
	if (dapl_ep_ring_alloc(&ep->send_ring, attr.max_request_dtos, ep) ||
	    dapl_ep_ring_alloc(&ep->recv_ring, attr.max_recv_dtos, ep)) {
		ep_destroy_mem(ep);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	/* the pollers' side of each ring (ep_modify keeps these fields) */
	DAPL_ATOMIC_VAR(ep->send_ring.tail);
	DAPL_ATOMIC_VAR(ep->recv_ring.tail);
	ep->lc_lmr = &dapl_lmr_none;
	DAPL_ATOMIC_VAR(ep->lc_lmr);
	rc = ia->ops->qp_create(ep);
	if (rc) {
		ep_destroy_mem(ep);
		return rc;
	}
	dapl_ep_pz_ref(ep->pz, 1);
	dapl_ep_evd_get(ep->recv_evd);
	dapl_ep_evd_get(ep->request_evd);
	dapl_ep_evd_get(ep->connect_evd);
	*ep_handle = ep;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_ep_provider_create(struct dapl_ia *ia, struct dapl_ep **out)
{
	struct dapl_ep *ep;

	ep = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_EP, sizeof(*ep));
	if (!ep)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	dapl_lock_init(&ep->lock);
	ep->nolock = ia->nolock;
	ep->post_send1 = ia->ops->post_send1;
	ep->post_recv1 = ia->ops->post_recv1;
	ep->post_write1 = ia->ops->post_write1;
	ep->post_read1 = ia->ops->post_read1;
	ep->post_atomic1 = ia->ops->post_atomic1;
	/* no PZ: no queue pair until dat_ep_modify sets one */
	ep->state = DAT_EP_STATE_UNCONFIGURED_TENTATIVE;
	ep_attr_default(ia, &ep->attr);
	dapl_ep_post_limits(ep);
	if (dapl_ep_ring_alloc(&ep->send_ring, ep->attr.max_request_dtos, ep) ||
	    dapl_ep_ring_alloc(&ep->recv_ring, ep->attr.max_recv_dtos, ep)) {
		ep_destroy_mem(ep);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	DAPL_ATOMIC_VAR(ep->send_ring.tail);
	DAPL_ATOMIC_VAR(ep->recv_ring.tail);
	ep->lc_lmr = &dapl_lmr_none;
	DAPL_ATOMIC_VAR(ep->lc_lmr);
	*out = ep;
	return DAT_SUCCESS;
}

/*
 * The SRQ use count, under ia->lock: at most max_ep_per_srq EPs per SRQ
 * (1 taken, 0 if full); -1 gives one back.
 */
static int srq_ref(struct dapl_srq *srq, int delta)
{
	struct dapl_ia *ia = srq->obj.ia;
	int ok = 1;

	pthread_mutex_lock(&ia->lock);
	if (delta > 0 && srq->use_count >= ia->attr.max_ep_per_srq)
		ok = 0;
	else
		srq->use_count += delta;
	pthread_mutex_unlock(&ia->lock);
	return ok;
}

/*
 * An EP whose receives come from an SRQ: the handles and attributes as
 * for dat_ep_create (ep_attributes may not be NULL here), the SRQ of this
 * IA and on the EP's PZ (srq_ep_pz_difference_supported is FALSE).
 * max_recv_iov is ignored, as the page says.
 */
DAT_RETURN dapl_ep_create_with_srq(
    DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
    DAT_EVD_HANDLE recv_evd_handle, DAT_EVD_HANDLE request_evd_handle,
    DAT_EVD_HANDLE connect_evd_handle, DAT_SRQ_HANDLE srq_handle,
    const DAT_EP_ATTR *ep_attributes, DAT_EP_HANDLE *ep_handle)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_srq *srq;
	DAT_EP_ATTR attr;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	rc = ep_check_handles(ia, pz_handle, recv_evd_handle,
			      request_evd_handle, connect_evd_handle);
	if (rc)
		return rc;
	/* dat_ia_query reports max_srqs 0: no SRQ can ever be passed (the
	 * other handles are checked first, as for the other features). */
	if (!ia->attr.max_srqs)
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!dapl_obj_ok(srq_handle, DAT_HANDLE_TYPE_SRQ) ||
	    ((struct dapl_srq *)srq_handle)->obj.ia != ia)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	srq = srq_handle;
	if (!ep_attributes)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	if (!ep_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
	attr = *ep_attributes;
	attr.max_recv_iov = srq->attr.max_recv_iov;
	rc = dapl_ep_attr_check(ia, &attr,
			   DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	if (rc)
		return rc;
	if (srq->pz != (struct dapl_pz *)pz_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!srq_ref(srq, 1))
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
	rc = ep_make(ia, &attr, pz_handle, recv_evd_handle, request_evd_handle,
		     connect_evd_handle, srq, ep_handle);
	if (rc)
		srq_ref(srq, -1);
	return rc;
}

/* ---- reset, free ---- */

/* A fresh ring in place of one with stale posts (see dapl_ep_ring_release). */
static int ring_renew(struct dapl_cookie_ring *r, struct dapl_ep *ep)
{
	struct dapl_cookie_ring n;

	if (!dapl_cookie_outstanding(r)) {
		r->head = r->tail = 0;
		return 0;
	}
	if (dapl_ep_ring_alloc(&n, (DAT_COUNT)r->size, ep))
		return -1;
	dapl_ep_ring_release(r);
	*r = n;
	return 0;
}

DAT_RETURN dapl_ep_reset(DAT_EP_HANDLE ep_handle)
{
	struct dapl_ep *ep = ep_handle;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return EP_ERR_HANDLE;
	dapl_lock(&ep->lock);
	if (ep->state == DAT_EP_STATE_UNCONNECTED) {
		rc = DAT_SUCCESS; /* a no-op, preposted receives stay */
		goto out;
	}
	if (ep->state != DAT_EP_STATE_DISCONNECTED) {
		rc = dapl_ep_state_error(ep->state);
		goto out;
	}
	/* The old queue pair's work requests are gone with it (the spec
	 * allows losing their completions); cookies of those still in a CQ
	 * must not meet the new posts, hence new rings. */
	rc = ep->obj.ia->ops->qp_reset(ep);
	if (rc)
		goto out;
	if (ring_renew(&ep->send_ring, ep) || ring_renew(&ep->recv_ring, ep)) {
		ep->state = dapl_ep_unconfigured(DAT_EP_STATE_UNCONNECTED);
		rc = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	ep->state = DAT_EP_STATE_UNCONNECTED;
	memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
	ep->remote_qual = ep->local_qual = 0;
	ep->sp = NULL;
	ep->cr = NULL;
	ep->pdata_len = 0;
	ep->cm_done = 0;
	/* an event the old connection deferred is not the new one's */
	dapl_progress_purge_ep(ep);
out:
	dapl_unlock(&ep->lock);
	return rc;
}

/* True in the states where the transport may still hold a connection. */
static int ep_may_be_connected(DAT_EP_STATE s)
{
	return s == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING ||
	       s == DAT_EP_STATE_COMPLETION_PENDING ||
	       s == DAT_EP_STATE_CONNECTED ||
	       s == DAT_EP_STATE_DISCONNECT_PENDING;
}

/* Releases everything of an EP; the caller has checked what it must. */
static void ep_release(struct dapl_ep *ep)
{
	const struct dapl_ops *ops = ep->obj.ia->ops;
	DAT_EP_STATE s;

	dapl_lock(&ep->lock);
	s = ep->state;
	/* Posts and late CM events now see a disconnected EP. */
	ep->state = DAT_EP_STATE_DISCONNECTED;
	ep->cm_done = 1;
	dapl_unlock(&ep->lock);

	/* Outside the lock: an upcall for this EP may be running on the
	 * engine's thread and want it.  After qp_destroy the transport
	 * starts no upcall for the EP; the quiesce waits for one running
	 * (not for one of this thread: a CNO agent freeing inside it). */
	if (ep_may_be_connected(s))
		ops->disconnect(ep, 1);
	if (dapl_ep_has_qp(s))
		ops->qp_destroy(ep);
	dapl_progress_quiesce(ep);

	dapl_ep_pz_ref(ep->pz, -1);
	dapl_ep_evd_put(ep->recv_evd);
	dapl_ep_evd_put(ep->request_evd);
	dapl_ep_evd_put(ep->connect_evd);
	if (ep->srq)
		srq_ref(ep->srq, -1);
	ep_destroy_mem(ep);
}

DAT_RETURN dapl_ep_free(DAT_EP_HANDLE ep_handle)
{
	struct dapl_ep *ep = ep_handle;
	DAT_EP_STATE s;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return EP_ERR_HANDLE;
	/* dat_ep_free(3DAT): not while an RSP or a pending CR holds it; the
	 * consumer frees the RSP or rejects the CR first. */
	s = dapl_ep_configured(__atomic_load_n(&ep->state, __ATOMIC_RELAXED));
	if (s == DAT_EP_STATE_RESERVED ||
	    s == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
	    s == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING)
		return dapl_ep_state_error(ep->state);
	ep_release(ep);
	return DAT_SUCCESS;
}

void dapl_ep_provider_free(struct dapl_ep *ep)
{
	if (dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		ep_release(ep);
}

void dapl_ep_teardown(struct dapl_ep *ep)
{
	/* IA close ABRUPT: the CRs and service points are gone already, so
	 * an RSP's EP is back to UNCONNECTED; no completion will be polled
	 * any more, but dapl_ep_ring_release copes either way. */
	ep_release(ep);
}
