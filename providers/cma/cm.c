/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection management ops over rdma_cm: listen, connect, accept,
 * reject, disconnect.
 *
 * DAT connection qualifiers are 64 bits and rdma_cm ports (RDMA_PS_TCP)
 * 16: verbs_qual_port() folds a qualifier to a port, and the full qualifier
 * travels in our header before the consumer's private data (cma.h), so a
 * listener takes only requests for its own qualifier, and service points
 * of one IA whose qualifiers fold to one port share its rdma_cm listener
 * (struct cma_port), each getting the requests that name its qualifier.
 * 0 asks for any free port (PSP_any): the port is the qualifier.
 *
 * An EP's QP is created at ep_create (so receives can be posted before
 * the connection exists) on the IA's device context, and moved to INIT
 * by qp.c.  A connection borrows it by setting cm_id->qp: librdmacm then
 * moves it to RTR/RTS when the connection is accepted or answered, and
 * to ERR on rdma_disconnect.  The QP is given back (cm_id->qp = NULL)
 * before the id is destroyed; rdma_destroy_id never frees it.
 *
 * The active side only starts address resolution here; the CM callback
 * (cm_event.c) resolves the route and sends the request, and the
 * connection's engine timer enforces the DAT timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "cma.h"

/* Bounds of the time each resolution (address, route) may take, in ms. */
#define CMA_RESOLVE_MIN_MS 500
#define CMA_RESOLVE_MAX_MS 5000
/*
 * Address resolution runs in steps of at most this many ms, each a new
 * rdma_resolve_addr after the last one's ADDR_ERROR -ETIMEDOUT, until
 * resolve_ms is spent.  The kernel (drivers/infiniband/core/addr.c)
 * sends the ARP request inside rdma_resolve_addr, before it queues the
 * request that the neighbour-update event wakes; when the reply is
 * handled right away (a veth pair: the whole ARP exchange runs in the
 * caller's softirq), that wake-up finds nothing and the request sleeps
 * its whole timeout although the neighbour is known.  The kernel looks
 * again when a step ends, so a lost wake-up costs one step, not the
 * whole budget (5 s on the first connection to a new neighbour).
 */
#define CMA_ADDR_STEP_MS 100
/* How long a graceful disconnect waits for the peer's answer. */
#define CMA_DISC_TIMEOUT_NS (5ull * 1000000000ull)
/* How long a graceful disconnect waits for its send queue to drain. */
#define CMA_DRAIN_NS (2ull * 1000000000ull)

static void cma_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* The local ACK timeout for the QP rdma_cm moves to RTS (long on TCG). */
static void cma_set_ack_timeout(struct dapl_tp_ia *cia, struct rdma_cm_id *id)
{
	uint8_t t = cia->cm->ack_timeout;

	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t,
			    sizeof(t)))
		dapl_dbg(DAPL_DBG_WARN, "cma: ACK timeout option: %s",
			 strerror(errno));
}

static uint8_t cma_min_u8(long a, long b)
{
	long m = a < b ? a : b;

	return m < 0 ? 0 : m > 254 ? 254 : (uint8_t)m;
}

