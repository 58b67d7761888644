/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm events and connection timers, run by udapl's progress engine:
 * cma_cm_event is the callback of the IA's event channel, cma_conn_timer
 * the callback of a connection's timer (the DAT connect timeout, the
 * bound of a graceful disconnect).
 *
 * Each call fetches one event (the channel fd is non-blocking) and
 * handles and acknowledges it inside one cia->lock section, filling a
 * struct cma_up with what to tell udapl and opening its upcall bracket;
 * the upcall runs after the lock is dropped.  Acknowledging before the upcall is what lets a consumer
 * call rdma_destroy_id at any time: it waits only for acknowledgements,
 * never for udapl.
 *
 * rdma_cm event -> udapl event:
 *   ESTABLISHED                         ESTABLISHED (with the peer's pdata)
 *   REJECTED, status 28 (consumer) with PEER_REJECTED
 *     our CMA_REJ_CONSUMER header
 *   REJECTED, other (8: no listener;    NON_PEER_REJECTED
 *     28 from the kernel or with our
 *     CMA_REJ_NO_QUAL header)
 *   ADDR_ERROR (budget spent), ROUTE_ERROR  UNREACHABLE
 *   UNREACHABLE (CM response timeout)   TIMED_OUT
 *   CONNECT_ERROR                       BROKEN (ACCEPT_ERROR when passive)
 *   DISCONNECTED                        DISCONNECTED (BROKEN if our QP had
 *                                       already failed); while accepting,
 *                                       ESTABLISHED and then DISCONNECTED
 *   DEVICE_REMOVAL                      BROKEN
 *   our timer (DAT connect timeout)     TIMED_OUT
 * A passive connection that fails before ESTABLISHED reports ACCEPT_ERROR.
 * Each connection reports one terminal event, then it is CLOSED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "cma.h"

/* IB CM reject reasons, as rdma_cm reports them in event->status. */
enum {
	CMA_REJ_INVALID_SERVICE_ID = 8, /* nobody listens on that port */
	CMA_REJ_CONSUMER_DEFINED = 28,	/* rdma_reject by the peer */
};

enum cma_up_kind { CMA_UP_NONE, CMA_UP_EP, CMA_UP_REQUEST, CMA_UP_IA };

/* What the CM callback tells udapl once the lock is dropped. */
struct cma_up {
	enum cma_up_kind kind;
	struct dapl_ep *ep;
	enum dapl_cm_event event;
	int then_disconnected; /* DISCONNECTED follows event */
	struct dapl_sp *sp;
	struct dapl_tp_cr *conn;	    /* CMA_UP_REQUEST: the new request */
	struct rdma_cm_id *destroy; /* an id to destroy first */
	struct sockaddr_storage peer;
	DAT_CONN_QUAL peer_port;
	DAT_COUNT plen;
	unsigned char pdata[256];
};

/* locked: the connection's one terminal event. */
static void cma_final(struct dapl_tp_cr *conn, enum dapl_cm_event ev,
		      struct cma_up *up)
{
	if (conn->state == CMA_CONN_CLOSED)
		return;
	dapl_dbg(DAPL_DBG_CM, "cma: conn %p closed, event %d", (void *)conn,
		 ev);
	conn->state = CMA_CONN_CLOSED;
	cma_timer_set(conn, 0);
	if (conn->ep) {
		up->kind = CMA_UP_EP;
		up->ep = conn->ep;
		up->event = ev;
	}
}

static void cma_copy_pdata(struct cma_up *up, const struct rdma_cm_event *ev)
{
	up->plen = ev->param.conn.private_data_len;
	if (up->plen > (DAT_COUNT)sizeof(up->pdata))
		up->plen = sizeof(up->pdata);
	if (up->plen && ev->param.conn.private_data)
		memcpy(up->pdata, ev->param.conn.private_data, up->plen);
	else
		up->plen = 0;
}

/* Our header of a connect request (cm.c, cma.h): the full qualifier and
 * the consumer's private data length; -1 if it is not ours. */
static int cma_req_hdr(const struct rdma_cm_event *ev, DAT_CONN_QUAL *qual,
		       int *plen)
{
	const unsigned char *d = ev->param.conn.private_data;
	int len = ev->param.conn.private_data_len;
	uint32_t magic, hi, lo;
	uint16_t n;

	if (!d || len < CMA_HDR_LEN)
		return -1;
	memcpy(&magic, d, 4);
	memcpy(&n, d + 4, 2);
	memcpy(&hi, d + 8, 4);
	memcpy(&lo, d + 12, 4);
	if (ntohl(magic) != CMA_HDR_MAGIC || ntohs(n) > len - CMA_HDR_LEN)
		return -1;
	*qual = (DAT_CONN_QUAL)ntohl(hi) << 32 | ntohl(lo);
	*plen = ntohs(n);
	return 0;
}

/* True if a reject is a consumer's dat_cr_reject (cma.h CMA_REJ_CONSUMER). */
static int cma_rej_by_consumer(const struct rdma_cm_event *ev)
{
	const unsigned char *d = ev->param.conn.private_data;
	uint32_t magic, reason;

	if (ev->status != CMA_REJ_CONSUMER_DEFINED || !d ||
	    ev->param.conn.private_data_len < CMA_REJ_LEN)
		return 0;
	memcpy(&magic, d, 4);
	memcpy(&reason, d + 4, 4);
	return ntohl(magic) == CMA_HDR_MAGIC &&
	       ntohl(reason) == CMA_REJ_CONSUMER;
}

/* locked: a new connect request on one of our listeners: the service
 * point whose full qualifier it names gets it, else it is refused as if
 * nobody listened (NON_PEER_REJECTED at the peer), as it is when that
 * service point is being freed. */
static void cma_cm_request(struct dapl_tp_ia *cia, struct rdma_cm_event *ev,
			   struct cma_up *up)
{
	struct cma_port *port = ev->listen_id ? ev->listen_id->context : NULL;
	struct dapl_tp_cr *conn = calloc(1, sizeof(*conn));
	struct sockaddr *peer = rdma_get_peer_addr(ev->id);
	struct dapl_tp_sp *csp = NULL;
	DAT_CONN_QUAL qual = 0;
	int plen = 0;

	if (port && port->kind == CMA_KIND_SP && !cma_req_hdr(ev, &qual, &plen))
		csp = verbs_port_sp(&port->vp, qual);
	if (!conn || !csp || !csp->sp || dapl_upcall_begin(csp->sp)) {
		dapl_dbg(DAPL_DBG_CM, "cma: request for qualifier %llu: %s",
			 (unsigned long long)qual,
			 csp ? "refused" : "no such service point");
		free(conn);
		cma_reject(ev->id, CMA_REJ_NO_QUAL);
		up->destroy = ev->id;
		return;
	}
	conn->kind = CMA_KIND_CONN;
	conn->id = ev->id;
	conn->cia = cia;
	conn->state = CMA_CONN_REQUEST;
	conn->peer_resp_res = ev->param.conn.responder_resources;
	conn->peer_init_depth = ev->param.conn.initiator_depth;
	cma_timer_init(conn);
	ev->id->context = conn;

	up->kind = CMA_UP_REQUEST;
	up->sp = csp->sp;
	up->conn = conn;
	if (peer && dapl_sockaddr_len(peer))
		memcpy(&up->peer, peer, dapl_sockaddr_len(peer));
	up->peer_port = ntohs(rdma_get_dst_port(ev->id));
	/* the consumer's private data, after our header */
	up->plen = plen;
	if (plen)
		memcpy(up->pdata,
		       (const unsigned char *)ev->param.conn.private_data +
			   CMA_HDR_LEN,
		       plen);
}

/* locked: the route is known; attach the EP's QP and send the REQ. */
static void cma_cm_route_resolved(struct dapl_tp_cr *conn, struct cma_up *up)
{
	struct dapl_tp_ep *cep = conn->ep ? dapl_ep_tp(conn->ep) : NULL;
	struct rdma_conn_param param = {
	    .private_data = conn->plen ? conn->pdata : NULL,
	    .private_data_len = (uint8_t)conn->plen,
	    .responder_resources = conn->resp_res,
	    .initiator_depth = conn->init_depth,
	    .flow_control = 1,
	    .retry_count = conn->cia->cm->retry_count,
	    .rnr_retry_count = conn->cia->cm->rnr_retry,
	};

	if (!cep || !cep->qp) {
		cma_final(conn, DAPL_CM_BROKEN, up);
		return;
	}
	if (conn->id->verbs != cep->qp->context) {
		/* The route leaves through another device than the IA's. */
		dapl_dbg(DAPL_DBG_ERR, "cma: route uses another device");
		cma_final(conn, DAPL_CM_UNREACHABLE, up);
		return;
	}
	conn->id->qp = cep->qp;
	if (rdma_connect(conn->id, &param)) {
		dapl_dbg(DAPL_DBG_ERR, "cma: rdma_connect: %s",
			 strerror(errno));
		conn->id->qp = NULL;
		cma_final(conn, DAPL_CM_UNREACHABLE, up);
		return;
	}
	conn->state = CMA_CONN_CONNECTING;
}

/* locked: the connection is gone, from either side. */
static void cma_cm_disconnected(struct dapl_tp_cr *conn, struct cma_up *up)
{
	enum dapl_cm_event ev = DAPL_CM_DISCONNECTED;

	switch (conn->state) {
	case CMA_CONN_ESTABLISHED:
		if (verbs_qp_failed(conn->id->qp))
			ev = DAPL_CM_BROKEN;
		/* answer the peer's DREQ; flushes our outstanding WRs */
		rdma_disconnect(conn->id);
		break;
	case CMA_CONN_DISCONNECTING:
		break;
	case CMA_CONN_ACCEPTING:
		/*
		 * The peer's DREQ came before its RTU: the RTU was lost, or
		 * the kernel's CM (a per-CPU workqueue, not an ordered one)
		 * handled the DREQ first.  A peer sends a DREQ only from an
		 * established connection, so it had our REP: the connection
		 * was established, and the consumer hears so (dat_cr_accept(3DAT):
		 * success is reported as DAT_CONNECTION_EVENT_ESTABLISHED),
		 * then that it ended.  ACCEPT_COMPLETION_ERROR here would
		 * contradict what the peer saw.
		 */
		rdma_disconnect(conn->id);
		cma_final(conn, DAPL_CM_ESTABLISHED, up);
		up->then_disconnected = 1;
		return;
	case CMA_CONN_CLOSED:
		/* after an abrupt disconnect: just finish the handshake */
		if (conn->id && !conn->local_disc)
			rdma_disconnect(conn->id);
		return;
	default:
		ev = DAPL_CM_BROKEN;
		break;
	}
	cma_final(conn, ev, up);
}

/* locked: the connect request was refused. */
static void cma_cm_rejected(struct dapl_tp_cr *conn,
			    const struct rdma_cm_event *ev, struct cma_up *up)
{
	int status = ev->status;

	dapl_dbg(DAPL_DBG_CM, "cma: rejected, status %d", status);
	if (conn->state == CMA_CONN_ACCEPTING)
		cma_final(conn, DAPL_CM_ACCEPT_ERROR, up);
	else if (cma_rej_by_consumer(ev))
		cma_final(conn, DAPL_CM_PEER_REJECTED, up);
	else
		cma_final(conn, DAPL_CM_NON_PEER_REJECTED, up);
}

/* locked: an event on one of our connections. */
static void cma_cm_conn_event(struct dapl_tp_cr *conn, struct rdma_cm_event *ev,
			      struct cma_up *up)
{
	int passive = conn->state == CMA_CONN_ACCEPTING ||
		      conn->state == CMA_CONN_REQUEST;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (conn->state != CMA_CONN_ADDR)
			break;
		if (rdma_resolve_route(conn->id, conn->route_ms))
			cma_final(conn, DAPL_CM_UNREACHABLE, up);
		else
			conn->state = CMA_CONN_ROUTE;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (conn->state == CMA_CONN_ROUTE)
			cma_cm_route_resolved(conn, up);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		/* one step ran out (see CMA_ADDR_STEP_MS): the next one */
		if (conn->state == CMA_CONN_ADDR && ev->status == -ETIMEDOUT &&
		    !cma_resolve_addr_step(conn))
			break;
		cma_final(conn, DAPL_CM_UNREACHABLE, up);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		/* DAPL_CM_ROUTE_RETRY_COUNT: another try after a timeout */
		if (conn->state == CMA_CONN_ROUTE && ev->status == -ETIMEDOUT &&
		    conn->route_left > 0) {
			conn->route_left--;
			if (!rdma_resolve_route(conn->id, conn->route_ms))
				break;
		}
		cma_final(conn, DAPL_CM_UNREACHABLE, up);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		cma_final(conn,
			  passive ? DAPL_CM_ACCEPT_ERROR : DAPL_CM_TIMED_OUT,
			  up);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		cma_final(conn, passive ? DAPL_CM_ACCEPT_ERROR : DAPL_CM_BROKEN,
			  up);
		break;
	case RDMA_CM_EVENT_REJECTED:
		cma_cm_rejected(conn, ev, up);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (conn->state != CMA_CONN_CONNECTING &&
		    conn->state != CMA_CONN_ACCEPTING)
			break;
		conn->state = CMA_CONN_ESTABLISHED;
		cma_timer_set(conn, 0);
		cma_set_rnr_timer(conn);
		if (conn->ep) {
			up->kind = CMA_UP_EP;
			up->ep = conn->ep;
			up->event = DAPL_CM_ESTABLISHED;
			cma_copy_pdata(up, ev);
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		cma_cm_disconnected(conn, up);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		cma_final(conn, DAPL_CM_BROKEN, up);
		break;
	default:
		/* TIMEWAIT_EXIT, ADDR_CHANGE, CONNECT_RESPONSE (only without
		 * a QP on the id, which we never do), multicast: nothing. */
		break;
	}
}

/* locked */
static void cma_cm_handle(struct dapl_tp_ia *cia, struct rdma_cm_event *ev,
			  struct cma_up *up)
{
	enum cma_kind *kind = ev->id ? ev->id->context : NULL;

	dapl_dbg(DAPL_DBG_CM, "cma: %s status %d id %p",
		 rdma_event_str(ev->event), ev->status, (void *)ev->id);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		cma_cm_request(cia, ev, up);
		return;
	}
	if (kind && *kind == CMA_KIND_CONN) {
		cma_cm_conn_event((struct dapl_tp_cr *)kind, ev, up);
		return;
	}
	/* A listener or the anchor: only losing the device matters. */
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		up->kind = CMA_UP_IA;
}

