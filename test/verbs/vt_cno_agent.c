/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cno-agent: a server driven by its CNO's proxy agent alone.
 *
 * dat_cno_create(3DAT): the agent is "An optional OS Wait Proxy Agent that
 * is to be invoked whenever CNO is invoked", and it "is invoked when the
 * CNO is triggered"; dat_cno_wait(3DAT) counts it among "All the waiters
 * on the CNO".  An EVD feeding the CNO triggers it with any event: a
 * connection request, a connection event, a DTO completion.  The page
 * also says "After it is invoked, it is no longer associated with the
 * CNO": the agent here associates itself again (dat_cno_modify_agent)
 * each time, so it runs whether a provider keeps the agent or not.
 *
 * The server attaches its CR, connection and receive EVDs to a CNO whose
 * agent does all the work, from inside the call: it dequeues, creates and
 * queries EPs, accepts, checks the data of a receive, disconnects, frees
 * the EP, and (role "close") closes the IA itself.  The main thread only
 * waits on a condition variable of its own for the agent to say it is
 * done; it calls no DAT function meanwhile.  The client connects, sends
 * 4 KiB and waits for the server to disconnect.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vt.h"

#define CA_LEN 4096u
#define CA_SEED 77u

struct ca_state {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct vt *v;
	DAT_CNO_HANDLE cno;
	DAT_EP_HANDLE ep;
	struct vt_mem rbuf;
	int close_ia;		/* the agent closes the IA at the end */
	unsigned calls, cr_calls, conn_calls, dto_calls;
	int done;
};

static void ca_agent(DAT_PVOID instance, DAT_EVD_HANDLE evd);

/* The agent again (dat_cno_create(3DAT): "After it is invoked, it is no
 * longer associated with the CNO"). */
static void ca_rearm(struct ca_state *s)
{
	DAT_OS_WAIT_PROXY_AGENT ag = { s, ca_agent };

	vt_expect("dat_cno_modify_agent (inside the agent)",
		  dat_cno_modify_agent(s->cno, ag), DAT_SUCCESS);
}