/* A new rdma_cm listener on port (0: any), not yet in the IA's list. */
static DAT_RETURN cma_port_open(struct dapl_tp_ia *cia, uint16_t port,
				struct verbs_port **out)
{
	struct sockaddr_storage ss;
	struct cma_port *p;
	DAT_RETURN ret;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	p->kind = CMA_KIND_SP;
	dapl_list_init(&p->vp.sps);
	dapl_list_init(&p->vp.link);
	if (rdma_create_id(cia->cm->ch, &p->id, p, RDMA_PS_TCP)) {
		free(p);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, dapl_ia_addr(cia->ia),
	       dapl_sockaddr_len(dapl_ia_addr(cia->ia)));
	cma_set_port(&ss, port);
	/*
	 * Backlog 0 is the kernel's maximum (net.rdma_ucm.max_backlog, 1024
	 * by default).  The backlog counts requests the kernel queued for
	 * the CM thread and it has not fetched yet; one more is dropped
	 * without a reject (ucma returns -ENOMEM, the IB CM stays silent to
	 * allow a retry) and the peer resends its REQ only after the CM
	 * response timeout, about 4 s.  With 128, a burst of a few hundred
	 * dat_ep_connect calls can lose seconds that way (the likely cause
	 * of the 6.5 s for 256 pairs on 2026-11-22, which did not reproduce
	 * on 2026-11-25, before or after this change).
	 */
	if (rdma_bind_addr(p->id, (struct sockaddr *)&ss) ||
	    rdma_listen(p->id, 0)) {
		err = errno;
		ret = err == EADDRINUSE
			  ? DAPL_ERR(DAT_CONN_QUAL_IN_USE, 0)
			  : verbs_errno_to_dat(err, DAT_RESOURCE_MEMORY);
		rdma_destroy_id(p->id);
		free(p);
		return ret;
	}
	p->vp.port = ntohs(rdma_get_src_port(p->id));
	*out = &p->vp;
	return DAT_SUCCESS;
}

/* The last service point of a port gone (providers/verbs/listen.c): the
 * listener goes.  The CM callback acknowledges the listener's requests
 * without waiting for udapl, so rdma_destroy_id cannot block on a
 * caller's lock. */
static void cma_port_close(struct dapl_tp_ia *cia, struct verbs_port *vp)
{
	struct cma_port *p = dapl_container_of(vp, struct cma_port, vp);

	(void)cia;
	rdma_destroy_id(p->id);
	free(p);
}

/* locked: takes conn's id away from it (the caller destroys it). */
static struct rdma_cm_id *cma_conn_unhook(struct dapl_tp_cr *conn)
{
	struct rdma_cm_id *id = conn->id;

	conn->id = NULL;
	conn->state = CMA_CONN_CLOSED;
	cma_timer_set(conn, 0);
	if (id)
		id->qp = NULL;
	return id;
}

/* ---- the hooks providers/verbs calls (verbs.h struct verbs_cm_ops) ---- */

static void cma_cm_drop(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct rdma_cm_id *id = NULL;
	struct dapl_tp_cr *conn;

	if (!cep)
		return;
	pthread_mutex_lock(&cia->lock);
	conn = cep->conn;
	cep->conn = NULL;
	if (conn) {
		conn->ep = NULL;
		id = cma_conn_unhook(conn);
	}
	pthread_mutex_unlock(&cia->lock);
	/* Destroying a connected id also sends the peer a DREQ. */
	if (id)
		rdma_destroy_id(id);
	if (conn)
		cma_conn_free(conn);
}

/* locked (providers/verbs/conn.c) */
static int cma_conn_live(const struct dapl_tp_cr *conn)
{
	return conn->state != CMA_CONN_CLOSED;
}

/*
 * locked: the connection ends here as BROKEN (the glue has the engine
 * report it), the peer gets a DREQ if it can still hear one, and what
 * the CM says later about this connection is ignored.  Error path only.
 */
static int cma_conn_end_broken(struct dapl_tp_cr *conn)
{
	if (conn->state != CMA_CONN_ESTABLISHED)
		return 0;
	dapl_dbg(DAPL_DBG_CM, "cma: conn %p broken by its QP", (void *)conn);
	conn->state = CMA_CONN_CLOSED;
	conn->local_disc = 1;
	cma_timer_set(conn, 0);
	if (conn->id)
		rdma_disconnect(conn->id);
	return 1;
}

/* rdma_cm must hear of a receive before the RTU (rdma_notify) or it
 * keeps the connection half-open. */
static void cma_cm_comm_est(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep;

	pthread_mutex_lock(&cia->lock);
	cep = dapl_ep_tp(ep);
	if (cep && cep->conn && cep->conn->id)
		rdma_notify(cep->conn->id, IBV_EVENT_COMM_EST);
	pthread_mutex_unlock(&cia->lock);
}

/* IBV_EVENT_SQ_DRAINED (providers/verbs/async.c): the send queue a
 * graceful disconnect waited for is empty, the DREQ goes (cma_disconnect
 * says why); if no answer can come, DISCONNECTED now. */