/* A request udapl could not queue (its PSP being freed, its CR EVD
 * full): refuse it, as nobody listening, and forget it. */
static void cma_cm_request_refused(struct dapl_tp_ia *cia,
				   struct dapl_tp_cr *conn)
{
	struct rdma_cm_id *id;

	pthread_mutex_lock(&cia->lock);
	id = conn->id;
	conn->id = NULL;
	if (id && conn->state == CMA_CONN_REQUEST)
		cma_reject(id, CMA_REJ_NO_QUAL);
	pthread_mutex_unlock(&cia->lock);
	if (id)
		rdma_destroy_id(id);
	cma_conn_free(conn);
}

/* locked: opens the bracket of an EP or IA upcall about to run (that of a
 * request was opened by cma_cm_request); an object being freed gets
 * none. */
static void cma_up_begin(struct dapl_tp_ia *cia, struct cma_up *up)
{
	if ((up->kind == CMA_UP_EP && dapl_upcall_begin(up->ep)) ||
	    (up->kind == CMA_UP_IA && dapl_upcall_begin(cia->ia)))
		up->kind = CMA_UP_NONE;
}

/* The upcall, without the lock.  The IA may be gone when it returns (a
 * CNO agent may close it): nothing after it touches cia but a refused
 * request, which the consumer cannot have closed the IA for. */
