/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection management: the active side (connect, dup_connect),
 * disconnect, and the connection and async upcalls a transport makes
 * from the progress engine.  The service points (PSP, RSP) and the
 * connection requests (CR) are sp.c's.
 *
 * EP states (DAT 1.2 EP state table):
 *   UNCONNECTED --connect--> ACTIVE_CONNECTION_PENDING --established-->
 *   CONNECTED; a reject, timeout or unreachable peer --> DISCONNECTED.
 *   UNCONNECTED --rsp_create--> RESERVED --CR arrives-->
 *   PASSIVE_CONNECTION_PENDING (dat_rsp_create(3DAT)) --reject-->
 *   UNCONNECTED.
 *   UNCONNECTED (PSP) or PASSIVE (RSP) --cr_accept--> COMPLETION_PENDING
 *   --established--> CONNECTED, or --accept error--> DISCONNECTED.
 *   CONNECTED --graceful disconnect--> DISCONNECT_PENDING --disconnected-->
 *   DISCONNECTED; an abrupt disconnect goes to DISCONNECTED at once and so
 *   does a peer's disconnect or a broken link.
 *   DISCONNECTED --dat_ep_reset--> UNCONNECTED (ep.c).
 *
 * Locking: ep->lock guards the EP's state and connection data.  Calls
 * into the provider's CM (connect, accept, disconnect, listen) are made
 * without it, because the progress engine's thread may be in an upcall for
 * the same EP.  Connection events are posted with ep->lock held (order
 * IA -> EP -> EVD), so that an event and the state it reports can never
 * be overtaken by another event of the same EP.  ep->cm_done marks that
 * the connection attempt's last event was posted: later upcalls for it
 * are dropped.
 */
#include <string.h>

#include "udapl.h"
#include "slots.h"
#include "cm_int.h"

#define QOS_ALL                                                                \
	(DAT_QOS_BEST_EFFORT | DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | \
	 DAT_QOS_ECONOMY | DAT_QOS_PREMIUM)

/* ---- events ---- */

/* Posts a connection event of ep with ep->pdata; called with ep->lock. */
static void post_conn_event(struct dapl_ep *ep, DAT_EVENT_NUMBER number)
{
	DAT_EVENT ev;

	if (!ep->connect_evd)
		return; /* the consumer is not interested */
	memset(&ev, 0, sizeof(ev));
	ev.event_number = number;
	ev.evd_handle = ep->connect_evd;
	ev.event_data.connect_event_data.ep_handle = ep;
	ev.event_data.connect_event_data.private_data_size = ep->pdata_len;
	ev.event_data.connect_event_data.private_data =
	    ep->pdata_len ? ep->pdata : NULL;
	/* dat_ep_disconnect(3DAT): on an EVD that also takes the EP's DTO
	 * completions, those already complete precede the end */
	if (number == DAT_CONNECTION_EVENT_ESTABLISHED)
		dapl_evd_post(ep->connect_evd, &ev);
	else
		dapl_evd_post_end(ep->connect_evd, &ev);
}

static void ep_set_pdata(struct dapl_ep *ep, const void *pdata, DAT_COUNT plen)
{
	if (!pdata || plen <= 0) {
		ep->pdata_len = 0;
		return;
	}
	if ((size_t)plen > sizeof(ep->pdata))
		plen = sizeof(ep->pdata);
	memcpy(ep->pdata, pdata, plen);
	ep->pdata_len = plen;
}

