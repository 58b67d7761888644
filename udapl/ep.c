/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints: create, query, modify, status, reset, free, and the EP state
 * machine shared with cm.c (connections) and dto.c (posts).
 *
 * States follow the DAT 1.2 EP state table.  Besides the nine ordinary
 * states an EP can land in an UNCONFIGURED_* twin when dat_ep_modify had
 * to rebuild the queue pair and neither the new nor the old one could be
 * made: then the EP has no queue pair, posts and connections get
 * DAT_INVALID_STATE, and a later dat_ep_modify may configure it again.
 *
 * Each EP owns two cookie rings (requests, receives).  A completion that
 * is still in a CQ when its EP is freed or reset must not touch freed
 * memory, so a ring with posts outstanding is not freed but retired: its
 * outstanding cookies lose their EP (the poller drops them) and the
 * memory stays until the provider is unloaded.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "udapl.h"
#include "slots.h"

#define EP_ERR_HANDLE DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP)

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
static DAT_EP_STATE ep_unconfigured(DAT_EP_STATE s)
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
static DAT_EP_STATE ep_configured(DAT_EP_STATE s)
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

static int ep_has_qp(DAT_EP_STATE s)
{
	return ep_configured(s) == s;
}

/* ---- cookie rings ---- */

struct retired_ring {
	struct retired_ring *next;
	struct dapl_cookie *slot;
};

static void retired_forget(void);
static struct dapl_module_lock retired_lock =
	DAPL_MODULE_LOCK_INITIALIZER_FORGET(retired_forget);
static struct retired_ring *retired;

/* In a forked child: the parent's rings stay where they are. */
static void retired_forget(void)
{
	retired = NULL;
}

void dapl_ep_release_retired(void)
{
	struct retired_ring *r;

	dapl_module_lock(&retired_lock);
	while ((r = retired)) {
		retired = r->next;
		free(r->slot);
		free(r);
	}
	dapl_module_unlock(&retired_lock);
}

/* A ring of ep's: every slot names ep from the start, so that a post
 * need not (only a retired ring's cookies lose it: ring_release). */
static int ring_alloc(struct dapl_cookie_ring *r, DAT_COUNT n,
		      struct dapl_ep *ep)
{
	uint32_t size = 1, i;

	while (size < (uint32_t)n)
		size <<= 1;
	r->slot = calloc(size, sizeof(*r->slot));
	if (!r->slot)
		return -1;
	for (i = 0; i < size; i++)
		r->slot[i].ep = ep;
	r->size = size;
	r->head = r->tail = 0;
	r->sig_mask = size > 1 ? (size >> 1) - 1 : 0;
	return 0;
}

/*
 * Gives up a ring: freed if nothing is outstanding, else its outstanding
 * cookies forget their EP and the memory is kept for the completions
 * that may still be in a CQ.
 */
static void ring_release(struct dapl_cookie_ring *r)
{
	uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	struct retired_ring *node;
	uint32_t i;

	if (!r->slot)
		return;
	if (r->head == tail) {
		free(r->slot);
		goto out;
	}
	for (i = tail; i != r->head; i++)
		__atomic_store_n(&r->slot[i & (r->size - 1)].ep, NULL,
				 __ATOMIC_RELEASE);
	node = malloc(sizeof(*node));
	if (node) { /* without it the ring leaks: better than a crash */
		node->slot = r->slot;
		dapl_module_lock(&retired_lock);
		node->next = retired;
		retired = node;
		dapl_module_unlock(&retired_lock);
	}
out:
	r->slot = NULL;
	r->size = r->head = r->tail = 0;
}

/* ---- handle checks ---- */

static int evd_ok(struct dapl_ia *ia, DAT_EVD_HANDLE h, DAT_EVD_FLAGS flag)
{
	struct dapl_evd *evd = h;

	if (!h)
		return 1; /* "not interested in these events" */
	return dapl_obj_ok(h, DAT_HANDLE_TYPE_EVD) && evd->obj.ia == ia &&
	       (evd->flags & flag);
}

static int pz_ok(struct dapl_ia *ia, DAT_PZ_HANDLE h)
{
	return dapl_obj_ok(h, DAT_HANDLE_TYPE_PZ) &&
	       ((struct dapl_pz *)h)->obj.ia == ia;
}

static void pz_ref(struct dapl_pz *pz, int delta)
{
	struct dapl_ia *ia;

	if (!pz)
		return; /* a Provider-created EP not yet given a PZ */
	ia = pz->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pz->use_count += delta;
	pthread_mutex_unlock(&ia->lock);
}

static void evd_get(struct dapl_evd *evd)
{
	if (evd)
		dapl_evd_get(evd);
}

static void evd_put(struct dapl_evd *evd)
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
static DAT_RETURN ep_attr_check(const struct dapl_ia *ia, const DAT_EP_ATTR *a,
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
	if (!pz_ok(ia, pz))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (!evd_ok(ia, recv, DAT_EVD_DTO_FLAG))
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_RECV);
	if (!evd_ok(ia, req, DAT_EVD_DTO_FLAG))
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_REQUEST);
	if (!evd_ok(ia, conn, DAT_EVD_CONNECTION_FLAG))
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_CONN);
	return DAT_SUCCESS;
}

