/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection management ops over TCP sockets: listen, connect, accept,
 * reject, disconnect; and the hooks the verbs glue calls.
 *
 * A connection's life (scm.h says why one TCP connection per DAT one):
 *   active                                passive
 *   connect() to IA address:port(qual)
 *                                         accept(): REQ_WAIT
 *   REQ (qualifier, QP, PSN, GID, pdata)  ->  the SP of that qualifier
 *                                         gets a CR (REQUEST), or REJ
 *   <- REJ (consumer or "no such qualifier"): PEER_/NON_PEER_REJECTED
 *   <- REP (QP, PSN, GID, pdata)          dat_cr_accept: QP to RTR and
 *                                         RTS, then REP (ACCEPTING)
 *   QP to RTR, RTS; RTU; ESTABLISHED  ->  ESTABLISHED
 *   DREQ (QP to ERR: flushed)         ->  QP to ERR, DREP, DISCONNECTED
 *   <- DREP: DISCONNECTED                 (either side may start it)
 * The socket's end without a DREQ: BROKEN when established (the peer
 * process died or its host went), ACCEPT_COMPLETION_ERROR while
 * accepting, NON_PEER_REJECTED while connecting (the host answered, its
 * CM did not: dat_ep_connect(3DAT)'s "all reasons ... except timeout,
 * remote host not reachable, and remote peer reject"), as is a refused
 * TCP connect; a host or route that is not there UNREACHABLE; the DAT
 * timeout TIMED_OUT.  A message that is not ours, or not one the state
 * expects, ends the connection the same way as the socket's end (the
 * peer cannot be trusted any further).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "scm.h"

int scm_send(struct dapl_tp_cr *conn, const struct scm_wire *m)
{
	uint8_t buf[SCM_WIRE_MAX];
	int len = scm_wire_encode(m, buf, sizeof(buf));

	/* a few hundred bytes into a socket that has sent only as much:
	 * it fits whole, or the connection is dead */
	if (len < 0 || conn->fd < 0 ||
	    send(conn->fd, buf, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) !=
		len)
		return -1;
	return 0;
}

int scm_send_type(struct dapl_tp_cr *conn, enum scm_msg type, uint8_t status)
{
	struct scm_wire m;

	memset(&m, 0, sizeof(m));
	m.type = (uint8_t)type;
	m.status = status;
	return scm_send(conn, &m);
}

void scm_conn_close_fd(struct dapl_tp_cr *conn)
{
	if (conn->fd < 0)
		return;
	close(conn->fd); /* leaves the epoll set with it */
	conn->fd = -1;
}

struct dapl_tp_cr *scm_conn_new(struct dapl_tp_ia *cia)
{
	struct dapl_tp_cr *conn = calloc(1, sizeof(*conn));

	if (!conn)
		return NULL;
	conn->kind = SCM_KIND_CONN;
	conn->fd = -1;
	conn->cia = cia;
	/* the first PSN: anything of 24 bits a stale packet of an earlier
	 * QP of the same number is unlikely to carry */
	conn->psn = (uint32_t)((dapl_now_ns() >> 10) ^ (uintptr_t)conn) &
		    0xffffff;
	dapl_timer_init(&conn->timer, cia->ia, cia->cm->conn_timer);
	dapl_list_add_tail(&cia->cm->conns, &conn->link);
	return conn;
}

void scm_timer_set(struct dapl_tp_cr *conn, uint64_t deadline)
{
	if (deadline)
		dapl_timer_arm(&conn->timer, deadline);
	else
		dapl_timer_cancel(&conn->timer);
}

void scm_conn_unlink(struct dapl_tp_cr *conn)
{
	dapl_list_del(&conn->link);
	dapl_list_init(&conn->link);
	scm_conn_close_fd(conn);
	conn->state = SCM_CONN_CLOSED;
	scm_timer_set(conn, 0);
}

