/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rmr-pz: a memory window belongs to its PZ, not to the EP it was bound
 * through.
 *
 * dat_rmr_create(3DAT): the PZ is how "the Consumer can restrict access
 * to the memory region associated with the RMR to authorized
 * connections"; dat_ep_free(3DAT) destroys the EP and with it only the
 * DTOs and binds posted on it and not yet dequeued.  So an RMR bound
 * through EP 1 keeps its binding and its rmr_context once EP 1 is freed,
 * a later connection through another EP of the same PZ reads and writes
 * through that context, and a connection whose EP is of another PZ
 * cannot (DAT_DTO_ERR_REMOTE_ACCESS, and the connection breaks).
 *
 * The server (the owner) binds a window of its LMR through EP 1, the
 * client writes through it, then the server frees EP 1.  The client
 * connects again twice (EPs 2 and 2b, the same PZ, both open) and
 * writes and reads through the same context on each.  The server then
 * binds the window again (through EP 2): the old context must fail on
 * both connections that used it (REMOTE_ACCESS, BROKEN), since both
 * peers had it.  Last the client connects to an EP of a second PZ of the
 * server, and its write through the new context fails.  The window's
 * bytes are checked at the server after each step, and the bytes around
 * it never change.  Each connection's messages go over the control
 * messages of vt_util.c, except the last one's: an EP of the second PZ
 * cannot receive into the control area, an LMR of the first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define RP_LEN 8192
#define RP_OFF 2048	/* the window */
#define RP_WIN 2048
#define RP_SENTINEL 0xA5
#define RP_RECVS 2
#define RP_PRIV_REMOTE \
	(DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

static void rp_window_msg(struct vt_msg *m, const unsigned char *win,
			  DAT_RMR_CONTEXT ctx)
{
	vt_msg_init(m, "win");
	m->addr = (uintptr_t)win;
	m->len = RP_WIN;
	m->rmr_context = ctx;
}

/* The next connection, accepted by a fresh EP of pz (the control
 * receives posted only on one of the IA's own PZ). */
static DAT_EP_HANDLE rp_accept(struct vt *v, DAT_PZ_HANDLE pz)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	int i;

	cr = vt_wait_cr(v, &ev);
	vt_must("dat_ep_create",
		dat_ep_create(v->ia, pz, v->rcv_evd, v->req_evd, v->conn_evd,
			      NULL, &ep));
	for (i = 0; pz == v->pz && i < RP_RECVS; i++)
		vt_ctl_post(v, ep);
	vt_accept(v, cr, ep, NULL, 0);
	return ep;
}

/* Frees an EP whose connection ended, and its flushed receives. */
static void rp_ep_gone(struct vt *v, DAT_EP_HANDLE ep)
{
	DAT_EVENT ev;

	vt_ep_free(ep);
	while (dat_evd_dequeue(v->rcv_evd, &ev) == DAT_SUCCESS)
		if (ev.event_data.dto_completion_event_data.status !=
		    DAT_DTO_ERR_FLUSHED)
			vt_fail("a receive of the freed EP: %s",
				vt_dto(ev.event_data.dto_completion_event_data
					   .status));
}

static void rp_sentinels(const unsigned char *buf)
{
	size_t i, bad = 0;

	for (i = 0; i < RP_LEN; i++)
		if ((i < RP_OFF || i >= RP_OFF + RP_WIN) &&
		    buf[i] != RP_SENTINEL)
			bad++;
	vt_expect_u64("bytes outside the window that changed", bad, 0);
}