static void ep_destroy_mem(struct dapl_ep *ep)
{
	ring_release(&ep->send_ring);
	ring_release(&ep->recv_ring);
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
		rc = ep_attr_check(
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
	if (ring_alloc(&ep->send_ring, attr.max_request_dtos, ep) ||
	    ring_alloc(&ep->recv_ring, attr.max_recv_dtos, ep)) {
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
	pz_ref(ep->pz, 1);
	evd_get(ep->recv_evd);
	evd_get(ep->request_evd);
	evd_get(ep->connect_evd);
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
	if (ring_alloc(&ep->send_ring, ep->attr.max_request_dtos, ep) ||
	    ring_alloc(&ep->recv_ring, ep->attr.max_recv_dtos, ep)) {
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
	rc = ep_attr_check(ia, &attr,
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
	s = ep_configured(s);
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
		pz_ref(n->pz, 1);
		pz_ref(o->pz, -1);
	}
	if (o->recv_evd != n->recv_evd) {
		evd_get(n->recv_evd);
		evd_put(o->recv_evd);
	}
	if (o->request_evd != n->request_evd) {
		evd_get(n->request_evd);
		evd_put(o->request_evd);
	}
	if (o->connect_evd != n->connect_evd) {
		evd_get(n->connect_evd);
		evd_put(o->connect_evd);
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
	if (ring_alloc(&send, n->attr.max_request_dtos, ep) ||
	    ring_alloc(&recv, n->attr.max_recv_dtos, ep)) {
		free(send.slot);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	ep_shape_get(ep, &old);
	if (ep_has_qp(ep->state))
		ops->qp_destroy(ep);
	ep_shape_set(ep, n);
	rc = ops->qp_create(ep);
	if (rc) {
		free(send.slot);
		free(recv.slot);
		ep_shape_set(ep, &old);
		/* a Provider-created EP had no PZ, hence no queue pair */
		if (!old.pz || ops->qp_create(ep))
			ep->state = ep_unconfigured(ep->state);
		else
			ep->state = ep_configured(ep->state);
		return rc;
	}
	ring_release(&ep->send_ring);
	ring_release(&ep->recv_ring);
	ep->send_ring = send;
	ep->recv_ring = recv;
	ep->state = ep_configured(ep->state);
	return DAT_SUCCESS;
}

/* Checks the new handles of a modify; fills n. */
static DAT_RETURN ep_modify_handles(struct dapl_ep *ep, DAT_EP_PARAM_MASK m,
				    const DAT_EP_PARAM *p, struct ep_shape *n)
{
	struct dapl_ia *ia = ep->obj.ia;

	if (m & DAT_EP_FIELD_PZ_HANDLE) {
		if (!pz_ok(ia, p->pz_handle))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_PZ);
		n->pz = p->pz_handle;
	}
	if (m & DAT_EP_FIELD_RECV_EVD_HANDLE) {
		if (!evd_ok(ia, p->recv_evd_handle, DAT_EVD_DTO_FLAG))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_RECV);
		n->recv_evd = p->recv_evd_handle;
	}
	if (m & DAT_EP_FIELD_REQUEST_EVD_HANDLE) {
		if (!evd_ok(ia, p->request_evd_handle, DAT_EVD_DTO_FLAG))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_REQUEST);
		n->request_evd = p->request_evd_handle;
	}
	if (m & DAT_EP_FIELD_CONNECT_EVD_HANDLE) {
		if (!evd_ok(ia, p->connect_evd_handle, DAT_EVD_CONNECTION_FLAG))
			return DAPL_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_CONN);
		n->connect_evd = p->connect_evd_handle;
	}
	if (m & DAT_EP_FIELD_EP_ATTR_ALL)
		ep_attr_merge(&n->attr, &p->ep_attr, m);
	return ep_attr_check(ia, &n->attr,
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
	if (ep_needs_new_qp(ep, n) || !ep_has_qp(ep->state))
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

/* ---- reset, free ---- */

/* A fresh ring in place of one with stale posts (see ring_release). */
static int ring_renew(struct dapl_cookie_ring *r, struct dapl_ep *ep)
{
	struct dapl_cookie_ring n;

	if (!dapl_cookie_outstanding(r)) {
		r->head = r->tail = 0;
		return 0;
	}
	if (ring_alloc(&n, (DAT_COUNT)r->size, ep))
		return -1;
	ring_release(r);
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
		ep->state = ep_unconfigured(DAT_EP_STATE_UNCONNECTED);
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
	if (ep_has_qp(s))
		ops->qp_destroy(ep);
	dapl_progress_quiesce(ep);

	pz_ref(ep->pz, -1);
	evd_put(ep->recv_evd);
	evd_put(ep->request_evd);
	evd_put(ep->connect_evd);
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
	s = ep_configured(__atomic_load_n(&ep->state, __ATOMIC_RELAXED));
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
	 * any more, but ring_release copes either way. */
	ep_release(ep);
}