void scm_conn_free(struct dapl_tp_cr *conn)
{
	/* its timer's callback may be running on the engine's thread */
	dapl_timer_cancel_sync(&conn->timer);
	free(conn);
}

/* Watches fd for the IA's engine (level-triggered), naming obj. */
static int scm_watch(struct verbs_cm *cm, int fd, uint32_t events, void *obj)
{
	struct epoll_event e = {.events = events, .data.ptr = obj};

	return epoll_ctl(cm->epfd, EPOLL_CTL_ADD, fd, &e);
}

static uint8_t scm_min_u8(long a, long b)
{
	long m = a < b ? a : b;

	return m < 0 ? 0 : m > 255 ? 255 : (uint8_t)m;
}

/* The RDMA read depths our EP allows (the device's limit at most). */
static void scm_conn_depths(struct dapl_tp_cr *conn, struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = conn->cia;

	conn->resp_res = scm_min_u8(dapl_ep_attr(ep)->max_rdma_read_in,
				    cia->dattr.max_qp_rd_atom);
	conn->init_depth = scm_min_u8(dapl_ep_attr(ep)->max_rdma_read_out,
				      cia->dattr.max_qp_init_rd_atom);
}

/* ---- listeners (their service points: providers/verbs/listen.c) ---- */

/* A new listening socket on the IA's address and port (0: any), watched
 * by the engine. */