static void cma_cm_sq_drained(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_cr *conn;
	struct dapl_tp_ep *cep;

	pthread_mutex_lock(&cia->lock);
	cep = dapl_ep_tp(ep);
	conn = cep ? cep->conn : NULL;
	if (conn && conn->state == CMA_CONN_ESTABLISHED && conn->sq_drain &&
	    cma_send_dreq(conn, 0)) {
		conn->state = CMA_CONN_CLOSED;
		cma_timer_set(conn, 0);
		dapl_ep_defer_cm_event(ep, DAPL_CM_DISCONNECTED);
	}
	pthread_mutex_unlock(&cia->lock);
}

static void cma_cr_refuse(struct dapl_cr *cr);

const struct verbs_cm_ops cma_cm_ops = {
	.drop = cma_cm_drop,
	.live = cma_conn_live,
	.end_broken = cma_conn_end_broken,
	.comm_est = cma_cm_comm_est,
	.sq_drained = cma_cm_sq_drained,
	.port_open = cma_port_open,
	.port_close = cma_port_close,
	.cr_refuse = cma_cr_refuse,
};

void cma_set_rnr_timer(struct dapl_tp_cr *conn)
{
	struct ibv_qp_attr a = {.min_rnr_timer = 0};

	if (conn->cia->cm->rnr_timer < 0 || !conn->id || !conn->id->qp)
		return;
	a.min_rnr_timer = (uint8_t)conn->cia->cm->rnr_timer;
	/* RTS -> RTS: min_rnr_timer is one of the attributes it may change */
	if (ibv_modify_qp(conn->id->qp, &a, IBV_QP_MIN_RNR_TIMER))
		dapl_dbg(DAPL_DBG_WARN, "cma: DAPL_RNR_TIMER: %s",
			 strerror(errno));
}

void cma_timer_init(struct dapl_tp_cr *conn)
{
	dapl_timer_init(&conn->timer, conn->cia->ia, conn->cia->cm->conn_timer);
}

void cma_timer_set(struct dapl_tp_cr *conn, uint64_t deadline)
{
	if (deadline)
		dapl_timer_arm(&conn->timer, deadline);
	else
		dapl_timer_cancel(&conn->timer);
}

void cma_conn_free(struct dapl_tp_cr *conn)
{
	/* its timer's callback may be running on the engine's thread */
	dapl_timer_cancel_sync(&conn->timer);
	free(conn);
}

/* Half the DAT timeout, so a resolution failure is reported as
 * UNREACHABLE before the whole attempt is TIMED_OUT. */
static int cma_resolve_ms(DAT_TIMEOUT timeout)
{
	long ms = timeout == DAT_TIMEOUT_INFINITE ? CMA_RESOLVE_MAX_MS
						  : (long)(timeout / 2000);

	if (ms < CMA_RESOLVE_MIN_MS)
		ms = CMA_RESOLVE_MIN_MS;
	return ms > CMA_RESOLVE_MAX_MS ? CMA_RESOLVE_MAX_MS : (int)ms;
}

int cma_resolve_addr_step(struct dapl_tp_cr *conn)
{
	struct sockaddr_storage src;
	uint64_t now = dapl_now_ns();
	int ms;

	if (now >= conn->resolve_end) {
		errno = ETIMEDOUT;
		return -1;
	}
	ms = (int)((conn->resolve_end - now + 999999) / 1000000);
	if (ms > CMA_ADDR_STEP_MS)
		ms = CMA_ADDR_STEP_MS;
	memset(&src, 0, sizeof(src));
	memcpy(&src, dapl_ia_addr(conn->cia->ia),
	       dapl_sockaddr_len(dapl_ia_addr(conn->cia->ia)));
	cma_set_port(&src, 0);
	return rdma_resolve_addr(conn->id, (struct sockaddr *)&src,
				 (struct sockaddr *)&conn->dst, ms);
}