static void cma_up_run(struct dapl_tp_ia *cia, struct cma_up *up)
{
	struct dapl_ia *ia = cia->ia;

	if (up->destroy)
		rdma_destroy_id(up->destroy);
	switch (up->kind) {
	case CMA_UP_EP:
		dapl_cm_ep_event(up->ep, up->event, up->plen ? up->pdata : NULL,
				 up->plen);
		if (up->then_disconnected)
			dapl_cm_ep_event(up->ep, DAPL_CM_DISCONNECTED, NULL, 0);
		dapl_upcall_end(up->ep);
		break;
	case CMA_UP_REQUEST: {
		int refused = dapl_cm_request(
		    up->sp, up->conn, (struct sockaddr *)&up->peer,
		    up->peer_port, up->plen ? up->pdata : NULL, up->plen);

		dapl_upcall_end(up->sp);
		if (refused)
			cma_cm_request_refused(cia, up->conn);
		break;
	}
	case CMA_UP_IA:
		dapl_async_ia_error(ia);
		dapl_upcall_end(ia);
		break;
	case CMA_UP_NONE:
		break;
	}
}

static void cma_up_clear(struct cma_up *up)
{
	up->kind = CMA_UP_NONE;
	up->then_disconnected = 0;
	up->destroy = NULL;
	up->plen = 0;
}

