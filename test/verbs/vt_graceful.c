/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * graceful-sends: sends still in flight when their EP disconnects
 * gracefully.
 *
 * dat_ep_disconnect(3DAT): "For graceful disconnect, all outstanding and
 * in-progress request DTOs and RMR Binds must try to be completed
 * successfully first, before disconnect proceeds."  The client posts
 * GS_N sends of 64 B to 256 KiB (each size a provider may carry its own
 * way: inline, eager, in segments, by rendezvous) and, without waiting
 * for any completion, disconnects gracefully.  The server, its GS_N
 * receives posted before it accepted, must get every message whole, in
 * order, before the connection's end; the client must get every send's
 * completion DAT_DTO_SUCCESS, and DISCONNECTED.  Over libfabric's tcp
 * MSG endpoints a send completes when libfabric has written it to its
 * socket (providers/ofi/msg.c): the disconnect's DISC, counting the
 * sends and travelling behind them, is what makes the peer take them
 * all before it ends the connection.  Over verbs (libdaplcma,
 * libdaplscm) the QP drains its send queue (SQD) before the DREQ, which
 * moves it to the error state.  Run over every libfabric fabric
 * (test/ofi/dto.bats), cma and scm (test/verbs/dto.bats, scm.bats).
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define GS_N 16
#define GS_SLOT (256 << 10)
#define GS_PRIV (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)

static DAT_VLEN gs_len(int i)
{
	static const DAT_VLEN len[] = { 64, 4096, 65536, GS_SLOT };

	return len[i % 4];
}

