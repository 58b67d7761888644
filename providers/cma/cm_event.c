/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM thread of an IA: rdma_cm events, connect timeouts and deferred
 * upcalls.
 *
 * Each round fetches one event (the channel fd is non-blocking) and
 * handles and acknowledges it inside one cia->lock section, filling a
 * struct cma_up with what to tell udapl; the upcall runs after the lock
 * is dropped.  Acknowledging before the upcall is what lets a consumer
 * call rdma_destroy_id at any time: it waits only for acknowledgements,
 * never for udapl.
 *
 * rdma_cm event -> udapl event:
 *   ESTABLISHED                         ESTABLISHED (with the peer's pdata)
 *   REJECTED, status 28 (consumer)      PEER_REJECTED
 *   REJECTED, other (8: no listener)    NON_PEER_REJECTED
 *   ADDR_ERROR (budget spent), ROUTE_ERROR  UNREACHABLE
 *   UNREACHABLE (CM response timeout)   TIMED_OUT
 *   CONNECT_ERROR                       BROKEN (ACCEPT_ERROR when passive)
 *   DISCONNECTED                        DISCONNECTED (BROKEN if our QP had
 *                                       already failed)
 *   DEVICE_REMOVAL                      BROKEN
 *   our timer (DAT connect timeout)     TIMED_OUT
 * A passive connection that fails before ESTABLISHED reports ACCEPT_ERROR.
 * Each connection reports one terminal event, then it is CLOSED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "cma.h"

/* IB CM reject reasons, as rdma_cm reports them in event->status. */
enum {
	CMA_REJ_INVALID_SERVICE_ID = 8, /* nobody listens on that port */
	CMA_REJ_CONSUMER_DEFINED = 28,	/* rdma_reject by the peer */
};

enum cma_up_kind { CMA_UP_NONE, CMA_UP_EP, CMA_UP_REQUEST, CMA_UP_IA };

/* What the CM thread tells udapl once the lock is dropped. */
struct cma_up {
	enum cma_up_kind kind;
	struct dapl_ep *ep;
	enum dapl_cm_event event;
	struct dapl_sp *sp;
	struct cma_conn *conn;	    /* CMA_UP_REQUEST: the new request */
	struct rdma_cm_id *destroy; /* an id to destroy first */
	struct sockaddr_storage peer;
	DAT_CONN_QUAL peer_port;
	DAT_COUNT plen;
	unsigned char pdata[256];
};

uint64_t cma_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cma_cm_wake(struct cma_ia *cia)
{
	uint64_t one = 1;

	if (write(cia->wake_fd, &one, sizeof(one)) != sizeof(one))
		dapl_dbg(DAPL_DBG_ERR, "cma: cannot wake the CM thread");
}

void cma_timer_set(struct cma_conn *conn, uint64_t deadline)
{
	int linked = !dapl_list_empty(&conn->timer_link);

	conn->deadline = deadline;
	if (!deadline && linked)
		dapl_list_del(&conn->timer_link);
	if (deadline && !linked) {
		dapl_list_add_tail(&conn->cia->timers, &conn->timer_link);
		cma_cm_wake(conn->cia); /* recompute its poll timeout */
	}
}

int cma_note_post(struct cma_ia *cia, struct dapl_ep *ep,
		  enum dapl_cm_event event)
{
	struct cma_note *n = malloc(sizeof(*n));

	if (!n)
		return -1;
	n->ep = ep;
	n->event = event;
	dapl_list_add_tail(&cia->notes, &n->link);
	cma_cm_wake(cia);
	return 0;
}

void cma_note_forget(struct cma_ia *cia, struct dapl_ep *ep)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe (pos, tmp, &cia->notes) {
		struct cma_note *n =
		    dapl_container_of(pos, struct cma_note, link);

		if (n->ep == ep) {
			dapl_list_del(&n->link);
			free(n);
		}
	}
}

/*
 * qp_destroy must return only when no upcall for its EP runs or will
 * run (udapl then recycles the EP).  Bounded: a caller that holds the
 * EP's lock while the upcall waits for it must not hang forever; after
 * the bound the late upcall meets an EP udapl already marked done.
 */
void cma_upcall_wait(struct cma_ia *cia, struct dapl_ep *ep)
{
	struct timespec ts;

	if (pthread_equal(pthread_self(), cia->cm_thread))
		return; /* an upcall destroying its own EP */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	while (cia->cm_upcall_ep == ep || cia->async_upcall_ep == ep)
		if (pthread_cond_timedwait(&cia->upcall_done, &cia->lock, &ts))
			break;
}