static DAT_RETURN scm_port_open(struct dapl_tp_ia *cia, uint16_t port,
				struct verbs_port **out)
{
	struct sockaddr_in sin = cia->cm->addr;
	socklen_t sl = sizeof(sin);
	struct scm_port *p;
	int one = 1, err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	p->kind = SCM_KIND_PORT;
	dapl_list_init(&p->vp.sps);
	dapl_list_init(&p->vp.link);
	p->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		free(p);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	/* a listener again on the port of one whose connections linger in
	 * TIME_WAIT (a server started again) */
	setsockopt(p->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_port = htons(port);
	if (bind(p->fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(p->fd, SOMAXCONN) ||
	    getsockname(p->fd, (struct sockaddr *)&sin, &sl) ||
	    (p->vp.port = ntohs(sin.sin_port),
	     scm_watch(cia->cm, p->fd, EPOLLIN, p))) {
		err = errno;
		close(p->fd);
		free(p);
		return err == EADDRINUSE
			   ? DAPL_ERR(DAT_CONN_QUAL_IN_USE, 0)
			   : verbs_errno_to_dat(err, DAT_RESOURCE_MEMORY);
	}
	*out = &p->vp;
	return DAT_SUCCESS;
}

/* The socket closes under the lock the engine reads its events in, so no
 * event of it is handled later; the memory goes after. */
static void scm_port_close(struct dapl_tp_ia *cia, struct verbs_port *vp)
{
	struct scm_port *p = dapl_container_of(vp, struct scm_port, vp);

	pthread_mutex_lock(&cia->lock);
	close(p->fd);
	pthread_mutex_unlock(&cia->lock);
	free(p);
}

/* ---- the hooks providers/verbs calls (verbs.h struct verbs_cm_ops) ---- */

/* locked: an EP lets go of its connection; the peer hears a DREQ if it
 * was connected (DISCONNECTED there, as an IB CM's DREQ at an rdma_cm
 * id's destruction) */
static struct dapl_tp_cr *scm_conn_detach(struct dapl_tp_ep *cep)
{
	struct dapl_tp_cr *conn = cep->conn;

	cep->conn = NULL;
	if (!conn)
		return NULL;
	conn->ep = NULL;
	if (conn->state == SCM_CONN_ESTABLISHED ||
	    conn->state == SCM_CONN_ACCEPTING)
		scm_send_type(conn, SCM_MSG_DREQ, 0);
	scm_conn_unlink(conn);
	return conn;
}

static void scm_cm_drop(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct dapl_tp_cr *conn;

	if (!cep)
		return;
	pthread_mutex_lock(&cia->lock);
	conn = scm_conn_detach(cep);
	pthread_mutex_unlock(&cia->lock);
	if (conn)
		scm_conn_free(conn);
}

/* locked (providers/verbs/conn.c) */
static int scm_conn_live(const struct dapl_tp_cr *conn)
{
	return conn->state != SCM_CONN_CLOSED;
}

/* locked: a completion failed other than by a flush: the connection
 * ends here as BROKEN (the glue has the engine report it), and the peer
 * hears a DREQ if it still can. */
static int scm_conn_end_broken(struct dapl_tp_cr *conn)
{
	if (conn->state != SCM_CONN_ESTABLISHED)
		return 0;
	dapl_dbg(DAPL_DBG_CM, "scm: conn %p broken by its QP", (void *)conn);
	conn->state = SCM_CONN_CLOSED;
	conn->local_disc = 1;
	scm_send_type(conn, SCM_MSG_DREQ, 0);
	scm_conn_close_fd(conn);
	scm_timer_set(conn, 0);
	return 1;
}

/* IBV_EVENT_COMM_EST (a receive before the RTU): nothing to tell, the
 * QP is in RTS before our REP leaves (an IB CM needs to hear of it). */
static void scm_cm_comm_est(struct dapl_ep *ep)
{
	(void)ep;
}

/* IBV_EVENT_SQ_DRAINED (providers/verbs/async.c): the send queue a
 * graceful disconnect waited for is empty, the DREQ goes (scm_disconnect
 * says why); if no answer can come, DISCONNECTED now. */
static void scm_cm_sq_drained(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_cr *conn;
	struct dapl_tp_ep *cep;

	pthread_mutex_lock(&cia->lock);
	cep = dapl_ep_tp(ep);
	conn = cep ? cep->conn : NULL;
	if (conn && conn->state == SCM_CONN_ESTABLISHED && conn->sq_drain &&
	    scm_send_dreq(conn, cep->qp, 0)) {
		conn->state = SCM_CONN_CLOSED;
		scm_conn_close_fd(conn);
		scm_timer_set(conn, 0);
		dapl_ep_defer_cm_event(ep, DAPL_CM_DISCONNECTED);
	}
	pthread_mutex_unlock(&cia->lock);
}

static void scm_cr_refuse(struct dapl_cr *cr);

const struct verbs_cm_ops scm_cm_ops = {
	.drop = scm_cm_drop,
	.live = scm_conn_live,
	.end_broken = scm_conn_end_broken,
	.comm_est = scm_cm_comm_est,
	.sq_drained = scm_cm_sq_drained,
	.port_open = scm_port_open,
	.port_close = scm_port_close,
	.cr_refuse = scm_cr_refuse,
};

/* ---- the CM ops ---- */

DAT_RETURN scm_connect(struct dapl_ep *ep, const struct sockaddr *remote,
		       DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
		       const void *pdata, DAT_COUNT plen)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct sockaddr_in dst, src;
	struct dapl_tp_cr *conn;
	int fd, err = 0;

	if (plen < 0 || plen > SCM_MAX_PDATA || (plen && !pdata))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (!remote || remote->sa_family != AF_INET)
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (!cep || !cep->qp)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	memcpy(&dst, remote, sizeof(dst));
	dst.sin_port = htons(verbs_qual_port(qual));
	/* a connection left over from an earlier attempt goes first */
	scm_cm_drop(ep);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	/* from the IA's address: the peer's CR names it as ours */
	src = cia->cm->addr;
	src.sin_port = 0;
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) &&
	     errno != EINPROGRESS))
		err = errno;
	if (err) {
		close(fd);
		dapl_dbg(DAPL_DBG_CM, "scm: connect: %s", strerror(err));
		return err == ENETUNREACH || err == EHOSTUNREACH ||
			       err == EADDRNOTAVAIL
			   ? DAPL_ERR(DAT_INVALID_ADDRESS,
				      DAT_INVALID_ADDRESS_UNREACHABLE)
			   : verbs_errno_to_dat(err, DAT_RESOURCE_MEMORY);
	}
	pthread_mutex_lock(&cia->lock);
	conn = scm_conn_new(cia);
	if (!conn) {
		pthread_mutex_unlock(&cia->lock);
		close(fd);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	conn->fd = fd;
	if (scm_watch(cia->cm, fd, EPOLLOUT | EPOLLIN, conn)) {
		scm_conn_unlink(conn); /* closes fd */
		pthread_mutex_unlock(&cia->lock);
		scm_conn_free(conn);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	conn->ep = ep;
	conn->qual = qual;
	conn->peer = dst;
	conn->peer.sin_port = 0;
	conn->state = SCM_CONN_CONNECTING;
	scm_conn_depths(conn, ep);
	conn->plen = (int)plen;
	if (plen)
		memcpy(conn->pdata, pdata, (size_t)plen);
	cep->conn = conn;
	if (timeout != DAT_TIMEOUT_INFINITE)
		scm_timer_set(conn, dapl_now_ns() + (uint64_t)timeout * 1000);
	pthread_mutex_unlock(&cia->lock);
	return DAT_SUCCESS;
}

/* locked: REP with our QP and the consumer's private data; 0 if sent */
static int scm_send_rep(struct dapl_tp_cr *conn, struct ibv_qp *qp,
			const void *pdata, DAT_COUNT plen)
{
	struct scm_wire m;

	memset(&m, 0, sizeof(m));
	m.type = SCM_MSG_REP;
	scm_qp_local(conn, qp, &m);
	m.plen = (uint16_t)plen;
	m.pdata = pdata;
	return scm_send(conn, &m);
}

DAT_RETURN scm_accept(struct dapl_cr *cr, struct dapl_ep *ep,
		      const void *pdata, DAT_COUNT plen)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_cr *conn = dapl_cr_tp(cr);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	int failed = 0, err;

	if (plen < 0 || plen > SCM_MAX_PDATA || (plen && !pdata))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!conn)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (!cep || !cep->qp)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	scm_cm_drop(ep);
	pthread_mutex_lock(&cia->lock);
	if (conn->state != SCM_CONN_REQUEST || conn->fd < 0) {
		failed = 1; /* the requester gave up meanwhile */
	} else {
		scm_conn_depths(conn, ep);
		err = scm_qp_connect(conn, cep->qp);
		if (err)
			dapl_dbg(DAPL_DBG_CM, "scm: accept: QP to RTS: %s",
				 strerror(err));
		if (err || scm_send_rep(conn, cep->qp, pdata, plen)) {
			if (err)
				scm_send_type(conn, SCM_MSG_REJ,
					      SCM_REJ_CONSUMER);
			failed = 1;
		}
	}
	/* the EP owns the connection from here on, ended or not (freed
	 * with it, scm_cm_drop) */
	conn->ep = ep;
	cep->conn = conn;
	dapl_cr_set_tp(cr, NULL);
	if (failed) {
		/* dat_cr_accept(3DAT): "If the Provider cannot complete the
		 * Connection establishment, the connection is not
		 * established and the Consumer is notified through a
		 * Connection Event of type
		 * DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR" -- and the
		 * call succeeded: its arguments were right.  "all posted
		 * Recv DTOs are flushed to its recv_evd_handle" */
		scm_conn_close_fd(conn);
		conn->state = SCM_CONN_CLOSED;
		scm_timer_set(conn, 0);
		verbs_qp_to_error(cep->qp);
		dapl_ep_defer_cm_event(ep, DAPL_CM_ACCEPT_ERROR);
	} else {
		conn->state = SCM_CONN_ACCEPTING;
		scm_timer_set(conn, dapl_now_ns() + SCM_RTU_WAIT_NS);
	}
	pthread_mutex_unlock(&cia->lock);
	return DAT_SUCCESS;
}

