/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lmr-life: dat_lmr_free while a posted receive still names the LMR.
 *
 * dat_lmr_free(3DAT): "The operation does not deallocate the memory
 * region or unpin memory on a host", and "Any DTO operation that uses
 * the destroyed LMR after the dat_lmr_free() is completed shall fail and
 * report a protection violation."  A consumer that frees an LMR believes
 * the memory is no longer the transport's: no byte may land in it after
 * dat_lmr_free returned DAT_SUCCESS.  So the free either refuses
 * (DAT_INVALID_STATE: the LMR is in use, as for an RMR bound to it) and
 * the receive then completes normally, or it succeeds and the receive
 * completes with an error status, the memory untouched.  Which one is
 * the provider's choice (libfabric: in use; verbs: the registration goes
 * and the HCA refuses the data).
 *
 * The server registers 64 KiB filled with pattern LL_OLD, accepts one
 * connection without posting control receives (so the first receive of
 * the EP is the LMR's), posts a receive of the whole LMR, frees the LMR,
 * and only then asks the client (a control message) to send 64 KiB of
 * pattern LL_NEW.  Then, for either answer of dat_lmr_free, the checks
 * above; and a receive posted with the freed LMR's lmr_context is
 * refused DAT_PRIVILEGES_VIOLATION (dat_ep_post_recv(3DAT): an LMR of
 * local_iov "was either invalid").
 */
#include <string.h>

#include "vt.h"

#define LL_LEN (64u * 1024)
#define LL_OLD 31u	/* the server's memory before */
#define LL_NEW 32u	/* what the client sends */
#define LL_RECV 7u	/* cookies */
#define LL_SEND 9u

/* The server's connection ends, however it ends: an EP whose receive
 * failed may be broken; otherwise it is disconnected gracefully. */
static void ll_end(struct vt *v, DAT_EP_HANDLE ep)
{
	DAT_EVENT ev;

	if (vt_poll(v->conn_evd, vt_msecs(0), &ev) == DAT_SUCCESS) {
		vt_check_conn_end("the connection's end", &ev);
		return;
	}
	vt_expect("dat_ep_disconnect(GRACEFUL)",
		  dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	vt_wait_conn_end(v, "the connection's end");
}

/* A receive naming the freed LMR's context is refused at once:
 * dat_ep_post_recv(3DAT), DAT_PRIVILEGES_VIOLATION: "One of the LMRs used
 * in local_iov was either invalid or did not have the local read
 * privileges." */
static void ll_post_freed(DAT_EP_HANDLE ep, const DAT_LMR_TRIPLET *iov)
{
	vt_expect_type("dat_ep_post_recv naming the freed LMR",
		       dat_ep_post_recv(ep, 1, (DAT_LMR_TRIPLET *)iov,
					vt_cookie(LL_RECV + 1),
					DAT_COMPLETION_DEFAULT_FLAG),
		       DAT_PRIVILEGES_VIOLATION);
}

static int lmr_life_server(const struct vt_opts *o)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET iov;
	DAT_PSP_HANDLE psp;
	struct vt_mem l;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	DAT_EVENT ev;
	struct vt v;
	int freed;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, LL_LEN, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_fill(l.buf, LL_LEN, LL_OLD);
	vt_ep_attr(&v, &a);
	ep = vt_serve_one(&v, &a, 0, &psp);
	iov = vt_iov(&l, 0, LL_LEN);
	vt_must("dat_ep_post_recv into the LMR",
		dat_ep_post_recv(ep, 1, &iov, vt_cookie(LL_RECV),
				 DAT_COMPLETION_DEFAULT_FLAG));

	rc = dat_lmr_free(l.lmr);
	freed = rc == DAT_SUCCESS;
	if (freed) {
		vt_note("ok dat_lmr_free with the receive posted: DAT_SUCCESS");
		l.lmr = DAT_HANDLE_NULL;
		ll_post_freed(ep, &iov);
	} else {
		vt_expect_type("dat_lmr_free with the receive posted", rc,
			       DAT_INVALID_STATE);
	}

	vt_msg_init(&m, "send");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);

	rc = vt_wait(v.rcv_evd, vt_secs(15), &ev);
	if (rc != DAT_SUCCESS) {
		vt_fail("the receive into the LMR: dat_evd_wait: %s",
			vt_rc(rc));
	} else if (!freed) {
		/* in use: it completes as any receive, then the LMR goes */
		vt_check_dto("the receive into the LMR", &ev, ep, LL_RECV,
			     DAT_DTO_SUCCESS, LL_LEN);
		vt_check("the LMR holds the peer's bytes", l.buf, LL_LEN,
			 LL_NEW);
		vt_expect("dat_lmr_free once the receive completed",
			  dat_lmr_free(l.lmr), DAT_SUCCESS);
		l.lmr = DAT_HANDLE_NULL;
		ll_post_freed(ep, &iov);
	} else {
		d = &ev.event_data.dto_completion_event_data;
		vt_expect_true("a DTO completion of the receive",
			       ev.event_number == DAT_DTO_COMPLETION_EVENT &&
				       d->user_cookie.as_64 == LL_RECV);
		vt_expect_true("the receive into the freed LMR did not succeed",
			       d->status != DAT_DTO_SUCCESS);
		vt_note("  (its status: %s)", vt_dto(d->status));
		vt_check("the freed LMR's memory is untouched", l.buf, LL_LEN,
			 LL_OLD);
	}
	ll_end(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

static int lmr_life_client(const struct vt_opts *o)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET iov;
	struct vt_mem l;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, LL_LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG);
	vt_fill(l.buf, LL_LEN, LL_NEW);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &m, "send", 0);
	iov = vt_iov(&l, 0, LL_LEN);
	vt_must("dat_ep_post_send",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(LL_SEND),
				 DAT_COMPLETION_DEFAULT_FLAG));
	/* its status is the server's choice (see above): the server checks */
	rc = vt_wait(v.req_evd, vt_secs(15), &ev);
	vt_expect("the send's completion", rc, DAT_SUCCESS);
	if (rc == DAT_SUCCESS) {
		d = &ev.event_data.dto_completion_event_data;
		vt_expect_true("a DTO completion of the send",
			       ev.event_number == DAT_DTO_COMPLETION_EVENT &&
				       d->user_cookie.as_64 == LL_SEND);
		vt_note("  (the send's status: %s)", vt_dto(d->status));
	}
	vt_wait_conn_end(&v, "the server ends the connection");
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_lmr_life_tests[] = {
	{ "lmr-life", lmr_life_server, lmr_life_client },
	{ NULL, NULL, NULL },
};