static int gs_server(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov[GS_N];
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	DAT_CR_HANDLE cr;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	struct vt_mem m;
	struct vt v;
	char what[64];
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, (DAT_VLEN)GS_N * GS_SLOT, GS_PRIV);
	memset(m.buf, 0xEE, (size_t)GS_N * GS_SLOT);
	vt_ep_attr(&v, &a);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, &a);
	for (i = 0; i < GS_N; i++) {
		iov[i] = vt_iov(&m, (DAT_VLEN)i * GS_SLOT, GS_SLOT);
		vt_must("dat_ep_post_recv",
			dat_ep_post_recv(ep, 1, &iov[i], vt_cookie(0x100 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
	vt_accept(&v, cr, ep, NULL, 0);
	for (i = 0; i < GS_N; i++) {
		snprintf(what, sizeof(what), "receive %d (%llu bytes)", i,
			 (unsigned long long)gs_len(i));
		vt_expect_dto(what, v.rcv_evd, ep, 0x100 + i, DAT_DTO_SUCCESS,
			      gs_len(i));
		vt_check(what, m.buf + (size_t)i * GS_SLOT, gs_len(i), 40 + i);
	}
	vt_note("%d messages received whole, in order", GS_N);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

static int gs_client(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov[GS_N];
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt_mem m;
	struct vt v;
	char what[64];
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, (DAT_VLEN)GS_N * GS_SLOT, GS_PRIV);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	for (i = 0; i < GS_N; i++) {
		vt_fill(m.buf + (size_t)i * GS_SLOT, gs_len(i), 40 + i);
		iov[i] = vt_iov(&m, (DAT_VLEN)i * GS_SLOT, gs_len(i));
		vt_must("dat_ep_post_send",
			dat_ep_post_send(ep, 1, &iov[i], vt_cookie(0x200 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
	/* at once: none of the sends was seen complete */
	vt_disconnect(&v, ep);
	for (i = 0; i < GS_N; i++) {
		snprintf(what, sizeof(what), "send %d (%llu bytes)", i,
			 (unsigned long long)gs_len(i));
		vt_expect_dto(what, v.req_evd, ep, 0x200 + i, DAT_DTO_SUCCESS,
			      gs_len(i));
	}
	vt_expect_empty("request EVD after the sends", v.req_evd);
	vt_ep_free(ep);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

/*
 * shared-evd-end: one EVD for an EP's connection events, requests and
 * receives.  dat_ep_disconnect(3DAT): "If the same EVD is used for
 * connect_evd_handle and any recv_evd_handle and request_evd_handle, all
 * successful Completion events of in-progress DTOs precede the
 * Disconnect Completion event."  The client posts SE_N sends and
 * disconnects gracefully at once; the server, its SE_N receives posted
 * before it accepted, reads nothing until its EP is DISCONNECTED.  Then
 * each side dequeues (dat_evd_dequeue only: a dat_evd_wait moves
 * completions in on its own) everything its EVD holds: every send or
 * receive completion SUCCESS, in posting order, before the one
 * DISCONNECTED, which comes last.  The connection events had gone ahead
 * of the completions still in the transport's CQ.
 */
#define SE_N 8
#define SE_LEN 4096

/* An EP whose three EVDs are *shared, made here. */
static DAT_EP_HANDLE se_ep(struct vt *v, DAT_EVD_HANDLE *shared)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EP_ATTR a;

	vt_must("dat_evd_create(DTO | CONNECTION)",
		dat_evd_create(v->ia, 64, DAT_HANDLE_NULL,
			       DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG,
			       shared));
	vt_ep_attr(v, &a);
	vt_must("dat_ep_create(one EVD for all three)",
		dat_ep_create(v->ia, v->pz, *shared, *shared, *shared, &a,
			      &ep));
	return ep;
}

/* Waits (bounded) until ep is DISCONNECTED, reading no event. */
static void se_wait_state(DAT_EP_HANDLE ep)
{
	uint64_t end = vt_now_us() + vt_secs(30);

	while (vt_ep_state(ep) != DAT_EP_STATE_DISCONNECTED) {
		if (vt_now_us() >= end) {
			vt_fail("the EP never became DISCONNECTED (%s)",
				vt_state(vt_ep_state(ep)));
			return;
		}
		vt_sleep_ms(1);
	}
}

/* Dequeues all of shared: SE_N completions of ep, cookies base.., then
 * DISCONNECTED last (ESTABLISHED, if still there, anywhere before). */
static void se_drain(DAT_EVD_HANDLE shared, DAT_EP_HANDLE ep, uint64_t base,
		     const char *side)
{
	int dtos = 0, ended = 0, n = 0;
	char what[64];
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	while (dat_evd_dequeue(shared, &ev) == DAT_SUCCESS && n++ < 64) {
		if (ended) {
			vt_fail("%s: %s after DISCONNECTED", side,
				vt_ev(ev.event_number));
		} else if (ev.event_number ==
			   DAT_CONNECTION_EVENT_DISCONNECTED) {
			ended = 1;
			if (dtos != SE_N)
				vt_fail("%s: DISCONNECTED after %d of the %d "
					"completions, want all before it",
					side, dtos, SE_N);
		} else if (ev.event_number == DAT_DTO_COMPLETION_EVENT) {
			snprintf(what, sizeof(what), "%s: completion %d",
				 side, dtos);
			vt_check_dto(what, &ev, ep, base + (uint64_t)dtos,
				     DAT_DTO_SUCCESS, SE_LEN);
			dtos++;
		} else if (ev.event_number !=
			   DAT_CONNECTION_EVENT_ESTABLISHED) {
			vt_fail("%s: event %s", side, vt_ev(ev.event_number));
		}
		memset(&ev, 0, sizeof(ev));
	}
	vt_expect_true("DISCONNECTED came, last", ended);
	vt_expect_true("every completion came", dtos == SE_N);
	vt_note("ok %s: %d completions SUCCESS, then DISCONNECTED", side,
		dtos);
}

static int se_server(const struct vt_opts *o)
{
	DAT_EVD_HANDLE shared;
	DAT_CONN_QUAL qual = 0;
	DAT_LMR_TRIPLET iov;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	struct vt_mem m;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, (DAT_VLEN)SE_N * SE_LEN, GS_PRIV);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	ep = se_ep(&v, &shared);
	for (i = 0; i < SE_N; i++) {
		iov = vt_iov(&m, (DAT_VLEN)i * SE_LEN, SE_LEN);
		vt_must("dat_ep_post_recv",
			dat_ep_post_recv(ep, 1, &iov, vt_cookie(0x300 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
	vt_must("dat_cr_accept", dat_cr_accept(cr, ep, 0, NULL));
	se_wait_state(ep);
	se_drain(shared, ep, 0x300, "server");
	for (i = 0; i < SE_N; i++)
		vt_check("message", m.buf + (size_t)i * SE_LEN, SE_LEN, 60 + i);
	vt_ep_free(ep);
	vt_expect("dat_evd_free(shared)", dat_evd_free(shared), DAT_SUCCESS);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

static int se_client(const struct vt_opts *o)
{
	DAT_EVD_HANDLE shared;
	struct sockaddr_in sin;
	DAT_LMR_TRIPLET iov;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	struct vt_mem m;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, (DAT_VLEN)SE_N * SE_LEN, GS_PRIV);
	ep = se_ep(&v, &shared);
	vt_sockaddr(&sin, o->addr);
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
			       vt_secs(20), 0, NULL, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
	if (!vt_expect_event("connection established", shared,
			     DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		vt_die("no connection");
	for (i = 0; i < SE_N; i++) {
		vt_fill(m.buf + (size_t)i * SE_LEN, SE_LEN, 60 + i);
		iov = vt_iov(&m, (DAT_VLEN)i * SE_LEN, SE_LEN);
		vt_must("dat_ep_post_send",
			dat_ep_post_send(ep, 1, &iov, vt_cookie(0x400 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
	vt_expect("dat_ep_disconnect(GRACEFUL)",
		  dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	se_wait_state(ep);
	se_drain(shared, ep, 0x400, "client");
	vt_ep_free(ep);
	vt_expect("dat_evd_free(shared)", dat_evd_free(shared), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_graceful_tests[] = {
	{ "graceful-sends", gs_server, gs_client },
	{ "shared-evd-end", se_server, se_client },
	{ NULL, NULL, NULL }
};
