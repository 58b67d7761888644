/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues and CR handoff on rxe, part of dattest-verbs
 * (test/verbs/srq.bats):
 *
 *   srq-eight  server: eight EPs on one SRQ; client: eight EPs sending to
 *		them round-robin.  Every message arrives exactly once, on
 *		the EP it was sent to (the event's ep_handle), in order per
 *		EP; the low watermark fires once per setting (also at once
 *		when set below what is queued); dat_srq_resize grows the
 *		queue past its first size and refuses to shrink below what
 *		is outstanding; dat_srq_query counts; the SRQ EP's own
 *		receive calls answer as the spec says; an SRQ with EPs
 *		cannot be freed.
 *   handoff    server: a CR on one PSP is handed off to a second PSP (its
 *		own CR EVD), accepted there, and data flows; a qualifier
 *		nobody listens on is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define ERR(t, s) ((DAT_RETURN)(DAT_CLASS_ERROR | (t) | (s)))
#define NEP 8
#define SRQ_LEN 64
#define MSG 16
#define SLOT 64
#define ROUNDS 3
#define PER_ROUND (SRQ_LEN / NEP) /* messages per EP and round */
#define BIG_POSTS 100		  /* after the resize to 128 */
#define BIG_PER_EP 12		  /* 96 messages: 4 stay queued */

/* what a message says: who sent it, when */
struct srq_msg {
	uint32_t ep;
	uint32_t round;
	uint32_t seq;
	uint32_t magic;
};

#define SRQ_MAGIC 0x5152514du

static void post_srq(DAT_SRQ_HANDLE srq, struct vt_mem *buf, int from, int n)
{
	int i;

	for (i = from; i < from + n; i++) {
		DAT_LMR_TRIPLET t = vt_iov(buf, (DAT_VLEN)SLOT * i, SLOT);

		memset(buf->buf + SLOT * i, 0xEE, SLOT);
		if (dat_srq_post_recv(srq, 1, &t, vt_cookie(i)) != DAT_SUCCESS)
			vt_die("dat_srq_post_recv %d refused", i);
	}
}

static void expect_lw_event(struct vt *v, DAT_SRQ_HANDLE srq, const char *why)
{
	const DAT_ASYNCH_ERROR_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc = vt_wait(v->async_evd, vt_secs(15), &ev);

	d = &ev.event_data.asynch_error_event_data;
	if (rc != DAT_SUCCESS) {
		vt_fail("low watermark event (%s): %s", why, vt_rc(rc));
		return;
	}
	if (ev.event_number != DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR ||
	    d->dat_handle != srq || d->reason != DAT_SRQ_LOW_WATERMARK_EVENT)
		vt_fail(
		    "low watermark event (%s): event 0x%x handle %p reason %d",
		    why, ev.event_number, d->dat_handle, d->reason);
	else
		vt_note("ok low watermark event (%s)", why);
}

/* Reaps n receive completions; each must be on the EP it names. */
static void reap(struct vt *v, DAT_EP_HANDLE *ep, struct vt_mem *buf, int n,
		 int round, int per_ep, unsigned char seen[NEP][16])
{
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d;
		const struct srq_msg *m;
		DAT_EVENT ev;
		uint64_t slot;

		if (vt_wait(v->rcv_evd, vt_secs(30), &ev) != DAT_SUCCESS)
			vt_die("round %d: only %d of %d receives", round, i, n);
		d = &ev.event_data.dto_completion_event_data;
		slot = d->user_cookie.as_64;
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
		    d->status != DAT_DTO_SUCCESS ||
		    d->transfered_length != MSG || slot >= 128) {
			vt_fail("round %d: event %s status %s length %llu "
				"cookie %llu",
				round, vt_ev(ev.event_number),
				vt_dto(d->status),
				(unsigned long long)d->transfered_length,
				(unsigned long long)slot);
			bad++;
			continue;
		}
		m = (const struct srq_msg *)(buf->buf + SLOT * slot);
		if (m->magic != SRQ_MAGIC || m->ep >= NEP ||
		    (int)m->round != round || (int)m->seq >= per_ep ||
		    d->ep_handle != ep[m->ep] || seen[m->ep][m->seq] ||
		    (m->seq && !seen[m->ep][m->seq - 1])) {
			if (!bad++)
				vt_fail("round %d: message ep %u round %u seq "
					"%u on EP %p (want %p), seen %d",
					round, m->ep, m->round, m->seq,
					d->ep_handle,
					m->ep < NEP ? ep[m->ep] : NULL,
					m->ep < NEP && m->seq < 16
					    ? seen[m->ep][m->seq]
					    : -1);
			continue;
		}
		seen[m->ep][m->seq] = 1;
	}
	if (!bad)
		vt_note(
		    "ok round %d: %d messages, each once, on its EP, in order",
		    round, n);
}