/* The engine's callback for the event channel: one event, 1 if there was
 * one (there may be more). */
int cma_cm_event(void *arg)
{
	struct dapl_tp_ia *cia = arg;
	struct rdma_cm_event *ev;
	struct cma_up up;

	cma_up_clear(&up);
	pthread_mutex_lock(&cia->lock);
	if (rdma_get_cm_event(cia->cm->ch, &ev)) {
		pthread_mutex_unlock(&cia->lock);
		return 0;
	}
	cma_cm_handle(cia, ev, &up);
	rdma_ack_cm_event(ev);
	cma_up_begin(cia, &up);
	pthread_mutex_unlock(&cia->lock);
	cma_up_run(cia, &up);
	return 1;
}

/* A connection's timer expired (cm.c arms it; ia.c gives this to
 * cm->conn_timer at open). */
void cma_conn_timer(struct dapl_timer *t)
{
	struct dapl_tp_cr *conn = dapl_container_of(t, struct dapl_tp_cr, timer);
	struct dapl_tp_ia *cia = conn->cia;
	struct cma_up up;

	cma_up_clear(&up);
	pthread_mutex_lock(&cia->lock);
	if (conn->state == CMA_CONN_DISCONNECTING) {
		/* the peer never answered our DREQ */
		cma_final(conn, DAPL_CM_DISCONNECTED, &up);
	} else if (conn->state == CMA_CONN_ESTABLISHED && conn->sq_drain) {
		/* the send queue did not drain in time: the DREQ now */
		if (cma_send_dreq(conn, 0))
			cma_final(conn, DAPL_CM_DISCONNECTED, &up);
	} else if (conn->state != CMA_CONN_CLOSED &&
		   conn->state != CMA_CONN_ESTABLISHED) {
		/* The DAT connect timeout: abandon the attempt. */
		cma_final(conn, DAPL_CM_TIMED_OUT, &up);
		if (conn->id) {
			conn->id->qp = NULL;
			up.destroy = conn->id;
			conn->id = NULL;
		}
	}
	cma_up_begin(cia, &up);
	pthread_mutex_unlock(&cia->lock);
	/* conn may be freed from here on (the upcall's consequences) */
	cma_up_run(cia, &up);
}