/* Our header (cma.h) and the consumer's private data, as sent. */
static int cma_req_pdata(unsigned char *buf, DAT_CONN_QUAL qual,
			 const void *pdata, DAT_COUNT plen)
{
	uint32_t magic = htonl(CMA_HDR_MAGIC);
	uint16_t len = htons((uint16_t)plen), zero = 0;
	uint32_t hi = htonl((uint32_t)(qual >> 32));
	uint32_t lo = htonl((uint32_t)qual);

	memcpy(buf, &magic, 4);
	memcpy(buf + 4, &len, 2);
	memcpy(buf + 6, &zero, 2);
	memcpy(buf + 8, &hi, 4);
	memcpy(buf + 12, &lo, 4);
	if (plen)
		memcpy(buf + CMA_HDR_LEN, pdata, plen);
	return CMA_HDR_LEN + plen;
}

static struct dapl_tp_cr *cma_conn_new_active(struct dapl_tp_ia *cia,
					    struct dapl_ep *ep,
					    DAT_CONN_QUAL qual,
					    const void *pdata, DAT_COUNT plen,
					    DAT_TIMEOUT timeout)
{
	struct dapl_tp_cr *conn = calloc(1, sizeof(*conn));

	if (!conn)
		return NULL;
	conn->kind = CMA_KIND_CONN;
	conn->cia = cia;
	conn->ep = ep;
	conn->state = CMA_CONN_ADDR;
	conn->resolve_ms = cma_resolve_ms(timeout);
	conn->route_ms = conn->resolve_ms;
	/* OFA's DAPL_CM_* variables: tries of a fixed length instead */
	if (cia->cm->arp_ms) {
		int64_t ms = (int64_t)cia->cm->arp_ms *
			     ((int64_t)cia->cm->arp_retries + 1);

		conn->resolve_ms = ms > INT_MAX ? INT_MAX : (int)ms;
	}
	if (cia->cm->route_ms) {
		conn->route_ms = cia->cm->route_ms;
		conn->route_left = cia->cm->route_retries;
	}
	conn->resp_res =
	    cma_min_u8(dapl_ep_attr(ep)->max_rdma_read_in, cia->dattr.max_qp_rd_atom);
	conn->init_depth = cma_min_u8(dapl_ep_attr(ep)->max_rdma_read_out,
				      cia->dattr.max_qp_init_rd_atom);
	conn->plen = cma_req_pdata(conn->pdata, qual, pdata, plen);
	cma_timer_init(conn);
	if (rdma_create_id(cia->cm->ch, &conn->id, conn, RDMA_PS_TCP)) {
		free(conn);
		return NULL;
	}
	cma_set_ack_timeout(cia, conn->id);
	/* before the route is resolved: rdma_cm puts the type of service
	 * into the path (RoCE: the traffic class of both sides' packets,
	 * the passive side's from the request) */
	if (cia->cm->tos &&
	    rdma_set_option(conn->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
			    &cia->cm->tos, sizeof(cia->cm->tos)))
		dapl_dbg(DAPL_DBG_ERR,
			 "cma: DAPL_CM_TOS=%u not set on a connect: %s",
			 cia->cm->tos, strerror(errno));
	return conn;
}

DAT_RETURN cma_connect(struct dapl_ep *ep, const struct sockaddr *remote,
		       DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
		       const void *pdata, DAT_COUNT plen)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct sockaddr_storage dst;
	struct dapl_tp_cr *conn;
	int err;

	if (plen < 0 || plen > CMA_MAX_PDATA || (plen && !pdata))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (!remote || !dapl_sockaddr_len(remote))
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (!cep || !cep->qp)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	memset(&dst, 0, sizeof(dst));
	memcpy(&dst, remote, dapl_sockaddr_len(remote));
	cma_set_port(&dst, verbs_qual_port(qual));

	/* A connection left over from an earlier attempt goes first. */
	cma_cm_drop(ep);
	conn = cma_conn_new_active(cia, ep, qual, pdata, plen, timeout);
	if (!conn)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	memcpy(&conn->dst, &dst, sizeof(dst));
	conn->resolve_end =
	    dapl_now_ns() + (uint64_t)conn->resolve_ms * 1000000ull;

	pthread_mutex_lock(&cia->lock);
	if (cma_resolve_addr_step(conn)) {
		err = errno;
		pthread_mutex_unlock(&cia->lock);
		dapl_dbg(DAPL_DBG_CM, "cma: rdma_resolve_addr: %s",
			 strerror(err));
		rdma_destroy_id(conn->id);
		free(conn);
		return err == EINVAL || err == EAFNOSUPPORT
			   ? DAPL_ERR(DAT_INVALID_ADDRESS,
				      DAT_INVALID_ADDRESS_UNSUPPORTED)
			   : DAPL_ERR(DAT_INVALID_ADDRESS,
				      DAT_INVALID_ADDRESS_UNREACHABLE);
	}
	cep->conn = conn;
	if (timeout != DAT_TIMEOUT_INFINITE)
		cma_timer_set(conn, dapl_now_ns() + (uint64_t)timeout * 1000);
	pthread_mutex_unlock(&cia->lock);
	return DAT_SUCCESS;
}