static void expect_query(DAT_SRQ_HANDLE srq, DAT_COUNT max, DAT_COUNT out,
			 const char *when)
{
	DAT_SRQ_PARAM p;
	char what[96];

	memset(&p, 0, sizeof(p));
	snprintf(what, sizeof(what), "dat_srq_query (%s)", when);
	if (!vt_expect(what, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p),
		       DAT_SUCCESS))
		return;
	snprintf(what, sizeof(what), "max_recv_dtos (%s)", when);
	vt_expect_u64(what, p.max_recv_dtos, max);
	snprintf(what, sizeof(what), "outstanding_dto_count (%s)", when);
	vt_expect_u64(what, p.outstanding_dto_count, out);
}

static void srq_ep_checks(DAT_EP_HANDLE ep, DAT_SRQ_HANDLE srq,
			  struct vt_mem *buf)
{
	DAT_LMR_TRIPLET t = vt_iov(buf, 0, SLOT);
	DAT_COUNT nb = 0, span = 0;
	DAT_EP_PARAM p;

	vt_expect("dat_ep_post_recv on an SRQ EP",
		  dat_ep_post_recv(ep, 1, &t, vt_cookie(1),
				   DAT_COMPLETION_DEFAULT_FLAG),
		  ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE));
	vt_expect("dat_ep_recv_query on an SRQ EP",
		  dat_ep_recv_query(ep, &nb, &span), DAT_SUCCESS);
	vt_expect_u64("nbufs_allocated of an SRQ EP", (uint32_t)nb,
		      (uint32_t)DAT_VALUE_UNKNOWN);
	vt_expect_u64("bufs_alloc_span of an SRQ EP", (uint32_t)span,
		      (uint32_t)DAT_VALUE_UNKNOWN);
	vt_expect("dat_ep_query(SRQ_HANDLE)",
		  dat_ep_query(ep, DAT_EP_FIELD_SRQ_HANDLE, &p), DAT_SUCCESS);
	vt_expect_ptr("the EP's srq_handle", p.srq_handle, srq);
	vt_expect("dat_ep_set_watermark(infinite)",
		  dat_ep_set_watermark(ep, DAT_WATERMARK_INFINITE,
				       DAT_WATERMARK_INFINITE),
		  DAT_SUCCESS);
	vt_expect("dat_srq_free with EPs on it", dat_srq_free(srq),
		  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE));
}

