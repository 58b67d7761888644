/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_evd.c - event dispatchers and CNOs: wait thresholds, timeouts and
 * nmore, wakeup of blocked waiters, unwaitable, CNO wakeups (CQ and
 * software) and timeouts (DAT_QUEUE_EMPTY), CR EVD overflow -> DAT_ASYNC_ERROR_EVD_OVERFLOW.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define PRIV_LOCAL (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)

static DAT_RETURN post_se(DAT_EVD_HANDLE evd, uintptr_t tag)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.evd_handle = evd;
	ev.event_data.software_event_data.pointer = (DAT_PVOID)tag;
	return dat_evd_post_se(evd, &ev);
}

static void expect_se(const char *what, const DAT_EVENT *ev, uintptr_t tag)
{
	if (ev->event_number != DAT_SOFTWARE_EVENT ||
	    ev->event_data.software_event_data.pointer != (DAT_PVOID)tag)
		vt_fail("%s: event %s pointer %p, want DAT_SOFTWARE_EVENT %p",
			what, vt_ev(ev->event_number),
			ev->event_data.software_event_data.pointer,
			(void *)tag);
	else
		vt_note("ok %s: software event %p", what, (void *)tag);
}

static DAT_COUNT evd_qlen(DAT_EVD_HANDLE evd)
{
	DAT_EVD_PARAM p;

	memset(&p, 0, sizeof(p));
	vt_must("dat_evd_query", dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p));
	return p.evd_qlen;
}

/* A wait that must time out: its nmore, and that it took the timeout. */
static void expect_timeout(const char *what, DAT_EVD_HANDLE evd,
			   DAT_TIMEOUT t, DAT_COUNT threshold,
			   DAT_COUNT want_nmore)
{
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;
	DAT_RETURN rc;
	uint64_t t0 = vt_now_us(), dt;

	rc = dat_evd_wait(evd, t, threshold, &ev, &nmore);
	dt = vt_now_us() - t0;
	vt_expect_type(what, rc, DAT_TIMEOUT_EXPIRED);
	vt_expect_u64("nmore after the timeout", (uint64_t)nmore,
		      (uint64_t)want_nmore);
	if (dt + 20000 < t || dt > t + vt_secs(5))
		vt_fail("%s: returned after %.3f s, timeout %.3f s", what,
			dt / 1e6, t / 1e6);
	else
		vt_note("ok %s: returned after %.3f s (timeout %.3f s)", what,
			dt / 1e6, t / 1e6);
}

/* ---- software EVD: thresholds, timeouts, blocked waiters ------------ */

struct later {
	DAT_EVD_HANDLE evd;
	unsigned ms;
	int unwaitable;		/* else post a software event */
	DAT_RETURN rc;
};

static void *later_fn(void *arg)
{
	struct later *l = arg;

	vt_sleep_ms(l->ms);
	l->rc = l->unwaitable ? dat_evd_set_unwaitable(l->evd) :
				post_se(l->evd, 0x77);
	return NULL;
}

static void blocked_waiters(DAT_EVD_HANDLE evd)
{
	struct later l = { evd, 300, 0, 0 };
	DAT_COUNT nmore;
	DAT_EVENT ev;
	pthread_t t;

	/* a post from another thread wakes a blocked waiter */
	pthread_create(&t, NULL, later_fn, &l);
	if (vt_expect("dat_evd_wait woken by another thread's post",
		      dat_evd_wait(evd, vt_secs(10), 1, &ev, &nmore),
		      DAT_SUCCESS))
		expect_se("the posted event", &ev, 0x77);
	pthread_join(t, NULL);
	vt_expect("dat_evd_post_se (thread)", l.rc, DAT_SUCCESS);

	/* set_unwaitable releases a blocked waiter with INVALID_STATE */
	l.unwaitable = 1;
	pthread_create(&t, NULL, later_fn, &l);
	vt_expect_type("dat_evd_wait while another thread sets unwaitable",
		       dat_evd_wait(evd, vt_secs(10), 1, &ev, &nmore),
		       DAT_INVALID_STATE);
	pthread_join(t, NULL);
	vt_expect("dat_evd_set_unwaitable (thread)", l.rc, DAT_SUCCESS);
	vt_expect("dat_evd_clear_unwaitable", dat_evd_clear_unwaitable(evd),
		  DAT_SUCCESS);
}

