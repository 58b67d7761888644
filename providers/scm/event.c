/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket CM's events and connection timers, run by udapl's progress
 * engine: scm_cm_event is the callback of the IA's epoll fd (its
 * listeners and connections), scm_conn_timer that of a connection's
 * timer.
 *
 * Each call takes one socket event (epoll_wait with timeout 0) and
 * handles it inside one cia->lock section, filling a struct scm_up with
 * what to tell udapl and opening its upcall bracket; the upcall runs
 * after the lock is dropped (as providers/cma's cm_event.c).  A socket
 * is read one message at a time, never past its end, so that a second
 * message waiting in the socket is the next event, with its own upcall.
 *
 * What ends a connection (cm.c's table): the peer's DREQ or DREP, its
 * REJ, the socket's end or error, a message that is not ours or not
 * one this state expects, the timers.  Each connection reports one
 * terminal event, then it is CLOSED.
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

enum scm_up_kind { SCM_UP_NONE, SCM_UP_EP, SCM_UP_REQUEST };

/* What the callback tells udapl once the lock is dropped. */
struct scm_up {
	enum scm_up_kind kind;
	struct dapl_ep *ep;
	enum dapl_cm_event event;
	struct dapl_sp *sp;
	struct dapl_tp_cr *conn;   /* SCM_UP_REQUEST: the new request */
	struct dapl_tp_cr *gone;   /* unlinked here, freed after the lock */
	struct sockaddr_in peer;
	DAT_CONN_QUAL peer_port;
	DAT_COUNT plen;
	uint8_t pdata[SCM_MAX_PDATA];
};

/* locked: the connection's one terminal event; the socket closes */
static void scm_final(struct dapl_tp_cr *conn, enum dapl_cm_event ev,
		      struct scm_up *up)
{
	if (conn->state == SCM_CONN_CLOSED)
		return;
	dapl_dbg(DAPL_DBG_CM, "scm: conn %p closed, event %d", (void *)conn,
		 ev);
	conn->state = SCM_CONN_CLOSED;
	scm_conn_close_fd(conn);
	scm_timer_set(conn, 0);
	if (conn->ep) {
		up->kind = SCM_UP_EP;
		up->ep = conn->ep;
		up->event = ev;
	}
}

static struct ibv_qp *scm_conn_qp(struct dapl_tp_cr *conn)
{
	struct dapl_tp_ep *cep = conn->ep ? dapl_ep_tp(conn->ep) : NULL;

	return cep ? cep->qp : NULL;
}

/*
 * locked: the socket ended, failed, or said what we cannot take.  A
 * connection nobody owns yet (a socket whose REQ never came whole) is
 * dropped; a CR not yet answered stays for the consumer, whose accept
 * then fails (ACCEPT_COMPLETION_ERROR).
 */
static void scm_conn_lost(struct dapl_tp_cr *conn, struct scm_up *up)
{
	struct ibv_qp *qp = scm_conn_qp(conn);

	switch (conn->state) {
	case SCM_CONN_REQ_WAIT:
		scm_conn_unlink(conn);
		up->gone = conn;
		return;
	case SCM_CONN_REQUEST:
		scm_conn_close_fd(conn);
		conn->state = SCM_CONN_CLOSED;
		return;
	case SCM_CONN_CONNECTING:
	case SCM_CONN_REQ_SENT:
		/* the host answered, its CM did not: dat_ep_connect(3DAT)'s
		 * NON_PEER_REJECTED is "for all reasons of not establishing
		 * the connection, except timeout, remote host not
		 * reachable, and remote peer reject" (Transport errors) */
		scm_final(conn, DAPL_CM_NON_PEER_REJECTED, up);
		return;
	case SCM_CONN_ACCEPTING:
		verbs_qp_to_error(qp);
		scm_final(conn, DAPL_CM_ACCEPT_ERROR, up);
		return;
	case SCM_CONN_ESTABLISHED: /* no DREQ came: the peer is gone */
		verbs_qp_to_error(qp);
		scm_final(conn, DAPL_CM_BROKEN, up);
		return;
	case SCM_CONN_DISCONNECTING:
		scm_final(conn, DAPL_CM_DISCONNECTED, up);
		return;
	case SCM_CONN_CLOSED:
		scm_conn_close_fd(conn);
		return;
	}
}

/* locked: a new socket on one of our listeners: its REQ is awaited */
static void scm_port_accept(struct dapl_tp_ia *cia, struct scm_port *p)
{
	struct sockaddr_in peer;
	socklen_t sl = sizeof(peer);
	struct epoll_event e = {.events = EPOLLIN};
	struct dapl_tp_cr *conn;
	int fd;

	fd = accept4(p->fd, (struct sockaddr *)&peer, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	conn = scm_conn_new(cia);
	if (!conn) {
		close(fd);
		return;
	}
	conn->fd = fd;
	conn->state = SCM_CONN_REQ_WAIT;
	conn->lport = p->vp.port;
	conn->peer = peer;
	e.data.ptr = conn;
	if (epoll_ctl(cia->cm->epfd, EPOLL_CTL_ADD, fd, &e)) {
		scm_conn_unlink(conn);
		free(conn); /* its timer was never armed */
		return;
	}
	/* a peer that connects and says nothing is dropped */
	scm_timer_set(conn, dapl_now_ns() + SCM_REQ_WAIT_NS);
}

/* locked: a whole REQ on a socket of ours */
static void scm_on_req(struct dapl_tp_ia *cia, struct dapl_tp_cr *conn,
		       const struct scm_wire *m, struct scm_up *up)
{
	struct verbs_port *p = verbs_port_find(&cia->ports, conn->lport);
	struct dapl_tp_sp *ssp = p ? verbs_port_sp(p, m->qual) : NULL;

	if (!ssp || !ssp->sp || dapl_upcall_begin(ssp->sp)) {
		dapl_dbg(DAPL_DBG_CM, "scm: request for qualifier %llu: %s",
			 (unsigned long long)m->qual,
			 ssp ? "refused" : "no such service point");
		/* NON_PEER_REJECTED at the peer either way: only a
		 * consumer's dat_cr_reject is PEER_REJECTED, and a request
		 * for a PSP being freed is "automatically rejected by the
		 * Provider with the return analogous to the no listening
		 * Service Point" (dat_psp_free(3DAT)) */
		scm_send_type(conn, SCM_MSG_REJ, SCM_REJ_NO_QUAL);
		scm_conn_unlink(conn);
		up->gone = conn;
		return;
	}
	conn->state = SCM_CONN_REQUEST;
	conn->peer_qp = *m;
	conn->peer_qp.pdata = NULL;
	scm_timer_set(conn, 0);
	up->kind = SCM_UP_REQUEST;
	up->sp = ssp->sp;
	up->conn = conn;
	up->peer = conn->peer;
	up->peer_port = ntohs(conn->peer.sin_port);
	up->plen = m->plen;
	if (m->plen)
		memcpy(up->pdata, m->pdata, m->plen);
}

/* locked: the connection is up on our side (the REP's or the RTU's
 * private data, if any, goes with the event) */
static void scm_established(struct dapl_tp_cr *conn, const struct scm_wire *m,
			    struct scm_up *up)
{
	conn->state = SCM_CONN_ESTABLISHED;
	scm_timer_set(conn, 0);
	if (!conn->ep)
		return;
	up->kind = SCM_UP_EP;
	up->ep = conn->ep;
	up->event = DAPL_CM_ESTABLISHED;
	up->plen = m->plen;
	if (m->plen)
		memcpy(up->pdata, m->pdata, m->plen);
}

/* locked: the listener's REP: our QP to RTR and RTS, our RTU, ours */
static void scm_on_rep(struct dapl_tp_cr *conn, const struct scm_wire *m,
		       struct scm_up *up)
{
	struct ibv_qp *qp = scm_conn_qp(conn);
	int err;

	conn->peer_qp = *m;
	conn->peer_qp.pdata = NULL;
	err = qp ? scm_qp_connect(conn, qp) : EINVAL;
	if (err || scm_send_type(conn, SCM_MSG_RTU, 0)) {
		dapl_dbg(DAPL_DBG_CM, "scm: REP: %s",
			 err ? strerror(err) : "RTU not sent");
		verbs_qp_to_error(qp);
		scm_final(conn, DAPL_CM_NON_PEER_REJECTED, up);
		return;
	}
	scm_established(conn, m, up);
}

/* locked: one whole message; 0, or -1 if this state cannot take it */
static int scm_on_msg(struct dapl_tp_ia *cia, struct dapl_tp_cr *conn,
		      const struct scm_wire *m, struct scm_up *up)
{
	switch (conn->state * 16 + m->type) {
	case SCM_CONN_REQ_WAIT * 16 + SCM_MSG_REQ:
		scm_on_req(cia, conn, m, up);
		return 0;
	case SCM_CONN_REQ_SENT * 16 + SCM_MSG_REP:
		scm_on_rep(conn, m, up);
		return 0;
	case SCM_CONN_REQ_SENT * 16 + SCM_MSG_REJ:
		scm_final(conn,
			  m->status == SCM_REJ_NO_QUAL ? DAPL_CM_NON_PEER_REJECTED
						       : DAPL_CM_PEER_REJECTED,
			  up);
		return 0;
	case SCM_CONN_ACCEPTING * 16 + SCM_MSG_RTU:
		scm_established(conn, m, up);
		return 0;
	case SCM_CONN_ESTABLISHED * 16 + SCM_MSG_DREQ: {
		/* BROKEN if our QP had failed already (cma does the same) */
		struct ibv_qp *qp = scm_conn_qp(conn);
		int failed = verbs_qp_failed(qp);

		verbs_qp_to_error(qp);
		scm_send_type(conn, SCM_MSG_DREP, 0);
		scm_final(conn, failed ? DAPL_CM_BROKEN : DAPL_CM_DISCONNECTED,
			  up);
		return 0;
	}
	case SCM_CONN_DISCONNECTING * 16 + SCM_MSG_DREQ: /* both at once */
		scm_send_type(conn, SCM_MSG_DREP, 0);
		/* fall through */
	case SCM_CONN_DISCONNECTING * 16 + SCM_MSG_DREP:
		scm_final(conn, DAPL_CM_DISCONNECTED, up);
		return 0;
	case SCM_CONN_CLOSED * 16 + SCM_MSG_DREQ: /* after an abrupt end */
		scm_send_type(conn, SCM_MSG_DREP, 0);
		scm_conn_close_fd(conn);
		return 0;
	default:
		return -1;
	}
}

/* locked: the active side's TCP connect finished: our REQ, or the end */
static void scm_on_connected(struct dapl_tp_ia *cia, struct dapl_tp_cr *conn,
			     struct scm_up *up)
{
	struct epoll_event e = {.events = EPOLLIN, .data.ptr = conn};
	struct ibv_qp *qp = scm_conn_qp(conn);
	socklen_t sl = sizeof(int);
	struct scm_wire m;
	int err = 0;

	if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &sl))
		err = errno;
	if (err || !qp) {
		dapl_dbg(DAPL_DBG_CM, "scm: connect: %s",
			 err ? strerror(err) : "no QP");
		/* the host, or a route to it, is not there: UNREACHABLE; a
		 * refused connect (nobody listens on that port) and the
		 * rest: NON_PEER_REJECTED (scm_conn_lost) */
		scm_final(conn,
			  err == EHOSTUNREACH || err == ENETUNREACH ||
				  err == ETIMEDOUT || err == EHOSTDOWN
			      ? DAPL_CM_UNREACHABLE
			      : DAPL_CM_NON_PEER_REJECTED,
			  up);
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = SCM_MSG_REQ;
	m.qual = conn->qual;
	scm_qp_local(conn, qp, &m);
	m.plen = (uint16_t)conn->plen;
	m.pdata = conn->pdata;
	if (scm_send(conn, &m) ||
	    epoll_ctl(cia->cm->epfd, EPOLL_CTL_MOD, conn->fd, &e)) {
		scm_final(conn, DAPL_CM_NON_PEER_REJECTED, up);
		return;
	}
	conn->state = SCM_CONN_REQ_SENT;
}

/* locked: the socket is readable (or ended): the next piece of the
 * current message, and the message once it is whole */
static void scm_conn_read(struct dapl_tp_ia *cia, struct dapl_tp_cr *conn,
			  struct scm_up *up)
{
	struct scm_wire m;
	size_t want = SCM_WIRE_HDR;
	ssize_t n;
	int rc;

	rc = scm_wire_decode(conn->rx, conn->have, &m, &want);
	if (rc == 1) {
		n = recv(conn->fd, conn->rx + conn->have, want - conn->have,
			 MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			scm_conn_lost(conn, up);
			return;
		}
		conn->have += (size_t)n;
		rc = scm_wire_decode(conn->rx, conn->have, &m, &want);
	}
	if (rc == 1)
		return;
	if (rc < 0 || scm_on_msg(cia, conn, &m, up)) {
		dapl_dbg(DAPL_DBG_CM, "scm: conn %p: %s from the peer in state "
			 "%d: the connection ends", (void *)conn,
			 rc < 0 ? "not our protocol" : "an unexpected message",
			 conn->state);
		scm_conn_lost(conn, up);
		return;
	}
	conn->have = 0;
}

/* locked: one event of the IA's epoll set */
static void scm_handle(struct dapl_tp_ia *cia, const struct epoll_event *e,
		       struct scm_up *up)
{
	enum scm_kind *kind = e->data.ptr;
	struct dapl_tp_cr *conn;

	if (*kind == SCM_KIND_PORT) {
		scm_port_accept(cia, (struct scm_port *)kind);
		return;
	}
	conn = (struct dapl_tp_cr *)kind;
	if (conn->fd < 0)
		return;
	if (conn->state == SCM_CONN_CONNECTING)
		scm_on_connected(cia, conn, up);
	else
		scm_conn_read(cia, conn, up);
}

/* locked: opens the bracket of an EP upcall about to run (that of a
 * request was opened by scm_on_req); an EP being freed gets none. */
static void scm_up_begin(struct scm_up *up)
{
	if (up->kind == SCM_UP_EP && dapl_upcall_begin(up->ep))
		up->kind = SCM_UP_NONE;
}

/* The upcall, without the lock.  The IA may be gone when it returns (a
 * CNO agent may close it): nothing after it touches the IA but a
 * refused request, which the consumer cannot have closed the IA for. */
static void scm_up_run(struct scm_up *up)
{
	if (up->gone)
		scm_conn_free(up->gone);
	switch (up->kind) {
	case SCM_UP_EP:
		dapl_cm_ep_event(up->ep, up->event, up->plen ? up->pdata : NULL,
				 up->plen);
		dapl_upcall_end(up->ep);
		break;
	case SCM_UP_REQUEST: {
		int refused = dapl_cm_request(
		    up->sp, up->conn, (struct sockaddr *)&up->peer,
		    up->peer_port, up->plen ? up->pdata : NULL, up->plen);

		dapl_upcall_end(up->sp);
		if (refused) /* udapl could not queue it: as above */
			scm_conn_refuse(up->conn, SCM_REJ_NO_QUAL);
		break;
	}
	case SCM_UP_NONE:
		break;
	}
}

int scm_cm_event(void *arg)
{
	struct dapl_tp_ia *cia = arg;
	struct epoll_event e;
	struct scm_up up;

	memset(&up, 0, sizeof(up));
	pthread_mutex_lock(&cia->lock);
	if (epoll_wait(cia->cm->epfd, &e, 1, 0) != 1) {
		pthread_mutex_unlock(&cia->lock);
		return 0;
	}
	scm_handle(cia, &e, &up);
	scm_up_begin(&up);
	pthread_mutex_unlock(&cia->lock);
	scm_up_run(&up);
	return 1;
}

/* A connection's timer expired (cm.c and the above arm it; ia.c gives
 * this to cm->conn_timer at open). */
void scm_conn_timer(struct dapl_timer *t)
{
	struct dapl_tp_cr *conn = dapl_container_of(t, struct dapl_tp_cr, timer);
	struct dapl_tp_ia *cia = conn->cia;
	struct scm_up up;

	memset(&up, 0, sizeof(up));
	pthread_mutex_lock(&cia->lock);
	switch (conn->state) {
	case SCM_CONN_CONNECTING:
	case SCM_CONN_REQ_SENT: /* the DAT connect timeout */
		scm_final(conn, DAPL_CM_TIMED_OUT, &up);
		break;
	case SCM_CONN_REQ_WAIT: /* a socket that never said its REQ */
		scm_conn_unlink(conn);
		up.gone = conn;
		break;
	case SCM_CONN_ACCEPTING: /* the requester never sent its RTU */
		verbs_qp_to_error(scm_conn_qp(conn));
		scm_final(conn, DAPL_CM_ACCEPT_ERROR, &up);
		break;
	case SCM_CONN_DISCONNECTING: /* the peer never answered our DREQ */
		scm_final(conn, DAPL_CM_DISCONNECTED, &up);
		break;
	case SCM_CONN_ESTABLISHED: /* the send queue did not drain in time */
		if (conn->sq_drain &&
		    scm_send_dreq(conn, scm_conn_qp(conn), 0))
			scm_final(conn, DAPL_CM_DISCONNECTED, &up);
		break;
	default:
		break;
	}
	scm_up_begin(&up);
	pthread_mutex_unlock(&cia->lock);
	/* conn may be freed from here on (the upcall's consequences) */
	scm_up_run(&up);
}