static void go(struct vt *v, DAT_EP_HANDLE ep, const char *tag, int per_ep,
	       int round)
{
	struct vt_msg m;

	vt_msg_init(&m, tag);
	m.arg = (uint32_t)per_ep;
	m.seed = (uint32_t)round;
	vt_ctl_send(v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
}

static int eight_server(const struct vt_opts *o)
{
	unsigned char seen[NEP][16];
	DAT_SRQ_ATTR sa = {SRQ_LEN, 1, DAT_SRQ_LW_DEFAULT};
	DAT_CONN_QUAL qual = 0;
	DAT_EP_HANDLE ep[NEP];
	DAT_SRQ_HANDLE srq;
	DAT_PSP_HANDLE psp;
	struct vt_mem buf;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	struct vt v;
	int k, r;

	vt_open(&v, o->ia_name);
	vt_expect_u64("provider srq_supported", v.prov_attr.srq_supported,
		      DAT_TRUE);
	vt_mem_alloc(&v, &buf, SLOT * 128,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_must("dat_srq_create", dat_srq_create(v.ia, v.pz, &sa, &srq));
	vt_ep_attr(&v, &a);
	for (k = 0; k < NEP; k++) {
		ep[k] = DAT_HANDLE_NULL;
		vt_must("dat_ep_create_with_srq",
			dat_ep_create_with_srq(v.ia, v.pz, v.rcv_evd, v.req_evd,
					       v.conn_evd, srq, &a, &ep[k]));
	}
	srq_ep_checks(ep[0], srq, &buf);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	for (k = 0; k < NEP; k++)
		vt_accept(&v, vt_wait_cr(&v, &ev), ep[k], NULL, 0);

	for (r = 0; r < ROUNDS; r++) {
		post_srq(srq, &buf, 0, SRQ_LEN);
		expect_query(srq, SRQ_LEN, SRQ_LEN, "all posted");
		if (r == 0)
			vt_expect("dat_srq_set_lw(8)", dat_srq_set_lw(srq, 8),
				  DAT_SUCCESS);
		memset(seen, 0, sizeof(seen));
		go(&v, ep[0], "go", PER_ROUND, r);
		reap(&v, ep, &buf, SRQ_LEN, r, PER_ROUND, seen);
		expect_query(srq, SRQ_LEN, 0, "all reaped");
		if (r == 0)
			expect_lw_event(&v, srq, "queue fell below 8");
		else
			vt_expect_empty("async EVD (once per setting)",
					v.async_evd);
	}

	/* grow past the first size and use it */
	vt_expect("dat_srq_resize(128)", dat_srq_resize(srq, 128), DAT_SUCCESS);
	post_srq(srq, &buf, 0, BIG_POSTS);
	expect_query(srq, 128, BIG_POSTS, "after the resize");
	vt_expect("dat_srq_resize(50) below the outstanding 100",
		  dat_srq_resize(srq, 50), ERR(DAT_INVALID_STATE, 0));
	vt_expect("dat_srq_set_lw(200) above max_recv_dtos",
		  dat_srq_set_lw(srq, 200),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	vt_expect("dat_srq_set_lw(20)", dat_srq_set_lw(srq, 20), DAT_SUCCESS);
	vt_expect("dat_srq_resize(10) below the low watermark 20",
		  dat_srq_resize(srq, 10), ERR(DAT_INVALID_STATE, 0));
	memset(seen, 0, sizeof(seen));
	go(&v, ep[0], "go", BIG_PER_EP, ROUNDS);
	reap(&v, ep, &buf, NEP * BIG_PER_EP, ROUNDS, BIG_PER_EP, seen);
	expect_lw_event(&v, srq, "100 posted, 96 used, mark 20");
	expect_query(srq, 128, BIG_POSTS - NEP * BIG_PER_EP, "4 left");
	/* below the mark already: at once */
	vt_expect("dat_srq_set_lw(10) with 4 queued", dat_srq_set_lw(srq, 10),
		  DAT_SUCCESS);
	expect_lw_event(&v, srq, "set below what is queued");

	go(&v, ep[0], "end", 0, 0);
	for (k = 0; k < NEP; k++)
		if (!vt_expect_event("disconnected", v.conn_evd,
				     DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
			break;
	for (k = 0; k < NEP; k++)
		vt_ep_free(ep[k]);
	/* four receives are still posted: freed all the same */
	vt_expect("dat_srq_free", dat_srq_free(srq), DAT_SUCCESS);
	vt_expect("dat_srq_free (stale handle)", dat_srq_free(srq),
		  ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ));
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&buf);
	vt_close(&v);
	return 0;
}

/* per_ep messages on every EP, round-robin, eight in flight at a time */
static void send_round(struct vt *v, DAT_EP_HANDLE *ep, struct vt_mem *buf,
		       int per_ep, int round)
{
	int j, k;

	for (j = 0; j < per_ep; j++) {
		for (k = 0; k < NEP; k++) {
			struct srq_msg *m =
			    (struct srq_msg *)(buf->buf + SLOT * k);
			DAT_LMR_TRIPLET t =
			    vt_iov(buf, (DAT_VLEN)SLOT * k, MSG);

			m->ep = (uint32_t)k;
			m->round = (uint32_t)round;
			m->seq = (uint32_t)j;
			m->magic = SRQ_MAGIC;
			if (dat_ep_post_send(ep[k], 1, &t,
					     vt_cookie(j * NEP + k),
					     DAT_COMPLETION_DEFAULT_FLAG))
				vt_die("send %d on EP %d refused", j, k);
		}
		for (k = 0; k < NEP; k++)
			if (!vt_expect_dto_poll("send", v->req_evd, ep[k],
						j * NEP + k, DAT_DTO_SUCCESS,
						MSG))
				vt_die("send %d on EP %d failed", j, k);
	}
}

static int eight_client(const struct vt_opts *o)
{
	DAT_EP_HANDLE ep[NEP];
	struct vt_mem buf;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;
	int k;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &buf, SLOT * NEP,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_ep_attr(&v, &a);
	for (k = 0; k < NEP; k++) {
		ep[k] = vt_ep(&v, &a);
		if (k == 0) {
			int i;

			for (i = 0; i < VT_CTL_SLOTS; i++)
				vt_ctl_post(&v, ep[0]);
		}
		/* one after the other: the server accepts them in order */
		vt_connect(&v, ep[k], o->addr, o->qual, NULL, 0);
	}
	for (;;) {
		vt_ctl_recv(&v, ep[0], &m, NULL, 0);
		vt_ctl_post(&v, ep[0]);
		if (!strcmp(m.tag, "end"))
			break;
		if (strcmp(m.tag, "go"))
			vt_die("control '%.16s', want go or end", m.tag);
		send_round(&v, ep, &buf, (int)m.arg, (int)m.seed);
	}
	for (k = 0; k < NEP; k++) {
		vt_disconnect(&v, ep[k]);
		vt_ep_free(ep[k]);
	}
	vt_mem_free(&buf);
	vt_close(&v);
	return 0;
}

/* ---- handoff ---------------------------------------------------------- */

static const char hello[] = "handoff-hello";

static int handoff_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qa = 0, qb = 0;
	DAT_PSP_HANDLE pa, pb;
	DAT_EVD_HANDLE cr2 = DAT_HANDLE_NULL;
	const DAT_CR_ARRIVAL_EVENT_DATA *d;
	DAT_CR_HANDLE cr, cr_b;
	DAT_CR_PARAM cp;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_must("dat_evd_create(CR 2)", dat_evd_create(v.ia, 8, DAT_HANDLE_NULL,
						       DAT_EVD_CR_FLAG, &cr2));
	pa = vt_psp(&v, &qa);
	vt_must("dat_psp_create_any(B)",
		dat_psp_create_any(v.ia, &qb, cr2, DAT_PSP_CONSUMER_FLAG, &pb));
	vt_listening(qa);
	cr = vt_wait_cr(&v, &ev);
	vt_expect("dat_cr_handoff(a qualifier nobody listens on)",
		  dat_cr_handoff(cr, qa + qb + 7),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	vt_expect("dat_cr_handoff(B)", dat_cr_handoff(cr, qb), DAT_SUCCESS);
	vt_expect("dat_cr_query(the handed-off CR)",
		  dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp),
		  ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR));
	vt_expect_empty("CR EVD of A", v.cr_evd);
	if (!vt_expect_event("CR at B", cr2, DAT_CONNECTION_REQUEST_EVENT, &ev))
		vt_die("no CR at B");
	d = &ev.event_data.cr_arrival_event_data;
	vt_expect_ptr("its sp_handle", d->sp_handle.psp_handle, pb);
	vt_expect_u64("its conn_qual", d->conn_qual, qb);
	cr_b = d->cr_handle;
	memset(&cp, 0, sizeof(cp));
	vt_must("dat_cr_query(at B)",
		dat_cr_query(cr_b, DAT_CR_FIELD_ALL, &cp));
	vt_expect_true("the private data came along",
		       cp.private_data_size >= (DAT_COUNT)sizeof(hello) &&
			   !memcmp(cp.private_data, hello, sizeof(hello)));
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	vt_ctl_post(&v, ep);
	vt_accept(&v, cr_b, ep, NULL, 0);
	vt_ctl_recv(&v, ep, &m, "data", 0);
	vt_expect_true("the data", !strcmp(m.text, "through B"));
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free(A)", dat_psp_free(pa), DAT_SUCCESS);
	vt_expect("dat_psp_free(B)", dat_psp_free(pb), DAT_SUCCESS);
	vt_expect("dat_evd_free(CR 2)", dat_evd_free(cr2), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static int handoff_client(const struct vt_opts *o)
{
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	vt_connect(&v, ep, o->addr, o->qual, hello, sizeof(hello));
	vt_msg_init(&m, "data");
	snprintf(m.text, sizeof(m.text), "through B");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_srq_tests[] = {
    {"srq-eight", eight_server, eight_client},
    {"handoff", handoff_server, handoff_client},
    {NULL, NULL, NULL},
};
