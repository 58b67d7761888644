/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_cm.c - connection management: connect/accept with private data both
 * ways, reject, nobody listening, timeout, PSP_any, RSP, dup_connect,
 * ep_modify, ep_reset and reuse of an EP.  (vt_cm_many.c: many
 * connections and IAs, churn, close orders.)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt.h"

#define CLIENT_PDATA	40	/* bytes, pattern seed 1 */
#define SERVER_PDATA	32	/* bytes, pattern seed 2 */

/* Private data as received: at least what was sent, and the sent bytes
 * first.  The transport may pad it to its fixed size per message (IB CM:
 * 92 bytes in a REQ, 196 in a REP, less rdma_cm's header), which can be
 * more than max_private_data_size (the most a consumer may send). */
static void check_pdata(const struct vt *v, const char *what, DAT_COUNT size,
			const void *data, DAT_COUNT sent, uint32_t seed)
{
	DAT_COUNT max = 256;

	(void)v;
	vt_note("%s: private_data_size %d (sent %d)", what, size, sent);
	if (size < sent || size > max) {
		vt_fail("%s: private_data_size %d, want %d..%d", what, size,
			sent, max);
		return;
	}
	if (!data) {
		vt_fail("%s: private_data is NULL", what);
		return;
	}
	vt_check(what, data, sent, seed);
}

static void query_ep(struct vt *v, DAT_EP_HANDLE ep, const char *local,
		     const char *remote, DAT_CONN_QUAL rqual)
{
	DAT_EP_PARAM p;

	memset(&p, 0, sizeof(p));
	if (!vt_expect("dat_ep_query(ALL)",
		       dat_ep_query(ep, DAT_EP_FIELD_ALL, &p), DAT_SUCCESS))
		return;
	vt_expect_ptr("ep_param.ia_handle", p.ia_handle, v->ia);
	vt_expect_u64("ep_param.ep_state", p.ep_state,
		      DAT_EP_STATE_CONNECTED);
	vt_expect_ptr("ep_param.pz_handle", p.pz_handle, v->pz);
	vt_expect_ptr("ep_param.recv_evd_handle", p.recv_evd_handle,
		      v->rcv_evd);
	vt_expect_ptr("ep_param.request_evd_handle", p.request_evd_handle,
		      v->req_evd);
	vt_expect_ptr("ep_param.connect_evd_handle", p.connect_evd_handle,
		      v->conn_evd);
	vt_addr_is("ep_param.local_ia_address_ptr", p.local_ia_address_ptr,
		   local);
	vt_addr_is("ep_param.remote_ia_address_ptr", p.remote_ia_address_ptr,
		   remote);
	if (rqual)
		vt_expect_u64("ep_param.remote_port_qual", p.remote_port_qual,
			      rqual);
	vt_expect_u64("ep_attr.service_type", p.ep_attr.service_type,
		      DAT_SERVICE_TYPE_RC);
}

/* ---- connect: private data both ways, states, queries ---------------- */

/* The server's last message before the client disconnects: posted, and
 * its completion taken, SUCCESS or FLUSHED (the client's disconnect may
 * overtake its ack). */
static void go_last(struct vt *v, DAT_EP_HANDLE ep)
{
	DAT_LMR_TRIPLET iov = vt_iov(v->ctl, 0, sizeof(struct vt_msg));
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	struct vt_msg m;
	DAT_EVENT ev;

	vt_msg_init(&m, "go");
	memcpy(v->ctl->buf, &m, sizeof(m));
	vt_must("dat_ep_post_send(go)",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(0x60),
				 DAT_COMPLETION_DEFAULT_FLAG));
	if (vt_wait(v->req_evd, vt_secs(15), &ev) != DAT_SUCCESS)
		vt_die("the send of 'go' never completed");
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->user_cookie.as_64 != 0x60 ||
	    (d->status != DAT_DTO_SUCCESS && d->status != DAT_DTO_ERR_FLUSHED))
		vt_fail("the send of 'go': event %s status %s",
			vt_ev(ev.event_number), vt_dto(d->status));
	else
		vt_note("ok the send of 'go' completed %s", vt_dto(d->status));
}