static int rmr_pz_server(const struct vt_opts *o)
{
	DAT_RMR_CONTEXT ctx = 0, ctx2 = 0;
	DAT_EP_HANDLE ep2b;
	DAT_RMR_COOKIE ck;
	DAT_LMR_TRIPLET t;
	DAT_PZ_HANDLE pz2;
	DAT_PSP_HANDLE psp;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_PARAM p;
	DAT_EP_HANDLE ep;
	struct vt_mem mem;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_must("dat_pz_create (a second PZ)", dat_pz_create(v.ia, &pz2));
	vt_mem_alloc(&v, &mem, RP_LEN,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG | RP_PRIV_REMOTE);
	memset(mem.buf, RP_SENTINEL, RP_LEN);
	vt_must("dat_rmr_create", dat_rmr_create(v.pz, &rmr));

	/* EP 1: bind, the client writes, EP 1 is freed */
	ep = vt_serve_one(&v, NULL, RP_RECVS, &psp);
	t = vt_iov(&mem, RP_OFF, RP_WIN);
	ck.as_64 = 1;
	vt_must("dat_rmr_bind through EP 1",
		dat_rmr_bind(rmr, &t, RP_PRIV_REMOTE, ep, ck,
			     DAT_COMPLETION_DEFAULT_FLAG, &ctx));
	vt_expect_event("the bind's completion", v.req_evd,
			DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	rp_window_msg(&m, mem.buf + RP_OFF, ctx);
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&v, ep, &m, "written1", 0);
	vt_check("the window after connection 1's write", mem.buf + RP_OFF,
		 RP_WIN, 11);
	vt_disconnect(&v, ep);
	rp_ep_gone(&v, ep);

	if (vt_expect("dat_rmr_query after EP 1's free",
		      dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p), DAT_SUCCESS)) {
		vt_expect_u64("its rmr_context, as bound", p.rmr_context, ctx);
		vt_expect_u64("its length, as bound",
			      p.lmr_triplet.segment_length, RP_WIN);
	}

	/* EPs 2 and 2b, the same PZ: the same context serves both */
	ep = rp_accept(&v, v.pz);
	rp_window_msg(&m, mem.buf + RP_OFF, ctx);
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	ep2b = rp_accept(&v, v.pz);
	vt_ctl_send(&v, ep2b, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&v, ep, &m, "written2", 0);
	vt_check("the window after connections 2 and 2b wrote (EP 1 freed)",
		 mem.buf + RP_OFF, RP_WIN, 12);

	/* a rebind revokes the old context on both */
	ck.as_64 = 2;
	vt_must("dat_rmr_bind again (through EP 2)",
		dat_rmr_bind(rmr, &t, RP_PRIV_REMOTE, ep, ck,
			     DAT_COMPLETION_DEFAULT_FLAG, &ctx2));
	vt_expect_event("the rebind's completion", v.req_evd,
			DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	vt_expect_true("the rebind gave a new context", ctx2 != ctx);
	vt_msg_init(&m, "rebound");
	m.addr = (uintptr_t)(mem.buf + RP_OFF);
	m.len = RP_WIN;
	m.rmr_context = ctx2;
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_wait_conn_end(&v, "a connection ends (its write through the old "
			"context fails)");
	vt_wait_conn_end(&v, "the other connection ends (its write through the "
			"old context fails)");
	rp_ep_gone(&v, ep);
	rp_ep_gone(&v, ep2b);
	vt_check("the window after the writes through the old context",
		 mem.buf + RP_OFF, RP_WIN, 12);

	/* EP 3, another PZ: the context does not serve it */
	ep = rp_accept(&v, pz2);
	vt_wait_conn_end(&v, "connection 3 ends (the client's write fails)");
	rp_ep_gone(&v, ep);
	vt_check("the window after connection 3's write (another PZ)",
		 mem.buf + RP_OFF, RP_WIN, 12);
	rp_sentinels(mem.buf);

	vt_expect("dat_rmr_free", dat_rmr_free(rmr), DAT_SUCCESS);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&mem);
	vt_expect("dat_pz_free (the second PZ)", dat_pz_free(pz2),
		  DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

/* An RDMA write (or read) of the window through ctx; its status. */
static DAT_DTO_COMPLETION_STATUS rp_rdma(struct vt *v, DAT_EP_HANDLE ep,
					 struct vt_mem *l,
					 const struct vt_msg *w, int read,
					 uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = vt_iov(l, 0, RP_WIN);
	DAT_RMR_TRIPLET r = vt_riov(w, 0, RP_WIN);
	DAT_EVENT ev;

	vt_must(read ? "dat_ep_post_rdma_read" : "dat_ep_post_rdma_write",
		read ? dat_ep_post_rdma_read(ep, 1, &iov, vt_cookie(cookie),
					     &r, DAT_COMPLETION_DEFAULT_FLAG)
		     : dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(cookie),
					      &r,
					      DAT_COMPLETION_DEFAULT_FLAG));
	if (vt_wait(v->req_evd, vt_secs(30), &ev) != DAT_SUCCESS ||
	    ev.event_number != DAT_DTO_COMPLETION_EVENT) {
		vt_fail("RDMA %s: no completion", read ? "read" : "write");
		return DAT_DTO_FAILURE;
	}
	return ev.event_data.dto_completion_event_data.status;
}