/* A failed connection attempt: which event, or 0 if none is due. */
static DAT_EVENT_NUMBER cm_failure(DAT_EP_STATE s, DAT_EVENT_NUMBER active)
{
	if (s == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
		return active;
	if (s == DAT_EP_STATE_COMPLETION_PENDING)
		return DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR;
	return 0;
}

/* The end of an established connection: which event, or 0. */
static DAT_EVENT_NUMBER cm_end(DAT_EP_STATE s, DAT_EVENT_NUMBER number)
{
	if (s == DAT_EP_STATE_CONNECTED || s == DAT_EP_STATE_DISCONNECT_PENDING)
		return number;
	return cm_failure(s, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
}

/* Moves the EP for a CM event; returns the DAT event to post, or 0. */
static DAT_EVENT_NUMBER cm_transition(struct dapl_ep *ep, enum dapl_cm_event e)
{
	DAT_EP_STATE s = ep->state;
	DAT_EVENT_NUMBER n;

	if (ep->cm_done)
		return 0; /* aborted, freed, or already reported */
	switch (e) {
	case DAPL_CM_ESTABLISHED:
		if (s != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING &&
		    s != DAT_EP_STATE_COMPLETION_PENDING)
			return 0;
		ep->state = DAT_EP_STATE_CONNECTED;
		return DAT_CONNECTION_EVENT_ESTABLISHED;
	case DAPL_CM_PEER_REJECTED:
		n = cm_failure(s, DAT_CONNECTION_EVENT_PEER_REJECTED);
		break;
	case DAPL_CM_NON_PEER_REJECTED:
		n = cm_failure(s, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
		break;
	case DAPL_CM_UNREACHABLE:
		n = cm_failure(s, DAT_CONNECTION_EVENT_UNREACHABLE);
		break;
	case DAPL_CM_TIMED_OUT:
		n = cm_failure(s, DAT_CONNECTION_EVENT_TIMED_OUT);
		break;
	case DAPL_CM_ACCEPT_ERROR:
		n = cm_failure(s, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
		break;
	case DAPL_CM_DISCONNECTED:
		n = cm_end(s, DAT_CONNECTION_EVENT_DISCONNECTED);
		break;
	case DAPL_CM_BROKEN:
		n = cm_end(s, DAT_CONNECTION_EVENT_BROKEN);
		break;
	default:
		return 0;
	}
	if (!n)
		return 0;
	ep->state = DAT_EP_STATE_DISCONNECTED;
	ep->cm_done = 1;
	return n;
}

void dapl_cm_ep_event(struct dapl_ep *ep, enum dapl_cm_event event,
		      const void *pdata, DAT_COUNT plen)
{
	DAT_EVENT_NUMBER n;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return;
	dapl_lock(&ep->lock);
	n = cm_transition(ep, event);
	if (n) {
		ep_set_pdata(ep, pdata, plen);
		post_conn_event(ep, n);
	}
	dapl_unlock(&ep->lock);
	dapl_dbg(DAPL_DBG_CM, "ep %p: cm event %d -> DAT event 0x%x",
		 (void *)ep, (int)event, (unsigned)n);
}

void dapl_async_ep_error(struct dapl_ep *ep, DAT_EVENT_NUMBER number)
{
	DAT_COUNT reason = number == DAT_ASYNC_ERROR_EP_BROKEN
			       ? DAT_EP_TRANSFER_TO_ERROR
			       : DAT_EP_OTHER_ERROR;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return;
	dapl_evd_post_async(ep->obj.ia, number, ep, reason);
}

/* ---- active side ---- */

/* The checks shared by connect and dup_connect; args are the subtypes
 * of timeout, private_data_size, private_data and qos. */
static DAT_RETURN connect_args(struct dapl_ep *ep, DAT_TIMEOUT timeout,
			       DAT_COUNT plen, const void *pdata, DAT_QOS qos,
			       const DAT_RETURN_SUBTYPE arg[4])
{
	if (!timeout) /* "Values must be positive" */
		return bad_arg(arg[0]);
	if (plen < 0 || plen > ep->obj.ia->caps.max_private_data)
		return bad_arg(arg[1]);
	if (plen && !pdata)
		return bad_arg(arg[2]);
	if (qos & ~QOS_ALL)
		return bad_arg(arg[3]);
	if (qos & ~DAPL_QOS_SUPPORTED)
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

/* UNCONNECTED -> ACTIVE_CONNECTION_PENDING, then the provider's connect. */
static DAT_RETURN ep_start_connect(struct dapl_ep *ep,
				   const struct sockaddr *remote,
				   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
				   const void *pdata, DAT_COUNT plen)
{
	struct sockaddr_storage addr;
	DAT_RETURN rc;

	/* A copy: dup_connect's source may change under us. */
	memset(&addr, 0, sizeof(addr));
	memcpy(&addr, remote, dapl_sockaddr_len(remote));
	dapl_lock(&ep->lock);
	if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		rc = dapl_ep_state_error(ep->state);
		dapl_unlock(&ep->lock);
		return rc;
	}
	ep->state = DAT_EP_STATE_ACTIVE_CONNECTION_PENDING;
	ep->cm_done = 0;
	ep->pdata_len = 0;
	ep->remote_addr = addr;
	ep->remote_qual = qual;
	dapl_unlock(&ep->lock);

	rc = ep->obj.ia->ops->connect(ep, (struct sockaddr *)&addr, qual,
				      timeout, pdata, plen);
	if (rc) {
		/* A provider that fails connect reports no event for it. */
		dapl_lock(&ep->lock);
		if (ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
			ep->state = DAT_EP_STATE_UNCONNECTED;
		memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
		ep->remote_qual = 0;
		dapl_unlock(&ep->lock);
	}
	return rc;
}

DAT_RETURN
dapl_ep_connect(DAT_EP_HANDLE ep_handle, DAT_IA_ADDRESS_PTR remote_ia_address,
		DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
		DAT_COUNT private_data_size, const DAT_PVOID private_data,
		DAT_QOS quality_of_service, DAT_CONNECT_FLAGS connect_flags)
{
	static const DAT_RETURN_SUBTYPE arg[4] = {
	    DAT_INVALID_ARG4, DAT_INVALID_ARG5, DAT_INVALID_ARG6,
	    DAT_INVALID_ARG7};
	struct dapl_ep *ep = ep_handle;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!remote_ia_address)
		return bad_arg(DAT_INVALID_ARG2);
	if (!dapl_sockaddr_len(remote_ia_address))
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNSUPPORTED);
	rc = connect_args(ep, timeout, private_data_size, private_data,
			  quality_of_service, arg);
	if (rc)
		return rc;
	if (connect_flags & ~DAT_CONNECT_MULTIPATH_FLAG)
		return bad_arg(DAT_INVALID_ARG8);
	if (connect_flags & DAT_CONNECT_MULTIPATH_FLAG) /* not supported */
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	return ep_start_connect(ep, remote_ia_address, remote_conn_qual,
				timeout, private_data, private_data_size);
}

DAT_RETURN dapl_ep_dup_connect(DAT_EP_HANDLE ep_handle,
			       DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
			       DAT_COUNT private_data_size,
			       const DAT_PVOID private_data,
			       DAT_QOS quality_of_service)
{
	static const DAT_RETURN_SUBTYPE arg[4] = {
	    DAT_INVALID_ARG3, DAT_INVALID_ARG4, DAT_INVALID_ARG5,
	    DAT_INVALID_ARG6};
	struct dapl_ep *ep = ep_handle, *dup = ep_dup_handle;
	struct sockaddr_storage addr;
	DAT_CONN_QUAL qual;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!dapl_obj_ok(dup, DAT_HANDLE_TYPE_EP) || dup->obj.ia != ep->obj.ia)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	rc = connect_args(ep, timeout, private_data_size, private_data,
			  quality_of_service, arg);
	if (rc)
		return rc;
	/* The remote end of a connected EP: its peer's address and the
	 * qualifier it connected to. */
	dapl_lock(&dup->lock);
	if (dup->state != DAT_EP_STATE_CONNECTED) {
		rc = dapl_ep_state_error(dup->state);
		dapl_unlock(&dup->lock);
		return rc;
	}
	addr = dup->remote_addr;
	qual = dup->remote_qual;
	dapl_unlock(&dup->lock);
	return ep_start_connect(ep, (struct sockaddr *)&addr, qual, timeout,
				private_data, private_data_size);
}

/* ---- disconnect ---- */

DAT_RETURN dapl_ep_disconnect(DAT_EP_HANDLE ep_handle,
			      DAT_CLOSE_FLAGS close_flags)
{
	struct dapl_ep *ep = ep_handle;
	DAT_EP_STATE s;
	int abrupt;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (close_flags != DAT_CLOSE_ABRUPT_FLAG &&
	    close_flags != DAT_CLOSE_GRACEFUL_FLAG)
		return bad_arg(DAT_INVALID_ARG2);

	dapl_lock(&ep->lock);
	s = ep->state;
	switch (s) {
	case DAT_EP_STATE_DISCONNECTED:
		dapl_unlock(&ep->lock);
		return DAT_SUCCESS; /* a no-op */
	case DAT_EP_STATE_CONNECTED:
		abrupt = close_flags == DAT_CLOSE_ABRUPT_FLAG;
		break;
	case DAT_EP_STATE_DISCONNECT_PENDING:
		if (close_flags == DAT_CLOSE_GRACEFUL_FLAG) {
			dapl_unlock(&ep->lock);
			return DAT_SUCCESS; /* "has no effect" */
		}
		abrupt = 1;
		break;
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_COMPLETION_PENDING:
		abrupt = 1; /* either flag aborts the establishment */
		break;
	default:
		rc = dapl_ep_state_error(s);
		dapl_unlock(&ep->lock);
		return rc;
	}
	if (abrupt) {
		/* Done now: the event goes out here and whatever the CM
		 * reports later about this connection is dropped.  The
		 * provider flushes the outstanding DTOs. */
		ep->state = DAT_EP_STATE_DISCONNECTED;
		ep->cm_done = 1;
		ep->pdata_len = 0;
		post_conn_event(ep, DAT_CONNECTION_EVENT_DISCONNECTED);
	} else {
		ep->state = DAT_EP_STATE_DISCONNECT_PENDING;
	}
	dapl_unlock(&ep->lock);

	rc = ep->obj.ia->ops->disconnect(ep, abrupt);
	if (rc && !abrupt) {
		dapl_lock(&ep->lock);
		if (ep->state == DAT_EP_STATE_DISCONNECT_PENDING)
			ep->state = DAT_EP_STATE_CONNECTED;
		dapl_unlock(&ep->lock);
		return rc;
	}
	/* An abrupt disconnect has happened for the consumer whatever the
	 * transport said. */
	return DAT_SUCCESS;
}