DAT_RETURN cma_accept(struct dapl_cr *cr, struct dapl_ep *ep, const void *pdata,
		      DAT_COUNT plen)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_cr *conn = dapl_cr_tp(cr);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct rdma_conn_param param = {
	    .private_data = plen ? pdata : NULL,
	    .private_data_len = (uint8_t)plen,
	    .flow_control = 1,
	    .retry_count = cia->cm->retry_count,
	    .rnr_retry_count = cia->cm->rnr_retry,
	};
	DAT_RETURN ret = DAT_SUCCESS;
	struct rdma_cm_id *gone = NULL;
	int failed = 0;

	if (plen < 0 || plen > CMA_MAX_PDATA || (plen && !pdata))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!conn)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (!cep || !cep->qp)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	/* Reads in: no more than the peer will issue; out: no more than the
	 * peer accepts. */
	param.responder_resources = cma_min_u8(
	    cma_min_u8(dapl_ep_attr(ep)->max_rdma_read_in, cia->dattr.max_qp_rd_atom),
	    conn->peer_init_depth);
	param.initiator_depth =
	    cma_min_u8(cma_min_u8(dapl_ep_attr(ep)->max_rdma_read_out,
				  cia->dattr.max_qp_init_rd_atom),
		       conn->peer_resp_res);

	cma_cm_drop(ep);
	pthread_mutex_lock(&cia->lock);
	if (conn->state != CMA_CONN_REQUEST || !conn->id) {
		/* the peer gave up meanwhile */
		failed = 1;
	} else if (conn->id->verbs != cep->qp->context) {
		ret = DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	} else {
		cma_set_ack_timeout(cia, conn->id);
		conn->id->qp = cep->qp;
		if (rdma_accept(conn->id, &param)) {
			int err = errno;

			dapl_dbg(DAPL_DBG_CM, "cma: rdma_accept: %s",
				 strerror(err));
			conn->id->qp = NULL;
			/* out of memory: nothing changed, say so; else the
			 * request cannot be completed (EINVAL: its
			 * requester died and its CM sent a REJ) */
			if (err == ENOMEM || err == ENOBUFS)
				ret = verbs_errno_to_dat(err,
							 DAT_RESOURCE_TEP);
			else
				failed = 1;
		} else {
			conn->state = CMA_CONN_ACCEPTING;
			conn->ep = ep;
			cep->conn = conn;
			dapl_cr_set_tp(cr, NULL); /* the EP owns it now */
		}
	}
	if (failed) {
		/* dat_cr_accept(3DAT): "If the Provider cannot complete the
		 * Connection establishment, the connection is not
		 * established and the Consumer is notified through a
		 * Connection Event of type
		 * DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR" -- and the
		 * call succeeded: its arguments were right.  The EP owns
		 * the ended request (freed with it, cma_cm_drop). */
		conn->ep = ep;
		cep->conn = conn;
		dapl_cr_set_tp(cr, NULL);
		gone = cma_conn_unhook(conn);
	}
	pthread_mutex_unlock(&cia->lock);
	if (failed) {
		if (gone)
			rdma_destroy_id(gone);
		/* "all posted Recv DTOs are flushed to its recv_evd_handle" */
		verbs_qp_to_error(cep->qp);
		dapl_ep_defer_cm_event(ep, DAPL_CM_ACCEPT_ERROR);
	}
	return ret;
}