static void thresholds(DAT_EVD_HANDLE evd, DAT_COUNT qlen)
{
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;

	vt_must("dat_evd_post_se 1", post_se(evd, 1));
	vt_must("dat_evd_post_se 2", post_se(evd, 2));
	expect_timeout("dat_evd_wait(threshold 3, 2 queued)", evd,
		       vt_msecs(300), 3, 2);
	vt_must("dat_evd_post_se 3", post_se(evd, 3));
	if (vt_expect("dat_evd_wait(threshold 3, 3 queued)",
		      dat_evd_wait(evd, vt_secs(5), 3, &ev, &nmore),
		      DAT_SUCCESS)) {
		expect_se("first event", &ev, 1);
		vt_expect_true("nmore >= threshold - 1", nmore >= 2);
	}
	vt_expect("dat_evd_dequeue", dat_evd_dequeue(evd, &ev), DAT_SUCCESS);
	expect_se("second event", &ev, 2);
	vt_expect("dat_evd_dequeue", dat_evd_dequeue(evd, &ev), DAT_SUCCESS);
	expect_se("third event", &ev, 3);
	vt_expect_empty("EVD drained", evd);

	vt_expect_type("dat_evd_wait(threshold 0)",
		       dat_evd_wait(evd, 1000, 0, &ev, &nmore),
		       DAT_INVALID_PARAMETER);
	vt_expect_type("dat_evd_wait(threshold qlen + 1)",
		       dat_evd_wait(evd, 1000, qlen + 1, &ev, &nmore),
		       DAT_INVALID_PARAMETER);
	expect_timeout("dat_evd_wait(timeout 0, empty)", evd, 0, 1, 0);
}

static void unwaitable_and_full(DAT_EVD_HANDLE evd, DAT_COUNT qlen)
{
	DAT_COUNT nmore, i;
	DAT_EVENT ev;

	vt_expect("dat_evd_set_unwaitable", dat_evd_set_unwaitable(evd),
		  DAT_SUCCESS);
	vt_expect_type("dat_evd_wait(unwaitable EVD)",
		       dat_evd_wait(evd, 1000, 1, &ev, &nmore),
		       DAT_INVALID_STATE);
	vt_expect("dat_evd_clear_unwaitable", dat_evd_clear_unwaitable(evd),
		  DAT_SUCCESS);

	for (i = 0; i < qlen; i++)
		if (post_se(evd, 0x100 + i) != DAT_SUCCESS)
			break;
	vt_expect_u64("software events the queue took", i, qlen);
	vt_expect_type("dat_evd_post_se(full EVD)", post_se(evd, 0x1ff),
		       DAT_QUEUE_FULL);
	for (i = 0; i < qlen; i++)
		if (dat_evd_dequeue(evd, &ev) != DAT_SUCCESS ||
		    ev.event_data.software_event_data.pointer !=
			    (DAT_PVOID)(uintptr_t)(0x100 + i))
			break;
	vt_expect_u64("software events dequeued in order", i, qlen);
	vt_expect_empty("EVD drained", evd);
}