/* Refuses a request (a consumer reject: PEER_REJECTED at the peer) and
 * forgets it. */
static void scm_cr_refuse(struct dapl_cr *cr)
{
	struct dapl_tp_cr *conn = dapl_cr_tp(cr);

	if (!conn)
		return;
	dapl_cr_set_tp(cr, NULL);
	scm_conn_refuse(conn, SCM_REJ_CONSUMER);
}

void scm_conn_refuse(struct dapl_tp_cr *conn, enum scm_rej why)
{
	struct dapl_tp_ia *cia = conn->cia;

	pthread_mutex_lock(&cia->lock);
	if (conn->state == SCM_CONN_REQUEST)
		scm_send_type(conn, SCM_MSG_REJ, why);
	scm_conn_unlink(conn);
	pthread_mutex_unlock(&cia->lock);
	scm_conn_free(conn);
}

/*
 * Graceful: first the send queue (dat_ep_disconnect(3DAT): "all
 * outstanding and in-progress request DTOs and RMR Binds must try to be
 * completed successfully first, before disconnect proceeds"): the QP to
 * SQD, and the DREQ when IBV_EVENT_SQ_DRAINED comes (scm_cm_sq_drained)
 * or after SCM_DRAIN_NS (event.c scm_conn_timer); a device that refuses SQD
 * gets the DREQ at once.  The DREQ: our QP to ERR first, so what is
 * still outstanding flushes, as rdma_disconnect does; DISCONNECTED when
 * the DREP comes, or the socket ends, or after SCM_DISC_WAIT_NS.
 * Abrupt: the DREQ at once, but udapl reports DISCONNECTED itself and
 * the socket closes now; a connection still being set up is abandoned.
 */