/* A write through a context that must not serve this connection:
 * DAT_DTO_ERR_REMOTE_ACCESS, and the connection is BROKEN. */
static void rp_dead(struct vt *v, DAT_EP_HANDLE ep, struct vt_mem *l,
		    const struct vt_msg *w, uint64_t cookie, const char *conn)
{
	char what[96];
	DAT_EVENT ev;

	snprintf(what, sizeof(what), "RDMA write on %s: REMOTE_ACCESS", conn);
	vt_expect_u64(what, rp_rdma(v, ep, l, w, 0, cookie),
		      DAT_DTO_ERR_REMOTE_ACCESS);
	/* the connection events come in order: this EP's only one */
	snprintf(what, sizeof(what), "%s after the failed write", conn);
	if (vt_wait(v->conn_evd, vt_secs(30), &ev) != DAT_SUCCESS)
		vt_fail("%s: no connection event", what);
	else if (vt_expect_u64(what, ev.event_number,
			       DAT_CONNECTION_EVENT_BROKEN))
		vt_expect_ptr("the BROKEN event's EP",
			      ev.event_data.connect_event_data.ep_handle, ep);
}

static int rmr_pz_client(const struct vt_opts *o)
{
	struct vt_mem l;
	struct vt_msg w, w2, m;
	DAT_EP_HANDLE ep, ep2b;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, RP_WIN,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG);

	/* connection 1: through the EP the window was bound through */
	ep = vt_client_one(&v, o, NULL, RP_RECVS);
	vt_ctl_recv(&v, ep, &w, "win", 0);
	vt_fill(l.buf, RP_WIN, 11);
	vt_expect_u64("RDMA write on connection 1",
		      rp_rdma(&v, ep, &l, &w, 0, 1), DAT_DTO_SUCCESS);
	vt_msg_init(&m, "written1");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	while (dat_evd_dequeue(v.rcv_evd, &ev) == DAT_SUCCESS)
		;

	/* connections 2 and 2b: other EPs of the server's PZ, the same
	 * context, both open */
	ep = vt_client_one(&v, o, NULL, RP_RECVS);
	vt_ctl_recv(&v, ep, &m, "win", 0);
	vt_expect_u64("the context offered again", m.rmr_context,
		      w.rmr_context);
	vt_fill(l.buf, RP_WIN, 12);
	vt_expect_u64("RDMA write on connection 2 (the binding EP freed)",
		      rp_rdma(&v, ep, &l, &w, 0, 2), DAT_DTO_SUCCESS);
	memset(l.buf, 0, RP_WIN);
	vt_expect_u64("RDMA read on connection 2",
		      rp_rdma(&v, ep, &l, &w, 1, 3), DAT_DTO_SUCCESS);
	vt_check("read back on connection 2", l.buf, RP_WIN, 12);
	ep2b = vt_client_one(&v, o, NULL, RP_RECVS);
	vt_ctl_recv(&v, ep2b, &m, "win", 0);
	vt_fill(l.buf, RP_WIN, 12);
	vt_expect_u64("RDMA write on connection 2b",
		      rp_rdma(&v, ep2b, &l, &w, 0, 4), DAT_DTO_SUCCESS);
	vt_msg_init(&m, "written2");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);

	/* the server bound the window again: the old context fails on
	 * both */
	vt_ctl_recv(&v, ep, &w2, "rebound", 0);
	vt_fill(l.buf, RP_WIN, 14);
	rp_dead(&v, ep, &l, &w, 5, "connection 2");
	rp_dead(&v, ep2b, &l, &w, 6, "connection 2b");
	vt_ep_free(ep);
	vt_ep_free(ep2b);
	while (dat_evd_dequeue(v.rcv_evd, &ev) == DAT_SUCCESS)
		;

	/* connection 3: an EP of another PZ of the server, the window's
	 * current context */
	ep = vt_client_one(&v, o, NULL, 0);
	vt_fill(l.buf, RP_WIN, 13);
	rp_dead(&v, ep, &l, &w2, 7, "connection 3 (another PZ)");
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_rmr_pz_tests[] = {
	{ "rmr-pz", rmr_pz_server, rmr_pz_client },
	{ NULL, NULL, NULL },
};