static int evd_sw_local(const struct vt_opts *o)
{
	DAT_EVD_HANDLE evd;
	DAT_EVD_PARAM p;
	DAT_COUNT qlen;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_must("dat_evd_create(SOFTWARE, 4)",
		dat_evd_create(v.ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
			       &evd));
	memset(&p, 0, sizeof(p));
	vt_must("dat_evd_query", dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p));
	vt_expect_ptr("evd_param.ia_handle", p.ia_handle, v.ia);
	vt_expect_ptr("evd_param.cno_handle", p.cno_handle, DAT_HANDLE_NULL);
	vt_expect_u64("evd_param.evd_flags", p.evd_flags,
		      DAT_EVD_SOFTWARE_FLAG);
	vt_expect_true("evd_param.evd_qlen >= 4", p.evd_qlen >= 4);
	qlen = p.evd_qlen;
	vt_note("software EVD qlen %d", qlen);

	thresholds(evd, qlen);
	blocked_waiters(evd);
	unwaitable_and_full(evd, qlen);

	vt_expect("dat_evd_resize(2 * qlen)", dat_evd_resize(evd, 2 * qlen),
		  DAT_SUCCESS);
	vt_expect_true("qlen after the resize >= 2 * old qlen",
		       evd_qlen(evd) >= 2 * qlen);
	vt_expect("dat_evd_disable", dat_evd_disable(evd), DAT_SUCCESS);
	vt_expect("dat_evd_enable", dat_evd_enable(evd), DAT_SUCCESS);
	vt_expect("dat_evd_free", dat_evd_free(evd), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

/* ---- DTO EVD: thresholds and timeouts on real completions --------------- */

#define ED_N 6

static void ed_pre_recvs(DAT_EP_HANDLE ep, struct vt_mem *m, int from, int n)
{
	DAT_LMR_TRIPLET iov;
	int i;

	for (i = from; i < from + n; i++) {
		iov = vt_iov(m, 64 * i, 64);
		vt_must("dat_ep_post_recv",
			dat_ep_post_recv(ep, 1, &iov, vt_cookie(0xA0 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
}

static void ed_go(struct vt *v, DAT_EP_HANDLE ep, const char *tag)
{
	struct vt_msg m;

	vt_msg_init(&m, tag);
	vt_ctl_send(v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
}

static int evd_dto_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_COUNT nmore = -1;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	struct vt_mem m;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 64 * ED_N, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, &a);
	ed_pre_recvs(ep, &m, 0, 4);
	vt_accept(&v, cr, ep, NULL, 0);

	ed_go(&v, ep, "go");	/* the client sends 4 messages */
	if (vt_expect("dat_evd_wait(threshold 4)",
		      dat_evd_wait(v.rcv_evd, vt_secs(15), 4, &ev, &nmore),
		      DAT_SUCCESS)) {
		vt_check_dto("first of 4", &ev, ep, 0xA0, DAT_DTO_SUCCESS, 64);
		vt_expect_true("nmore >= 3", nmore >= 3);
	}
	for (i = 1; i < 4; i++)
		vt_expect_dto_poll("next of 4", v.rcv_evd, ep, 0xA0 + i,
				   DAT_DTO_SUCCESS, 64);
	expect_timeout("dat_evd_wait(threshold 1, nothing coming)", v.rcv_evd,
		       vt_msecs(300), 1, 0);

	ed_pre_recvs(ep, &m, 4, 2);
	ed_go(&v, ep, "go2");	/* the client sends one message */
	expect_timeout("dat_evd_wait(threshold 2, 1 coming)", v.rcv_evd,
		       vt_secs(2), 2, 1);
	ed_go(&v, ep, "go3");	/* and one more */
	if (vt_expect("dat_evd_wait(threshold 2, 2nd coming)",
		      dat_evd_wait(v.rcv_evd, vt_secs(15), 2, &ev, &nmore),
		      DAT_SUCCESS)) {
		vt_check_dto("fifth", &ev, ep, 0xA4, DAT_DTO_SUCCESS, 64);
		vt_expect_true("nmore >= 1", nmore >= 1);
	}
	vt_expect_dto_poll("sixth", v.rcv_evd, ep, 0xA5, DAT_DTO_SUCCESS, 64);
	for (i = 0; i < ED_N; i++)
		vt_check_at("message", m.buf + 64 * i, 64, 0xA0 + i, 0);

	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

static void ed_send(struct vt *v, DAT_EP_HANDLE ep, struct vt_mem *m, int i)
{
	DAT_LMR_TRIPLET iov = vt_iov(m, 64 * i, 64);

	vt_fill(m->buf + 64 * i, 64, 0xA0 + i);
	vt_must("dat_ep_post_send",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(0xB0 + i),
				 DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect_dto("send", v->req_evd, ep, 0xB0 + i, DAT_DTO_SUCCESS, 64);
}

static int evd_dto_client(const struct vt_opts *o)
{
	struct vt_mem m;
	DAT_EP_HANDLE ep;
	struct vt_msg msg;
	DAT_EP_ATTR a;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 64 * ED_N, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &msg, "go", 0);
	vt_ctl_post(&v, ep);
	for (i = 0; i < 4; i++)
		ed_send(&v, ep, &m, i);
	vt_ctl_recv(&v, ep, &msg, "go2", 0);
	vt_ctl_post(&v, ep);
	ed_send(&v, ep, &m, 4);
	vt_ctl_recv(&v, ep, &msg, "go3", 0);
	ed_send(&v, ep, &m, 5);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

/* ---- CNO wakeups: a CQ completion and a software event ---------------- */

static void agent_fn(DAT_PVOID instance, DAT_EVD_HANDLE evd)
{
	(void)instance;
	(void)evd;
}

static void cno_software(struct vt *v, DAT_CNO_HANDLE cno)
{
	DAT_OS_WAIT_PROXY_AGENT ag = { (DAT_PVOID)0x1234, agent_fn };
	DAT_EVD_HANDLE sevd, got = DAT_HANDLE_NULL;
	DAT_CNO_PARAM p;
	DAT_EVENT ev;

	vt_must("dat_evd_create(SOFTWARE, CNO)",
		dat_evd_create(v->ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &sevd));
	vt_must("dat_evd_post_se", post_se(sevd, 0x55));
	if (vt_expect("dat_cno_wait (software event)",
		      dat_cno_wait(cno, vt_secs(10), &got), DAT_SUCCESS))
		vt_expect_ptr("dat_cno_wait's evd_handle", got, sevd);
	if (vt_expect("dat_evd_dequeue", dat_evd_dequeue(sevd, &ev),
		      DAT_SUCCESS))
		expect_se("software event through the CNO", &ev, 0x55);

	vt_expect("dat_cno_modify_agent", dat_cno_modify_agent(cno, ag),
		  DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	vt_must("dat_cno_query", dat_cno_query(cno, DAT_CNO_FIELD_ALL, &p));
	vt_expect_ptr("cno_param.ia_handle", p.ia_handle, v->ia);
	vt_expect_ptr("cno_param.agent.instance_data", p.agent.instance_data,
		      ag.instance_data);
	vt_expect_true("cno_param.agent.proxy_agent_func",
		       p.agent.proxy_agent_func == agent_fn);
	vt_expect("dat_evd_free(software)", dat_evd_free(sevd), DAT_SUCCESS);
}

static int cno_server(const struct vt_opts *o)
{
	DAT_EVD_HANDLE cevd, got = DAT_HANDLE_NULL;
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_CNO_HANDLE cno;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_LMR_TRIPLET iov;
	DAT_EVD_PARAM p;
	struct vt_mem m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 64, PRIV_LOCAL);
	vt_must("dat_cno_create",
		dat_cno_create(v.ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	vt_must("dat_evd_create(DTO, CNO)",
		dat_evd_create(v.ia, 8, cno, DAT_EVD_DTO_FLAG, &cevd));
	memset(&p, 0, sizeof(p));
	vt_must("dat_evd_query", dat_evd_query(cevd, DAT_EVD_FIELD_ALL, &p));
	vt_expect_ptr("evd_param.cno_handle", p.cno_handle, cno);
	/* a timeout is DAT_QUEUE_EMPTY with a NULL evd_handle */
	got = (DAT_EVD_HANDLE)1;
	vt_expect_type("dat_cno_wait (nothing coming)",
		       dat_cno_wait(cno, vt_msecs(300), &got),
		       DAT_QUEUE_EMPTY);
	vt_expect_ptr("dat_cno_wait's evd_handle on a timeout", got,
		      DAT_HANDLE_NULL);

	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	vt_must("dat_ep_create",
		dat_ep_create(v.ia, v.pz, cevd, v.req_evd, v.conn_evd, NULL,
			      &ep));
	iov = vt_iov(&m, 0, 64);
	vt_must("dat_ep_post_recv",
		dat_ep_post_recv(ep, 1, &iov, vt_cookie(0xC0),
				 DAT_COMPLETION_DEFAULT_FLAG));
	vt_accept(&v, cr, ep, NULL, 0);
	ed_go(&v, ep, "go");
	if (vt_expect("dat_cno_wait (a receive completes)",
		      dat_cno_wait(cno, vt_secs(15), &got), DAT_SUCCESS))
		vt_expect_ptr("dat_cno_wait's evd_handle", got, cevd);
	vt_expect_dto_poll("the receive that woke the CNO", cevd, ep, 0xC0,
			   DAT_DTO_SUCCESS, 64);
	vt_check("its data", m.buf, 64, 0xC1);

	vt_expect_type("dat_cno_free(CNO with an EVD)", dat_cno_free(cno),
		       DAT_INVALID_STATE);
	vt_expect("dat_evd_modify_cno(NULL)",
		  dat_evd_modify_cno(cevd, DAT_HANDLE_NULL), DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	vt_must("dat_evd_query", dat_evd_query(cevd, DAT_EVD_FIELD_ALL, &p));
	vt_expect_ptr("evd_param.cno_handle after modify", p.cno_handle,
		      DAT_HANDLE_NULL);
	cno_software(&v, cno);
	vt_expect("dat_cno_free", dat_cno_free(cno), DAT_SUCCESS);

	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_evd_free(CNO's EVD)", dat_evd_free(cevd), DAT_SUCCESS);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

static int cno_client(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov;
	struct vt_mem m;
	DAT_EP_HANDLE ep;
	struct vt_msg msg;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 64, PRIV_LOCAL);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ep, &msg, "go", 0);
	vt_fill(m.buf, 64, 0xC1);
	iov = vt_iov(&m, 0, 64);
	vt_must("dat_ep_post_send",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(0xC1),
				 DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect_dto("send", v.req_evd, ep, 0xC1, DAT_DTO_SUCCESS, 64);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

/* ---- CR EVD overflow -> DAT_ASYNC_ERROR_EVD_OVERFLOW --------------------- */

static int overflow_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_EVD_HANDLE crevd;
	DAT_PSP_HANDLE psp;
	DAT_COUNT qlen;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_must("dat_evd_create(CR, 1)",
		dat_evd_create(v.ia, 1, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
			       &crevd));
	qlen = evd_qlen(crevd);
	vt_must("dat_psp_create_any",
		dat_psp_create_any(v.ia, &qual, crevd, DAT_PSP_CONSUMER_FLAG,
				   &psp));
	printf("cr-evd-qlen %d\n", qlen);
	vt_listening(qual);

	/* the client sends qlen + 1 requests; nobody dequeues them */
	if (vt_expect_event("async event", v.async_evd,
			    DAT_ASYNC_ERROR_EVD_OVERFLOW, &ev))
		vt_expect_ptr("overflow event's dat_handle (the CR EVD)",
			      ev.event_data.asynch_error_event_data.dat_handle,
			      crevd);
	vt_expect("dat_ia_close(ABRUPT) with CRs pending",
		  dat_ia_close(v.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	free(v.ctl->buf);
	free(v.ctl);
	return 0;
}

static int overflow_client(const struct vt_opts *o)
{
	int n = o->count > 0 ? o->count : 2, i, got = 0;
	DAT_EP_HANDLE *ep = calloc(n, sizeof(*ep));
	struct sockaddr_in sin;
	DAT_EVD_HANDLE cevd;
	uint64_t end;
	DAT_EVENT ev;
	struct vt v;

	if (!ep)
		vt_die("out of memory");
	vt_open(&v, o->ia_name);
	vt_must("dat_evd_create(CONNECTION)",
		dat_evd_create(v.ia, n + 4, DAT_HANDLE_NULL,
			       DAT_EVD_CONNECTION_FLAG, &cevd));
	vt_sockaddr(&sin, o->addr);
	for (i = 0; i < n; i++) {
		vt_must("dat_ep_create",
			dat_ep_create(v.ia, v.pz, v.rcv_evd, v.req_evd, cevd,
				      NULL, &ep[i]));
		vt_must("dat_ep_connect",
			dat_ep_connect(ep[i], (DAT_IA_ADDRESS_PTR)&sin,
				       o->qual, vt_secs(10), 0, NULL,
				       DAT_QOS_BEST_EFFORT,
				       DAT_CONNECT_DEFAULT_FLAG));
	}
	vt_note("%d connection requests sent", n);
	/* what becomes of them is the server's business; report it */
	end = vt_now_us() + vt_secs(20);
	while (got < n && vt_now_us() < end)
		if (vt_wait(cevd, vt_secs(1), &ev) == DAT_SUCCESS) {
			got++;
			vt_note("connection event %s", vt_ev(ev.event_number));
		}
	vt_expect("dat_ia_close(ABRUPT)",
		  dat_ia_close(v.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	free(v.ctl->buf);
	free(v.ctl);
	free(ep);
	return 0;
}

/*
 * cr-overflow: connection requests never vanish.  Two PSPs (qualifiers
 * D+1 and D+2) share one CR EVD of q slots; the client sends q + 2
 * requests to them: q are queued, the other two are rejected to the
 * client (a rejected event, never a timeout) and each is reported as
 * DAT_ASYNC_ERROR_EVD_OVERFLOW.  A CR that arrived at a third PSP (D, its
 * own EVD) is then handed off to D+1, whose EVD is full: DAT_QUEUE_FULL,
 * and the CR stays valid and is accepted.  All q + 1 connections are
 * established.
 */
static int cr_overflow_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE pspd = NULL, pspa = NULL, pspb = NULL;
	DAT_EVD_HANDLE crevd, devd, cevd;
	DAT_CR_HANDLE crd, *crs;
	DAT_EP_HANDLE *eps;
	DAT_CONN_QUAL qual = 0;
	DAT_CR_PARAM cp;
	DAT_COUNT q, i, est = 0;
	DAT_EVENT ev;
	struct vt v;
	int tries;

	vt_open(&v, o->ia_name);
	vt_must("dat_evd_create(shared CR EVD)",
		dat_evd_create(v.ia, 1, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
			       &crevd));
	vt_must("dat_evd_create(CR EVD of D)",
		dat_evd_create(v.ia, 1, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
			       &devd));
	q = evd_qlen(crevd);
	if (q > 64)
		vt_die("CR EVD qlen %d: too many connections to overflow it", q);
	vt_must("dat_evd_create(CONNECTION)",
		dat_evd_create(v.ia, 2 * q + 16, DAT_HANDLE_NULL,
			       DAT_EVD_CONNECTION_FLAG, &cevd));
	/* D from the provider, D+1 and D+2 beside it (again if taken) */
	for (tries = 0; tries < 20; tries++) {
		qual = 0;
		vt_must("dat_psp_create_any(D)",
			dat_psp_create_any(v.ia, &qual, devd,
					   DAT_PSP_CONSUMER_FLAG, &pspd));
		if (dat_psp_create(v.ia, qual + 1, crevd, DAT_PSP_CONSUMER_FLAG,
				   &pspa) == DAT_SUCCESS &&
		    dat_psp_create(v.ia, qual + 2, crevd, DAT_PSP_CONSUMER_FLAG,
				   &pspb) == DAT_SUCCESS)
			break;
		if (pspa)
			dat_psp_free(pspa);
		dat_psp_free(pspd);
		pspa = pspd = NULL;
	}
	if (!pspb)
		vt_die("no three free qualifiers in a row");
	printf("cr-evd-qlen %d\n", q);
	vt_listening(qual);

	if (!vt_expect_event("connection request at D", devd,
			     DAT_CONNECTION_REQUEST_EVENT, &ev))
		vt_die("no request at D");
	crd = ev.event_data.cr_arrival_event_data.cr_handle;
	/* the two requests beyond the shared EVD's q slots */
	for (i = 0; i < 2; i++)
		if (vt_expect_event("async event", v.async_evd,
				    DAT_ASYNC_ERROR_EVD_OVERFLOW, &ev))
			vt_expect_ptr("overflow event's dat_handle (the CR EVD)",
				      ev.event_data.asynch_error_event_data
					  .dat_handle,
				      crevd);
	vt_expect("dat_cr_handoff to D+1, whose EVD is full",
		  dat_cr_handoff(crd, qual + 1),
		  (DAT_RETURN)(DAT_CLASS_ERROR | DAT_QUEUE_FULL));
	memset(&cp, 0, sizeof(cp));
	vt_expect("dat_cr_query after the failed handoff",
		  dat_cr_query(crd, DAT_CR_FIELD_ALL, &cp), DAT_SUCCESS);
	vt_expect_true("the CR keeps its peer's address",
		       cp.remote_ia_address_ptr != NULL);

	crs = calloc(q + 1, sizeof(*crs));
	eps = calloc(q + 1, sizeof(*eps));
	if (!crs || !eps)
		vt_die("out of memory");
	crs[0] = crd;
	for (i = 1; i <= q; i++) {
		if (!vt_expect_event("queued request", crevd,
				     DAT_CONNECTION_REQUEST_EVENT, &ev))
			vt_die("the shared EVD lost a request");
		crs[i] = ev.event_data.cr_arrival_event_data.cr_handle;
	}
	vt_expect_empty("nothing beyond q on the shared EVD", crevd);
	for (i = 0; i <= q; i++) {
		vt_must("dat_ep_create",
			dat_ep_create(v.ia, v.pz, v.rcv_evd, v.req_evd, cevd,
				      NULL, &eps[i]));
		vt_expect("dat_cr_accept", dat_cr_accept(crs[i], eps[i], 0, NULL),
			  DAT_SUCCESS);
	}
	while (est <= q && vt_wait(cevd, vt_secs(20), &ev) == DAT_SUCCESS)
		if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED)
			est++;
	vt_expect_u64("connections established (server)", est, q + 1);
	vt_expect("dat_ia_close(ABRUPT)",
		  dat_ia_close(v.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	free(v.ctl->buf);
	free(v.ctl);
	free(crs);
	free(eps);
	return 0;
}

static int cr_overflow_client(const struct vt_opts *o)
{
	int q = o->count, n = q + 3, i, est = 0, rej = 0, other = 0;
	DAT_EP_HANDLE *ep = calloc(n, sizeof(*ep));
	struct sockaddr_in sin;
	DAT_EVD_HANDLE cevd;
	DAT_EVENT ev;
	struct vt v;

	if (!ep || q < 1)
		vt_die("usage: cr-overflow client -q D -n Q");
	vt_open(&v, o->ia_name);
	vt_must("dat_evd_create(CONNECTION)",
		dat_evd_create(v.ia, 2 * n + 8, DAT_HANDLE_NULL,
			       DAT_EVD_CONNECTION_FLAG, &cevd));
	vt_sockaddr(&sin, o->addr);
	/* ep[0] to D, then q + 2 alternately to D+1 and D+2 */
	for (i = 0; i < n; i++) {
		vt_must("dat_ep_create",
			dat_ep_create(v.ia, v.pz, v.rcv_evd, v.req_evd, cevd,
				      NULL, &ep[i]));
		vt_must("dat_ep_connect",
			dat_ep_connect(ep[i], (DAT_IA_ADDRESS_PTR)&sin,
				       i ? o->qual + 1 + i % 2 : o->qual,
				       vt_secs(60), 0, NULL,
				       DAT_QOS_BEST_EFFORT,
				       DAT_CONNECT_DEFAULT_FLAG));
	}
	while (est + rej + other < n &&
	       vt_wait(cevd, vt_secs(60), &ev) == DAT_SUCCESS) {
		switch (ev.event_number) {
		case DAT_CONNECTION_EVENT_ESTABLISHED:
			est++;
			break;
		case DAT_CONNECTION_EVENT_PEER_REJECTED:
		case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
			rej++;
			break;
		default:
			other++;
			vt_note("connection event %s", vt_ev(ev.event_number));
		}
	}
	vt_expect_u64("connections established (client)", est, q + 1);
	vt_expect_u64("requests rejected to the client", rej, 2);
	vt_expect_u64("other connection events (timeouts)", other, 0);
	vt_expect("dat_ia_close(ABRUPT)",
		  dat_ia_close(v.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	free(v.ctl->buf);
	free(v.ctl);
	free(ep);
	return 0;
}

const struct vt_test vt_evd_tests[] = {
	{ "evd-sw", evd_sw_local, NULL },
	{ "evd-dto", evd_dto_server, evd_dto_client },
	{ "cno", cno_server, cno_client },
	{ "overflow", overflow_server, overflow_client },
	{ "cr-overflow", cr_overflow_server, cr_overflow_client },
	{ NULL, NULL, NULL }
};