/* Refuses a request (a consumer reject: status 28 with our
 * CMA_REJ_CONSUMER header, PEER_REJECTED at the peer) and forgets it. */
static void cma_cr_refuse(struct dapl_cr *cr)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(cr);
	struct dapl_tp_cr *conn = dapl_cr_tp(cr);
	struct rdma_cm_id *id;

	if (!conn)
		return;
	dapl_cr_set_tp(cr, NULL);
	pthread_mutex_lock(&cia->lock);
	if (conn->id && conn->state == CMA_CONN_REQUEST)
		cma_reject(conn->id, CMA_REJ_CONSUMER);
	id = cma_conn_unhook(conn);
	pthread_mutex_unlock(&cia->lock);
	if (id)
		rdma_destroy_id(id);
	cma_conn_free(conn);
}

/*
 * Graceful: first the send queue (dat_ep_disconnect(3DAT): "all
 * outstanding and in-progress request DTOs and RMR Binds must try to be
 * completed successfully first, before disconnect proceeds"): the QP to
 * SQD, and the DREQ when IBV_EVENT_SQ_DRAINED comes (cma_cm_sq_drained)
 * or after CMA_DRAIN_NS (cm_event.c cma_conn_timer); a device that
 * refuses SQD gets the DREQ at once.  The DREQ is rdma_disconnect
 * (librdmacm moves the QP to ERR, so what is still outstanding flushes)
 * and DISCONNECTED comes when the peer answers, or after
 * CMA_DISC_TIMEOUT_NS.  Abrupt:
 * the DREQ at once, but udapl reports DISCONNECTED itself and ignores
 * what the CM says later; a connection still being set up is abandoned
 * (udapl always aborts those abruptly).  Before the drain a graceful
 * disconnect flushed the sends posted just before it
 * (test/verbs/vt_graceful.c).
 */
int cma_send_dreq(struct dapl_tp_cr *conn, int abrupt)
{
	conn->local_disc = 1;
	conn->sq_drain = 0;
	conn->state = CMA_CONN_DISCONNECTING;
	if (rdma_disconnect(conn->id))
		return !abrupt; /* no answer will come */
	if (!abrupt)
		cma_timer_set(conn, dapl_now_ns() + CMA_DISC_TIMEOUT_NS);
	return 0;
}

DAT_RETURN cma_disconnect(struct dapl_ep *ep, int abrupt)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct rdma_cm_id *id = NULL;
	struct dapl_tp_cr *conn;
	int report = 0;

	if (!cep)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	pthread_mutex_lock(&cia->lock);
	conn = cep->conn;
	if (!conn || conn->state == CMA_CONN_CLOSED) {
		/* nothing to tear down */
	} else if (conn->state == CMA_CONN_ESTABLISHED) {
		if (!abrupt && !conn->sq_drain &&
		    !verbs_qp_drain_sq(cep->qp)) {
			conn->sq_drain = 1;
			cma_timer_set(conn, dapl_now_ns() + CMA_DRAIN_NS);
		} else {
			report = cma_send_dreq(conn, abrupt);
		}
	} else if (conn->state != CMA_CONN_DISCONNECTING) {
		id = cma_conn_unhook(conn);
		report = !abrupt;
	}
	if (abrupt && conn && conn->state != CMA_CONN_CLOSED) {
		conn->state = CMA_CONN_CLOSED;
		cma_timer_set(conn, 0);
	}
	if (abrupt || id)
		verbs_qp_to_error(cep->qp);
	if (report) {
		if (conn->state != CMA_CONN_CLOSED) {
			conn->state = CMA_CONN_CLOSED;
			cma_timer_set(conn, 0);
		}
		dapl_ep_defer_cm_event(ep, DAPL_CM_DISCONNECTED);
	}
	pthread_mutex_unlock(&cia->lock);
	if (id)
		rdma_destroy_id(id);
	return DAT_SUCCESS;
}