int scm_send_dreq(struct dapl_tp_cr *conn, struct ibv_qp *qp, int abrupt)
{
	verbs_qp_to_error(qp);
	conn->local_disc = 1;
	conn->sq_drain = 0;
	conn->state = SCM_CONN_DISCONNECTING;
	if (scm_send_type(conn, SCM_MSG_DREQ, 0))
		return !abrupt; /* no answer will come */
	if (!abrupt)
		scm_timer_set(conn, dapl_now_ns() + SCM_DISC_WAIT_NS);
	return 0;
}

DAT_RETURN scm_disconnect(struct dapl_ep *ep, int abrupt)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct dapl_tp_cr *conn;
	int report = 0;

	if (!cep)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	pthread_mutex_lock(&cia->lock);
	conn = cep->conn;
	if (!conn || conn->state == SCM_CONN_CLOSED) {
		/* nothing to tear down */
	} else if (conn->state == SCM_CONN_ESTABLISHED) {
		if (!abrupt && !conn->sq_drain &&
		    !verbs_qp_drain_sq(cep->qp)) {
			conn->sq_drain = 1;
			scm_timer_set(conn, dapl_now_ns() + SCM_DRAIN_NS);
		} else {
			report = scm_send_dreq(conn, cep->qp, abrupt);
		}
	} else if (conn->state != SCM_CONN_DISCONNECTING) {
		scm_conn_close_fd(conn);
		verbs_qp_to_error(cep->qp);
		report = !abrupt;
	}
	if (conn && (abrupt || report) && conn->state != SCM_CONN_CLOSED) {
		conn->state = SCM_CONN_CLOSED;
		scm_conn_close_fd(conn);
		scm_timer_set(conn, 0);
	}
	if (abrupt)
		verbs_qp_to_error(cep->qp);
	if (report)
		dapl_ep_defer_cm_event(ep, DAPL_CM_DISCONNECTED);
	pthread_mutex_unlock(&cia->lock);
	return DAT_SUCCESS;
}