static int connect_server(const struct vt_opts *o)
{
	unsigned char pd[SERVER_PDATA];
	DAT_CONN_QUAL qual = o->qual;
	DAT_PSP_HANDLE psp, psp2;
	DAT_CR_ARRIVAL_EVENT_DATA *cra;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	psp = vt_psp(&v, &qual);
	vt_expect_type("dat_psp_create(a qualifier in use)",
		       dat_psp_create(v.ia, qual, v.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &psp2),
		       DAT_CONN_QUAL_IN_USE);
	vt_listening(qual);

	cr = vt_wait_cr(&v, &ev);
	cra = &ev.event_data.cr_arrival_event_data;
	vt_expect_ptr("CR event sp_handle", cra->sp_handle.psp_handle, psp);
	vt_expect_u64("CR event conn_qual", cra->conn_qual, qual);
	vt_addr_is("CR event local_ia_address_ptr", cra->local_ia_address_ptr,
		   VT_SERVER_ADDR);
	memset(&crp, 0, sizeof(crp));
	vt_must("dat_cr_query(ALL)", dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	vt_addr_is("cr_param.remote_ia_address_ptr", crp.remote_ia_address_ptr,
		   VT_CLIENT_ADDR);
	vt_expect_ptr("cr_param.local_ep_handle (PSP, consumer EP)",
		      crp.local_ep_handle, DAT_HANDLE_NULL);
	check_pdata(&v, "client's private data in the CR",
		    crp.private_data_size, crp.private_data, CLIENT_PDATA, 1);

	ep = vt_ep(&v, NULL);
	vt_expect_state("new EP", ep, DAT_EP_STATE_UNCONNECTED);
	vt_fill(pd, sizeof(pd), 2);
	vt_accept(&v, cr, ep, pd, sizeof(pd));
	vt_expect_state("accepted EP", ep, DAT_EP_STATE_CONNECTED);
	query_ep(&v, ep, VT_SERVER_ADDR, VT_CLIENT_ADDR, 0);
	vt_expect_type("dat_ep_reset(CONNECTED)", dat_ep_reset(ep),
		       DAT_INVALID_STATE);
	/* only now may the client disconnect: else its DREQ can overtake
	 * the checks of a CONNECTED EP above */
	vt_msg_init(&m, "checked");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	/* and only once that send completed here: the client disconnects
	 * on its last message, and a send still in progress here when the
	 * connection ends may complete unsuccessfully though delivered
	 * (dat_ep_disconnect(3DAT): "Upon disconnect, all outstanding and
	 * in-progress DTOs and RMR Binds must be completed", and in-progress
	 * ones "can be completed successfully or unsuccessfully"; seen over
	 * rxe in the guest under load: FLUSHED, its ack behind the client's
	 * disconnect).  That last message ("go") may complete either way. */
	go_last(&v, ep);

	vt_wait_disconnected(&v, ep);
	vt_expect_state("after the peer's disconnect", ep,
			DAT_EP_STATE_DISCONNECTED);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_expect_type("dat_psp_free(freed PSP)", dat_psp_free(psp),
		       DAT_INVALID_HANDLE);
	vt_close(&v);
	return 0;
}

static int connect_client(const struct vt_opts *o)
{
	DAT_CONNECTION_EVENT_DATA *cd;
	unsigned char *pd;
	struct sockaddr_in sin;
	DAT_COUNT max;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	max = v.prov_attr.max_private_data_size;
	vt_note("max_private_data_size %d", max);
	pd = calloc(1, max + 1);
	if (!pd)
		vt_die("out of memory");
	ep = vt_ep(&v, NULL);
	vt_expect_state("new EP", ep, DAT_EP_STATE_UNCONNECTED);
	vt_ctl_post(&v, ep); /* "checked" */
	vt_ctl_post(&v, ep); /* "go" */
	vt_sockaddr(&sin, o->addr);

	vt_expect_type("dat_ep_connect(max_private_data_size + 1 bytes)",
		       dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
				      vt_secs(20), max + 1, pd,
				      DAT_QOS_BEST_EFFORT,
				      DAT_CONNECT_DEFAULT_FLAG),
		       DAT_INVALID_PARAMETER);
	vt_expect_state("after the refused connect", ep,
			DAT_EP_STATE_UNCONNECTED);

	vt_fill(pd, CLIENT_PDATA, 1);
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
			       vt_secs(20), CLIENT_PDATA, pd,
			       DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	if (!vt_expect_event("connection established", v.conn_evd,
			     DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		vt_die("no connection");
	cd = &ev.event_data.connect_event_data;
	vt_expect_ptr("ESTABLISHED ep_handle", cd->ep_handle, ep);
	check_pdata(&v, "server's private data in ESTABLISHED",
		    cd->private_data_size, cd->private_data, SERVER_PDATA, 2);
	vt_expect_state("connected EP", ep, DAT_EP_STATE_CONNECTED);
	query_ep(&v, ep, VT_CLIENT_ADDR, o->addr, o->qual);
	vt_ctl_recv(&v, ep, &m, "checked", 0);
	vt_ctl_recv(&v, ep, &m, "go", 0);

	vt_disconnect(&v, ep);
	vt_expect_state("after dat_ep_disconnect", ep,
			DAT_EP_STATE_DISCONNECTED);
	vt_ep_free(ep);
	free(pd);
	vt_close(&v);
	return 0;
}

/* ---- reject ------------------------------------------------------------ */

static int reject_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	vt_expect("dat_cr_reject", dat_cr_reject(cr), DAT_SUCCESS);
	vt_expect_type("dat_cr_reject(the rejected CR again)",
		       dat_cr_reject(cr), DAT_INVALID_HANDLE);

	/* the PSP still serves: the client's second try is accepted */
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, NULL);
	vt_accept(&v, cr, ep, NULL, 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static int reject_client(const struct vt_opts *o)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_ep(&v, NULL);
	vt_sockaddr(&sin, o->addr);
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
			       vt_secs(20), 0, NULL, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
	if (vt_expect_event("rejected by the peer", v.conn_evd,
			    DAT_CONNECTION_EVENT_PEER_REJECTED, &ev))
		vt_expect_ptr("PEER_REJECTED ep_handle",
			      ev.event_data.connect_event_data.ep_handle, ep);
	vt_expect_true("rejected EP is no longer connecting",
		       vt_ep_state(ep) != DAT_EP_STATE_CONNECTED &&
		       vt_ep_state(ep) !=
			       DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	vt_ep_free(ep);

	ep = vt_client_one(&v, o, NULL, 0);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

/* ---- a CR answered after its PSP was freed ------------------------------ */

/*
 * The CR of a freed PSP stays the consumer's to answer: the client's
 * first request is held while its PSP is freed and another is created on
 * the same qualifier, then rejected (the client must hear PEER_REJECTED
 * at once, not time out); the client's second request reaches the new
 * PSP and is accepted.
 */
static int pspgone_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	vt_expect("dat_psp_free (its CR unanswered)", dat_psp_free(psp),
		  DAT_SUCCESS);
	psp = vt_psp(&v, &qual);
	vt_expect("dat_cr_reject (the freed PSP's CR)", dat_cr_reject(cr),
		  DAT_SUCCESS);
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, NULL);
	vt_accept(&v, cr, ep, NULL, 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

/* ---- connect to a port nobody listens on; connect timeout ------------- */

static int connect_expect(const struct vt_opts *o, DAT_TIMEOUT timeout,
			  DAT_TIMEOUT bound, const DAT_EVENT_NUMBER *want,
			  int nwant)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	DAT_RETURN rc;
	uint64_t t0;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	ep = vt_ep(&v, NULL);
	vt_sockaddr(&sin, o->addr);
	t0 = vt_now_us();
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual, timeout,
			       0, NULL, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
	rc = vt_wait(v.conn_evd, bound, &ev);
	vt_note("connection event after %.3f s",
		(vt_now_us() - t0) / 1e6);
	if (rc != DAT_SUCCESS) {
		vt_fail("no connection event: dat_evd_wait %s", vt_rc(rc));
	} else {
		for (i = 0; i < nwant; i++)
			if (ev.event_number == want[i])
				break;
		if (i == nwant)
			vt_fail("connection event %s, want %s%s%s",
				vt_ev(ev.event_number), vt_ev(want[0]),
				nwant > 1 ? " or " : "",
				nwant > 1 ? vt_ev(want[1]) : "");
		else
			vt_note("ok connection event %s",
				vt_ev(ev.event_number));
		vt_expect_ptr("event ep_handle",
			      ev.event_data.connect_event_data.ep_handle, ep);
	}
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

static int noport_client(const struct vt_opts *o)
{
	static const DAT_EVENT_NUMBER want[] = {
		DAT_CONNECTION_EVENT_NON_PEER_REJECTED
	};

	return connect_expect(o, vt_secs(20), vt_secs(30), want, 1);
}

/* Nobody answers: the DAT timeout is what is tested, not a bound on how
 * slow the machine is, so it is not scaled (TEST_TIMEOUT_SCALE made it
 * 8 s in the emulated guest, 16 and more under load); the event may be
 * TIMED_OUT however slow the connect's own steps are. */
static int timeout_client(const struct vt_opts *o)
{
	static const DAT_EVENT_NUMBER want[] = {
		DAT_CONNECTION_EVENT_TIMED_OUT, DAT_CONNECTION_EVENT_UNREACHABLE
	};

	return connect_expect(o, 2000000, vt_secs(60), want, 2);
}

/* ---- a request whose listener vanishes ------------------------------------ */

/*
 * dat_ep_connect(3DAT) names the events a connect ends with; one that was
 * given DAT_TIMEOUT_INFINITE still ends when the process of the listener
 * that received its request goes away before it answers: within the
 * provider's own bound (libdaplofi: the keepalive timeout,
 * DAPL_OFI_KEEPALIVE_TIMEOUT_MS), as TIMED_OUT, UNREACHABLE or
 * NON_PEER_REJECTED.  The server keeps a control connection, opens a
 * second PSP and names it there; when the request to it arrived, it
 * (-n 0) closes its IA abruptly and exits, or (-n 1) kills itself.  (The
 * control connection first: libfabric 1.17's shm crashes the client when
 * the first message of a peer's endpoint is read after that endpoint is
 * gone, cr_overflow.bats; the answers of a vanishing server then come
 * from an endpoint the client knows.)
 */
static int vanish_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ctl;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	ctl = vt_serve_one(&v, NULL, 1, &psp);
	(void)vt_psp(&v, &qual);
	vt_msg_init(&m, "psp");
	m.addr = qual;
	vt_ctl_send(&v, ctl, &m, DAT_COMPLETION_DEFAULT_FLAG);
	(void)vt_wait_cr(&v, &ev);
	printf("have the request\n");
	fflush(stdout);
	if (o->count == 1)
		raise(SIGKILL);
	/* the IA's objects go with it (dat_ia_close(3DAT), abrupt) */
	vt_expect("dat_ia_close(ABRUPT) with the request pending",
		  dat_ia_close(v.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	free(v.ctl);
	return 0;
}

static int vanish_client(const struct vt_opts *o)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ctl, ep;
	struct vt_msg m;
	DAT_EVENT ev;
	DAT_RETURN rc;
	uint64_t t0;
	struct vt v;

	vt_open(&v, o->ia_name);
	ctl = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ctl, &m, "psp", 0);
	ep = vt_ep(&v, NULL);
	vt_sockaddr(&sin, o->addr);
	t0 = vt_now_us();
	vt_must("dat_ep_connect(DAT_TIMEOUT_INFINITE)",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, m.addr,
			       DAT_TIMEOUT_INFINITE, 0, NULL,
			       DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	/* the control connection ends too (the server is gone): its event
	 * is not the one awaited */
	do
		rc = vt_wait(v.conn_evd, vt_secs(60), &ev);
	while (rc == DAT_SUCCESS &&
	       ev.event_data.connect_event_data.ep_handle == ctl);
	vt_note("connection event after %.3f s", (vt_now_us() - t0) / 1e6);
	if (rc != DAT_SUCCESS)
		vt_fail("the connect never ended: dat_evd_wait %s", vt_rc(rc));
	else if (ev.event_number != DAT_CONNECTION_EVENT_TIMED_OUT &&
		 ev.event_number != DAT_CONNECTION_EVENT_UNREACHABLE &&
		 ev.event_number != DAT_CONNECTION_EVENT_NON_PEER_REJECTED)
		vt_fail("connection event %s, want TIMED_OUT, UNREACHABLE or "
			"NON_PEER_REJECTED", vt_ev(ev.event_number));
	else
		vt_note("ok connection event %s", vt_ev(ev.event_number));
	vt_ep_free(ep);
	vt_ep_free(ctl);
	vt_close(&v);
	return 0;
}

/* ---- PSP_any -------------------------------------------------------------- */

static int psp_any_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0, qual2 = 0;
	DAT_PSP_HANDLE psp, psp2, psp3;
	DAT_PSP_PARAM pp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_must("dat_psp_create_any",
		dat_psp_create_any(v.ia, &qual, v.cr_evd,
				   DAT_PSP_CONSUMER_FLAG, &psp));
	vt_expect_true("PSP_any qualifier is not 0", qual != 0);
	memset(&pp, 0, sizeof(pp));
	vt_must("dat_psp_query(ALL)",
		dat_psp_query(psp, DAT_PSP_FIELD_ALL, &pp));
	vt_expect_ptr("psp_param.ia_handle", pp.ia_handle, v.ia);
	vt_expect_u64("psp_param.conn_qual", pp.conn_qual, qual);
	vt_expect_ptr("psp_param.evd_handle", pp.evd_handle, v.cr_evd);
	vt_expect_u64("psp_param.psp_flags", pp.psp_flags,
		      DAT_PSP_CONSUMER_FLAG);
	vt_must("dat_psp_create_any (second)",
		dat_psp_create_any(v.ia, &qual2, v.cr_evd,
				   DAT_PSP_CONSUMER_FLAG, &psp2));
	vt_expect_true("second PSP_any has another qualifier", qual2 != qual);
	vt_expect("dat_psp_free(second)", dat_psp_free(psp2), DAT_SUCCESS);
	vt_expect_type("dat_psp_create(the PSP_any qualifier)",
		       dat_psp_create(v.ia, qual, v.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &psp3),
		       DAT_CONN_QUAL_IN_USE);
	vt_listening(qual);

	cr = vt_wait_cr(&v, &ev);
	vt_expect_ptr("CR event sp_handle",
		      ev.event_data.cr_arrival_event_data.sp_handle.psp_handle,
		      psp);
	vt_expect_u64("CR event conn_qual",
		      ev.event_data.cr_arrival_event_data.conn_qual, qual);
	ep = vt_ep(&v, NULL);
	vt_ctl_post(&v, ep);
	vt_accept(&v, cr, ep, NULL, 0);
	vt_ctl_recv(&v, ep, &m, "hello", 0);
	vt_msg_init(&m, "hello-back");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

/* the client of psp-any, rsp: one exchange of control messages */
static int hello_client(const struct vt_opts *o)
{
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_msg_init(&m, "hello");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&v, ep, &m, "hello-back", 0);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

/* ---- RSP ---------------------------------------------------------------- */

static int rsp_server(const struct vt_opts *o)
{
	DAT_RSP_HANDLE rsp, rsp2;
	DAT_EP_HANDLE ep, ep2;
	DAT_CR_ARRIVAL_EVENT_DATA *cra;
	DAT_RSP_PARAM rp;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_ep(&v, NULL);
	vt_ctl_post(&v, ep);
	vt_must("dat_rsp_create",
		dat_rsp_create(v.ia, o->qual, ep, v.cr_evd, &rsp));
	vt_expect_state("EP of an RSP", ep, DAT_EP_STATE_RESERVED);
	memset(&rp, 0, sizeof(rp));
	vt_must("dat_rsp_query(ALL)",
		dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &rp));
	vt_expect_ptr("rsp_param.ia_handle", rp.ia_handle, v.ia);
	vt_expect_u64("rsp_param.conn_qual", rp.conn_qual, o->qual);
	vt_expect_ptr("rsp_param.evd_handle", rp.evd_handle, v.cr_evd);
	vt_expect_ptr("rsp_param.ep_handle", rp.ep_handle, ep);
	ep2 = vt_ep(&v, NULL);
	vt_expect_type("dat_rsp_create(a qualifier in use)",
		       dat_rsp_create(v.ia, o->qual, ep2, v.cr_evd, &rsp2),
		       DAT_CONN_QUAL_IN_USE);
	vt_ep_free(ep2);
	vt_listening(o->qual);

	cr = vt_wait_cr(&v, &ev);
	cra = &ev.event_data.cr_arrival_event_data;
	vt_expect_ptr("CR event sp_handle (the RSP)", cra->sp_handle.rsp_handle,
		      rsp);
	vt_expect_u64("CR event conn_qual", cra->conn_qual, o->qual);
	memset(&crp, 0, sizeof(crp));
	vt_must("dat_cr_query(ALL)", dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	vt_expect_ptr("cr_param.local_ep_handle (the RSP's EP)",
		      crp.local_ep_handle, ep);
	vt_expect_state("EP of an RSP with a CR", ep,
			DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
	/* the CR names its EP: accept with DAT_HANDLE_NULL */
	vt_must("dat_cr_accept(cr, DAT_HANDLE_NULL)",
		dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
	if (!vt_expect_event("connection established", v.conn_evd,
			     DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		vt_die("no connection");
	vt_expect_ptr("ESTABLISHED ep_handle",
		      ev.event_data.connect_event_data.ep_handle, ep);
	vt_ctl_recv(&v, ep, &m, "hello", 0);
	vt_msg_init(&m, "hello-back");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_expect("dat_rsp_free", dat_rsp_free(rsp), DAT_SUCCESS);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

/* ---- dup_connect -------------------------------------------------------- */

static void wait_two_disconnects(struct vt *v, DAT_EP_HANDLE a,
				 DAT_EP_HANDLE b)
{
	DAT_EP_HANDLE got[2] = { NULL, NULL };
	DAT_EVENT ev;
	int i;

	for (i = 0; i < 2; i++)
		if (vt_expect_event("disconnected", v->conn_evd,
				    DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
			got[i] = ev.event_data.connect_event_data.ep_handle;
	vt_expect_true("one DISCONNECTED event for each EP",
		       (got[0] == a && got[1] == b) ||
			       (got[0] == b && got[1] == a));
}

static int dup_server(const struct vt_opts *o)
{
	static const char *const pd[2] = { "conn-1", "dup-2" };
	DAT_CONN_QUAL qual = 0;
	DAT_EP_HANDLE ep[2];
	DAT_PSP_HANDLE psp;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	for (i = 0; i < 2; i++) {
		cr = vt_wait_cr(&v, &ev);
		memset(&crp, 0, sizeof(crp));
		vt_must("dat_cr_query",
			dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
		if (crp.private_data_size < (DAT_COUNT)strlen(pd[i]) + 1 ||
		    !crp.private_data ||
		    strcmp((char *)crp.private_data, pd[i]))
			vt_fail("CR %d private data: want '%s'", i + 1, pd[i]);
		else
			vt_note("ok CR %d private data '%s'", i + 1, pd[i]);
		ep[i] = vt_ep(&v, NULL);
		vt_ctl_post(&v, ep[i]);
		vt_accept(&v, cr, ep[i], NULL, 0);
	}
	vt_ctl_recv(&v, ep[0], &m, "on-ep1", 0);
	vt_ctl_recv(&v, ep[1], &m, "on-ep2", 0);
	vt_msg_init(&m, "back-ep1");
	vt_ctl_send(&v, ep[0], &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_msg_init(&m, "back-ep2");
	vt_ctl_send(&v, ep[1], &m, DAT_COMPLETION_DEFAULT_FLAG);
	wait_two_disconnects(&v, ep[0], ep[1]);
	vt_ep_free(ep[0]);
	vt_ep_free(ep[1]);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static int dup_client(const struct vt_opts *o)
{
	char pd1[] = "conn-1", pd2[] = "dup-2";
	DAT_EP_HANDLE ep1, ep2;
	DAT_EP_PARAM p;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep1 = vt_ep(&v, NULL);
	vt_ctl_post(&v, ep1);
	vt_connect(&v, ep1, o->addr, o->qual, pd1, sizeof(pd1));
	ep2 = vt_ep(&v, NULL);
	vt_ctl_post(&v, ep2);
	vt_must("dat_ep_dup_connect",
		dat_ep_dup_connect(ep2, ep1, vt_secs(20), sizeof(pd2), pd2,
				   DAT_QOS_BEST_EFFORT));
	if (!vt_expect_event("dup connection established", v.conn_evd,
			     DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		vt_die("no dup connection");
	vt_expect_ptr("ESTABLISHED ep_handle (the dup EP)",
		      ev.event_data.connect_event_data.ep_handle, ep2);
	memset(&p, 0, sizeof(p));
	vt_must("dat_ep_query(dup EP)", dat_ep_query(ep2, DAT_EP_FIELD_ALL,
						     &p));
	vt_addr_is("dup EP remote address", p.remote_ia_address_ptr, o->addr);
	vt_expect_u64("dup EP remote_port_qual", p.remote_port_qual, o->qual);

	vt_msg_init(&m, "on-ep1");
	vt_ctl_send(&v, ep1, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_msg_init(&m, "on-ep2");
	vt_ctl_send(&v, ep2, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&v, ep1, &m, "back-ep1", 0);
	vt_ctl_recv(&v, ep2, &m, "back-ep2", 0);
	vt_disconnect(&v, ep1);
	vt_disconnect(&v, ep2);
	vt_ep_free(ep1);
	vt_ep_free(ep2);
	vt_close(&v);
	return 0;
}

/* ---- ep_modify, and UNSIGNALLED where the EP allows it --------------- */

static int modify_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_serve_one(&v, NULL, 2, &psp);
	vt_ctl_recv(&v, ep, &m, "unsignalled", 0);
	vt_ctl_recv(&v, ep, &m, "signalled", 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static void modify_unconnected(struct vt *v, DAT_EP_HANDLE ep)
{
	DAT_EP_PARAM p;

	memset(&p, 0, sizeof(p));
	p.ep_attr.max_recv_dtos = 7;
	p.ep_attr.max_request_dtos = 9;
	p.ep_attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	vt_expect("dat_ep_modify(recv/request DTOs, request flags)",
		  dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
				DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS |
				DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
				&p),
		  DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	vt_must("dat_ep_query", dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
	vt_note("after modify: max_recv_dtos %d max_request_dtos %d",
		p.ep_attr.max_recv_dtos, p.ep_attr.max_request_dtos);
	vt_expect_true("max_recv_dtos is at least 7",
		       p.ep_attr.max_recv_dtos >= 7);
	vt_expect_true("max_request_dtos is at least 9",
		       p.ep_attr.max_request_dtos >= 9);
	vt_expect_u64("request_completion_flags",
		      p.ep_attr.request_completion_flags,
		      DAT_COMPLETION_UNSIGNALLED_FLAG);

	p.ep_state = DAT_EP_STATE_CONNECTED;
	vt_expect_type("dat_ep_modify(EP_STATE)",
		       dat_ep_modify(ep, DAT_EP_FIELD_EP_STATE, &p),
		       DAT_INVALID_PARAMETER);
	p.ep_attr.max_recv_dtos = v->ia_attr.max_dto_per_ep + 1;
	vt_expect_type("dat_ep_modify(max_recv_dtos above the IA's max)",
		       dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
				     &p),
		       DAT_INVALID_PARAMETER);
}

/* An UNSIGNALLED send followed by a signalled one: the signalled one's
 * completion must come; the unsignalled one's may come before it. */
static void unsignalled_sends(struct vt *v, DAT_EP_HANDLE ep)
{
	struct vt_mem mem;
	DAT_LMR_TRIPLET iov;
	struct vt_msg m;
	DAT_EVENT ev;
	DAT_RETURN rc;

	vt_mem_alloc(v, &mem, sizeof(m), DAT_MEM_PRIV_LOCAL_READ_FLAG |
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_msg_init(&m, "unsignalled");
	memcpy(mem.buf, &m, sizeof(m));
	iov = vt_iov(&mem, 0, sizeof(m));
	vt_expect("dat_ep_post_send(UNSIGNALLED) on an UNSIGNALLED EP",
		  dat_ep_post_send(ep, 1, &iov, vt_cookie(0x5151),
				   DAT_COMPLETION_UNSIGNALLED_FLAG),
		  DAT_SUCCESS);
	vt_msg_init(&m, "signalled");
	memcpy(v->ctl->buf, &m, sizeof(m));
	iov = vt_iov(v->ctl, 0, sizeof(m));
	vt_must("dat_ep_post_send(DEFAULT)",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(0x5252),
				 DAT_COMPLETION_DEFAULT_FLAG));
	rc = vt_wait(v->req_evd, vt_secs(15), &ev);
	if (rc == DAT_SUCCESS &&
	    ev.event_data.dto_completion_event_data.user_cookie.as_64 ==
		    0x5151) {
		vt_check_dto("UNSIGNALLED send's completion", &ev, ep, 0x5151,
			     DAT_DTO_SUCCESS, sizeof(m));
		rc = vt_wait(v->req_evd, vt_secs(15), &ev);
	} else {
		vt_note("(no completion event for the UNSIGNALLED send)");
	}
	if (rc != DAT_SUCCESS)
		vt_fail("signalled send: dat_evd_wait %s", vt_rc(rc));
	else
		vt_check_dto("signalled send", &ev, ep, 0x5252,
			     DAT_DTO_SUCCESS, sizeof(m));
	vt_expect_empty("request EVD after both sends", v->req_evd);
	vt_mem_free(&mem);
}

static int modify_client(const struct vt_opts *o)
{
	DAT_EP_PARAM p;
	DAT_EP_HANDLE ep;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_ep(&v, NULL);
	modify_unconnected(&v, ep);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	memset(&p, 0, sizeof(p));
	p.ep_attr.max_recv_dtos = 8;
	vt_expect_type("dat_ep_modify(max_recv_dtos) when CONNECTED",
		       dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
				     &p),
		       DAT_INVALID_STATE);
	unsignalled_sends(&v, ep);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

/* ---- ep_reset and reuse of the EP --------------------------------------- */

static int reuse_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, NULL);
	vt_ctl_post(&v, ep);
	vt_accept(&v, cr, ep, NULL, 0);
	vt_ctl_recv(&v, ep, &m, "first", 0);
	vt_wait_disconnected(&v, ep);
	vt_expect_state("after the first connection", ep,
			DAT_EP_STATE_DISCONNECTED);
	vt_expect("dat_ep_reset(DISCONNECTED)", dat_ep_reset(ep), DAT_SUCCESS);
	vt_expect_state("after dat_ep_reset", ep, DAT_EP_STATE_UNCONNECTED);

	vt_ctl_post(&v, ep);
	cr = vt_wait_cr(&v, &ev);
	vt_accept(&v, cr, ep, NULL, 0);
	vt_ctl_recv(&v, ep, &m, "second", 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static int reuse_client(const struct vt_opts *o)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_ep(&v, NULL);
	vt_expect("dat_ep_reset(UNCONNECTED) is a no-op", dat_ep_reset(ep),
		  DAT_SUCCESS);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	vt_msg_init(&m, "first");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_expect_state("after disconnect", ep, DAT_EP_STATE_DISCONNECTED);
	vt_sockaddr(&sin, o->addr);
	vt_expect_type("dat_ep_connect(DISCONNECTED EP)",
		       dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
				      vt_secs(20), 0, NULL,
				      DAT_QOS_BEST_EFFORT,
				      DAT_CONNECT_DEFAULT_FLAG),
		       DAT_INVALID_STATE);
	vt_expect("dat_ep_reset(DISCONNECTED)", dat_ep_reset(ep), DAT_SUCCESS);
	vt_expect_state("after dat_ep_reset", ep, DAT_EP_STATE_UNCONNECTED);
	vt_expect("dat_ep_reset(again)", dat_ep_reset(ep), DAT_SUCCESS);

	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	vt_msg_init(&m, "second");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_cm_tests[] = {
	{ "connect", connect_server, connect_client },
	{ "reject", reject_server, reject_client },
	{ "psp-gone-reject", pspgone_server, reject_client },
	{ "noport", NULL, noport_client },
	{ "timeout", NULL, timeout_client },
	{ "vanish", vanish_server, vanish_client },
	{ "psp-any", psp_any_server, hello_client },
	{ "rsp", rsp_server, hello_client },
	{ "dup-connect", dup_server, dup_client },
	{ "ep-modify", modify_server, modify_client },
	{ "reuse", reuse_server, reuse_client },
	{ NULL, NULL, NULL }
};