/*
 * listen_stop must return only when no connection-request upcall for its
 * service point runs: udapl frees the PSP/RSP and may free its CR EVD
 * next, which such an upcall (past its checks of the SP) would still use.
 * One that starts later finds the SP no longer listening.  Bounded like
 * cma_upcall_wait.
 */
void cma_request_upcall_wait(struct cma_ia *cia, const struct dapl_sp *sp)
{
	struct timespec ts;

	if (pthread_equal(pthread_self(), cia->cm_thread))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	while (cia->cm_upcall_sp == sp)
		if (pthread_cond_timedwait(&cia->upcall_done, &cia->lock, &ts))
			break;
}

void cma_upcall_end(struct cma_ia *cia, struct dapl_ep **slot)
{
	pthread_mutex_lock(&cia->lock);
	*slot = NULL;
	pthread_cond_broadcast(&cia->upcall_done);
	pthread_mutex_unlock(&cia->lock);
}

/* locked: the connection's one terminal event. */
static void cma_final(struct cma_conn *conn, enum dapl_cm_event ev,
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

/* locked: a new connect request on one of our listeners. */
static void cma_cm_request(struct cma_ia *cia, struct rdma_cm_event *ev,
			   struct cma_up *up)
{
	struct cma_sp *csp = ev->listen_id ? ev->listen_id->context : NULL;
	struct cma_conn *conn = calloc(1, sizeof(*conn));
	struct sockaddr *peer = rdma_get_peer_addr(ev->id);

	if (!conn || !csp || csp->kind != CMA_KIND_SP || !csp->sp) {
		free(conn);
		rdma_reject(ev->id, NULL, 0);
		up->destroy = ev->id;
		return;
	}
	conn->kind = CMA_KIND_CONN;
	conn->id = ev->id;
	conn->cia = cia;
	conn->state = CMA_CONN_REQUEST;
	conn->peer_resp_res = ev->param.conn.responder_resources;
	conn->peer_init_depth = ev->param.conn.initiator_depth;
	dapl_list_init(&conn->timer_link);
	ev->id->context = conn;

	up->kind = CMA_UP_REQUEST;
	up->sp = csp->sp;
	up->conn = conn;
	if (peer && cma_addr_len(peer))
		memcpy(&up->peer, peer, cma_addr_len(peer));
	up->peer_port = ntohs(rdma_get_dst_port(ev->id));
	cma_copy_pdata(up, ev);
}

/* locked: the route is known; attach the EP's QP and send the REQ. */
static void cma_cm_route_resolved(struct cma_conn *conn, struct cma_up *up)
{
	struct cma_ep *cep = conn->ep ? conn->ep->prov : NULL;
	struct rdma_conn_param param = {
	    .private_data = conn->plen ? conn->pdata : NULL,
	    .private_data_len = (uint8_t)conn->plen,
	    .responder_resources = conn->resp_res,
	    .initiator_depth = conn->init_depth,
	    .flow_control = 1,
	    .retry_count = conn->cia->retry_count,
	    .rnr_retry_count = 7,
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

static int cma_qp_failed(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	return qp && !ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) &&
	       attr.qp_state == IBV_QPS_ERR;
}

/* locked: the connection is gone, from either side. */
static void cma_cm_disconnected(struct cma_conn *conn, struct cma_up *up)
{
	enum dapl_cm_event ev = DAPL_CM_DISCONNECTED;

	switch (conn->state) {
	case CMA_CONN_ESTABLISHED:
		if (cma_qp_failed(conn->id->qp))
			ev = DAPL_CM_BROKEN;
		/* answer the peer's DREQ; flushes our outstanding WRs */
		rdma_disconnect(conn->id);
		break;
	case CMA_CONN_DISCONNECTING:
		break;
	case CMA_CONN_ACCEPTING:
		ev = DAPL_CM_ACCEPT_ERROR;
		break;
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
static void cma_cm_rejected(struct cma_conn *conn, int status,
			    struct cma_up *up)
{
	dapl_dbg(DAPL_DBG_CM, "cma: rejected, status %d", status);
	if (conn->state == CMA_CONN_ACCEPTING)
		cma_final(conn, DAPL_CM_ACCEPT_ERROR, up);
	else if (status == CMA_REJ_CONSUMER_DEFINED)
		cma_final(conn, DAPL_CM_PEER_REJECTED, up);
	else
		cma_final(conn, DAPL_CM_NON_PEER_REJECTED, up);
}

/* locked: an event on one of our connections. */
static void cma_cm_conn_event(struct cma_conn *conn, struct rdma_cm_event *ev,
			      struct cma_up *up)
{
	int passive = conn->state == CMA_CONN_ACCEPTING ||
		      conn->state == CMA_CONN_REQUEST;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (conn->state != CMA_CONN_ADDR)
			break;
		if (rdma_resolve_route(conn->id, conn->resolve_ms))
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
		cma_cm_rejected(conn, ev->status, up);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (conn->state != CMA_CONN_CONNECTING &&
		    conn->state != CMA_CONN_ACCEPTING)
			break;
		conn->state = CMA_CONN_ESTABLISHED;
		cma_timer_set(conn, 0);
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
static void cma_cm_handle(struct cma_ia *cia, struct rdma_cm_event *ev,
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
		cma_cm_conn_event((struct cma_conn *)kind, ev, up);
		return;
	}
	/* A listener or the anchor: only losing the device matters. */
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		up->kind = CMA_UP_IA;
}

/* A request udapl could not queue: refuse it and forget it. */
static void cma_cm_request_refused(struct cma_ia *cia, struct cma_conn *conn)
{
	struct rdma_cm_id *id;

	pthread_mutex_lock(&cia->lock);
	id = conn->id;
	conn->id = NULL;
	if (id && conn->state == CMA_CONN_REQUEST)
		rdma_reject(id, NULL, 0);
	pthread_mutex_unlock(&cia->lock);
	if (id)
		rdma_destroy_id(id);
	free(conn);
}

/* locked: an EP or request upcall is about to run (see cma_upcall_wait,
 * cma_request_upcall_wait). */
static void cma_up_mark(struct cma_ia *cia, const struct cma_up *up)
{
	if (up->kind == CMA_UP_EP)
		cia->cm_upcall_ep = up->ep;
	else if (up->kind == CMA_UP_REQUEST)
		cia->cm_upcall_sp = up->sp;
}

static void cma_up_run(struct cma_ia *cia, struct cma_up *up)
{
	if (up->destroy)
		rdma_destroy_id(up->destroy);
	switch (up->kind) {
	case CMA_UP_EP:
		dapl_cm_ep_event(up->ep, up->event, up->plen ? up->pdata : NULL,
				 up->plen);
		cma_upcall_end(cia, &cia->cm_upcall_ep);
		break;
	case CMA_UP_REQUEST: {
		int refused = dapl_cm_request(
		    up->sp, up->conn, (struct sockaddr *)&up->peer,
		    up->peer_port, up->plen ? up->pdata : NULL, up->plen);

		/* udapl is done with the SP (cma_request_upcall_wait) */
		pthread_mutex_lock(&cia->lock);
		cia->cm_upcall_sp = NULL;
		pthread_cond_broadcast(&cia->upcall_done);
		pthread_mutex_unlock(&cia->lock);
		if (refused)
			cma_cm_request_refused(cia, up->conn);
		break;
	}
	case CMA_UP_IA:
		dapl_async_ia_error(cia->ia);
		break;
	case CMA_UP_NONE:
		break;
	}
}

/* All pending rdma_cm events, one lock section each. */
static void cma_cm_drain(struct cma_ia *cia)
{
	struct rdma_cm_event *ev;
	struct cma_up up;

	for (;;) {
		up.kind = CMA_UP_NONE;
		up.destroy = NULL;
		up.plen = 0;
		pthread_mutex_lock(&cia->lock);
		if (rdma_get_cm_event(cia->ch, &ev)) {
			pthread_mutex_unlock(&cia->lock);
			return;
		}
		cma_cm_handle(cia, ev, &up);
		rdma_ack_cm_event(ev);
		cma_up_mark(cia, &up);
		pthread_mutex_unlock(&cia->lock);
		cma_up_run(cia, &up);
	}
}

/* locked: one expired deadline, if any. */
static int cma_cm_expire_one(struct cma_ia *cia, uint64_t now,
			     struct cma_up *up)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe (pos, tmp, &cia->timers) {
		struct cma_conn *conn =
		    dapl_container_of(pos, struct cma_conn, timer_link);

		if (conn->deadline > now)
			continue;
		cma_timer_set(conn, 0);
		if (conn->state == CMA_CONN_DISCONNECTING) {
			/* the peer never answered our DREQ */
			cma_final(conn, DAPL_CM_DISCONNECTED, up);
			return 1;
		}
		if (conn->state == CMA_CONN_CLOSED ||
		    conn->state == CMA_CONN_ESTABLISHED)
			return 1;
		/* The DAT connect timeout: abandon the attempt. */
		cma_final(conn, DAPL_CM_TIMED_OUT, up);
		if (conn->id) {
			conn->id->qp = NULL;
			up->destroy = conn->id;
			conn->id = NULL;
		}
		return 1;
	}
	return 0;
}

/* locked: one queued upcall, if any. */
static int cma_cm_note_one(struct cma_ia *cia, struct cma_up *up)
{
	struct cma_note *n;

	if (dapl_list_empty(&cia->notes))
		return 0;
	n = dapl_container_of(cia->notes.next, struct cma_note, link);
	dapl_list_del(&n->link);
	up->kind = CMA_UP_EP;
	up->ep = n->ep;
	up->event = n->event;
	free(n);
	return 1;
}

static void cma_cm_service(struct cma_ia *cia)
{
	struct cma_up up;
	int more;

	do {
		up.kind = CMA_UP_NONE;
		up.destroy = NULL;
		up.plen = 0;
		pthread_mutex_lock(&cia->lock);
		more = cma_cm_expire_one(cia, cma_now_ns(), &up) ||
		       cma_cm_note_one(cia, &up);
		cma_up_mark(cia, &up);
		pthread_mutex_unlock(&cia->lock);
		cma_up_run(cia, &up);
	} while (more);
}

/* locked: poll timeout until the nearest deadline, -1 for none. */
static int cma_cm_timeout(struct cma_ia *cia)
{
	struct dapl_list *pos, *tmp;
	uint64_t now = cma_now_ns(), next = UINT64_MAX;

	dapl_list_for_each_safe (pos, tmp, &cia->timers) {
		struct cma_conn *conn =
		    dapl_container_of(pos, struct cma_conn, timer_link);

		if (conn->deadline < next)
			next = conn->deadline;
	}
	if (next == UINT64_MAX)
		return -1;
	if (next <= now)
		return 0;
	next = (next - now + 999999) / 1000000;
	return next > 60000 ? 60000 : (int)next;
}

static void *cma_cm_thread(void *arg)
{
	struct cma_ia *cia = arg;
	struct pollfd pfd[2] = {
	    {.fd = cia->wake_fd, .events = POLLIN},
	    {.fd = cia->ch->fd, .events = POLLIN},
	};
	uint64_t v;
	int tmo;

	for (;;) {
		pthread_mutex_lock(&cia->lock);
		tmo = cia->stopping ? -2 : cma_cm_timeout(cia);
		pthread_mutex_unlock(&cia->lock);
		if (tmo == -2)
			break;
		if (poll(pfd, 2, tmo) < 0 && errno != EINTR)
			break;
		if ((pfd[0].revents & POLLIN) &&
		    read(cia->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		cma_cm_drain(cia);
		cma_cm_service(cia);
	}
	return NULL;
}

int cma_cm_start(struct cma_ia *cia)
{
	cia->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (cia->wake_fd < 0)
		return -1;
	if (cma_thread_start(&cia->cm_thread, cma_cm_thread, cia,
			     "dapl-cma-cm")) {
		close(cia->wake_fd);
		cia->wake_fd = -1;
		return -1;
	}
	return 0;
}

void cma_cm_stop(struct cma_ia *cia)
{
	struct dapl_list *pos, *tmp;

	pthread_mutex_lock(&cia->lock);
	cia->stopping = 1;
	pthread_mutex_unlock(&cia->lock);
	cma_cm_wake(cia);
	pthread_join(cia->cm_thread, NULL);
	close(cia->wake_fd);
	cia->wake_fd = -1;
	dapl_list_for_each_safe (pos, tmp, &cia->notes) {
		dapl_list_del(pos);
		free(dapl_container_of(pos, struct cma_note, link));
	}
	/* Connections still on the timer list belong to EPs udapl tore
	 * down already; their memory went with cma_conn_drop. */
	dapl_list_init(&cia->timers);
}