static void ca_request(struct ca_state *s, const DAT_EVENT *ev)
{
	DAT_LMR_TRIPLET iov = vt_iov(&s->rbuf, 0, CA_LEN);

	s->cr_calls++;
	s->ep = vt_ep(s->v, NULL);
	vt_expect("dat_ep_post_recv (inside the agent)",
		  dat_ep_post_recv(s->ep, 1, &iov, vt_cookie(1),
				   DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect("dat_cr_accept (inside the agent)",
		  dat_cr_accept(ev->event_data.cr_arrival_event_data.cr_handle,
				s->ep, 0, NULL),
		  DAT_SUCCESS);
}

static void ca_query(struct ca_state *s, DAT_EP_STATE want)
{
	DAT_EP_PARAM p;

	if (vt_expect("dat_ep_query (inside the agent)",
		      dat_ep_query(s->ep, DAT_EP_FIELD_ALL, &p), DAT_SUCCESS))
		vt_expect_u64("the EP's state", p.ep_state, want);
}

/* 1 when the agent is done with the connection */
static int ca_event(struct ca_state *s, const DAT_EVENT *ev)
{
	switch (ev->event_number) {
	case DAT_CONNECTION_REQUEST_EVENT:
		ca_request(s, ev);
		return 0;
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		s->conn_calls++;
		ca_query(s, DAT_EP_STATE_CONNECTED);
		return 0;
	case DAT_DTO_COMPLETION_EVENT:
		s->dto_calls++;
		vt_check_dto("the receive (inside the agent)", ev, s->ep, 1,
			     DAT_DTO_SUCCESS, CA_LEN);
		vt_check("the received bytes", s->rbuf.buf, CA_LEN, CA_SEED);
		vt_expect("dat_ep_disconnect (inside the agent)",
			  dat_ep_disconnect(s->ep, DAT_CLOSE_GRACEFUL_FLAG),
			  DAT_SUCCESS);
		return 0;
	case DAT_CONNECTION_EVENT_DISCONNECTED:
		s->conn_calls++;
		ca_query(s, DAT_EP_STATE_DISCONNECTED);
		vt_expect("dat_ep_free (inside the agent)",
			  dat_ep_free(s->ep), DAT_SUCCESS);
		s->ep = DAT_HANDLE_NULL;
		return 1;
	default:
		vt_fail("the agent: unexpected event %s",
			vt_ev(ev->event_number));
		return 1;
	}
}

static void ca_agent(DAT_PVOID instance, DAT_EVD_HANDLE evd)
{
	struct ca_state *s = instance;
	int done = 0;
	DAT_EVENT ev;

	s->calls++;
	ca_rearm(s);
	/* dat_cno_wait(3DAT): the handle "is only a hint"; the agent polls
	 * the EVD it names, which is where its events are here */
	while (!done && dat_evd_dequeue(evd, &ev) == DAT_SUCCESS)
		done = ca_event(s, &ev);
	if (!done)
		return;
	vt_note("ok the agent ran %u times: %u connection request(s), %u "
		"connection event(s), %u receive completion(s)",
		s->calls, s->cr_calls, s->conn_calls, s->dto_calls);
	if (s->close_ia) {
		/* everything the IA owns goes with it (dat_ia_close(3DAT)) */
		vt_expect("dat_ia_close(ABRUPT) (inside the agent)",
			  dat_ia_close(s->v->ia, DAT_CLOSE_ABRUPT_FLAG),
			  DAT_SUCCESS);
		s->v->ia = DAT_HANDLE_NULL;
	}
	pthread_mutex_lock(&s->mu);
	s->done = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static int ca_server_run(const struct vt_opts *o, int close_ia)
{
	struct ca_state s;
	DAT_OS_WAIT_PROXY_AGENT ag;
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	struct timespec until;
	struct vt v;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	s.v = &v;
	s.close_ia = close_ia;
	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &s.rbuf, CA_LEN, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	ag.instance_data = &s;
	ag.proxy_agent_func = ca_agent;
	vt_must("dat_cno_create", dat_cno_create(v.ia, ag, &s.cno));
	vt_must("dat_evd_modify_cno(CR)", dat_evd_modify_cno(v.cr_evd, s.cno));
	vt_must("dat_evd_modify_cno(connection)",
		dat_evd_modify_cno(v.conn_evd, s.cno));
	vt_must("dat_evd_modify_cno(receive)",
		dat_evd_modify_cno(v.rcv_evd, s.cno));
	psp = vt_psp(&v, &qual);
	vt_listening(qual);

	/* from here the agent does everything */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += vt_secs(30) / 1000000;
	pthread_mutex_lock(&s.mu);
	while (!s.done && !rc)
		rc = pthread_cond_timedwait(&s.cv, &s.mu, &until);
	pthread_mutex_unlock(&s.mu);
	if (!s.done)
		vt_die("the agent did not finish: it ran %u times (%u connection "
		       "request(s), %u connection event(s), %u receive "
		       "completion(s))",
		       s.calls, s.cr_calls, s.conn_calls, s.dto_calls);
	vt_expect_true("the agent ran for the receive's completion",
		       s.dto_calls == 1);

	if (close_ia) {
		/* the IA and all it owned are gone; only our memory is left */
		free(s.rbuf.buf);
		if (v.ctl) {
			free(v.ctl->buf);
			free(v.ctl);
		}
		return 0;
	}
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_expect("dat_evd_modify_cno(CR, none)",
		  dat_evd_modify_cno(v.cr_evd, DAT_HANDLE_NULL), DAT_SUCCESS);
	vt_expect("dat_evd_modify_cno(connection, none)",
		  dat_evd_modify_cno(v.conn_evd, DAT_HANDLE_NULL), DAT_SUCCESS);
	vt_expect("dat_evd_modify_cno(receive, none)",
		  dat_evd_modify_cno(v.rcv_evd, DAT_HANDLE_NULL), DAT_SUCCESS);
	vt_expect("dat_cno_free", dat_cno_free(s.cno), DAT_SUCCESS);
	vt_mem_free(&s.rbuf);
	vt_close(&v);
	return 0;
}

static int ca_server(const struct vt_opts *o)
{
	return ca_server_run(o, 0);
}

static int ca_server_close(const struct vt_opts *o)
{
	return ca_server_run(o, 1);
}

static int ca_client(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov;
	struct vt_mem l;
	DAT_EP_HANDLE ep;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, CA_LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG);
	vt_fill(l.buf, CA_LEN, CA_SEED);
	ep = vt_client_one(&v, o, NULL, 0);
	iov = vt_iov(&l, 0, CA_LEN);
	vt_must("dat_ep_post_send",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(2),
				 DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect_dto("the send", v.req_evd, ep, 2, DAT_DTO_SUCCESS, CA_LEN);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_cno_agent_tests[] = {
	{ "cno-agent", ca_server, ca_client },
	{ "cno-agent-close", ca_server_close, ca_client },
	{ NULL, NULL, NULL },
};
