/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_func_remote.c - functional cases against the server's echo service
 * (dt_fserve.c): connmgt (connect, private data, reject, nobody listening,
 * PSP and RSP, disconnect, reset and reuse) and dataxfer (send/receive
 * echoed back, several segments, zero bytes, RDMA write and read of the
 * server's buffer, a bad remote key).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_func.h"

/* ---- connmgt ------------------------------------------------------------- */

static int cm_connect(struct fctx *f)
{
	struct fconn c;
	DAT_EP_PARAM p;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0))
		goto out;
	CT("ESTABLISHED names the EP",
	   c.ev.event_data.connect_event_data.ep_handle == c.ep);
	CT("the EP is CONNECTED", fc_state(c.ep) == DAT_EP_STATE_CONNECTED);
	memset(&p, 0, sizeof(p));
	CK("dat_ep_query", dat_ep_query(c.ep, DAT_EP_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("remote_ia_address_ptr is the server's",
	   p.remote_ia_address_ptr &&
	   ((struct sockaddr_in *)p.remote_ia_address_ptr)->sin_addr.s_addr ==
	   f->sin.sin_addr.s_addr);
	CT("remote_port_qual is the service's", p.remote_port_qual == f->qual);
	CK("dat_ep_disconnect(GRACEFUL)",
	   dat_ep_disconnect(c.ep, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	if (!fc_conn_event(f, "disconnect", c.conn,
			   DAT_CONNECTION_EVENT_DISCONNECTED, NULL))
		goto out;
	CT("the EP is DISCONNECTED",
	   fc_state(c.ep) == DAT_EP_STATE_DISCONNECTED);
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int cm_private_data(struct fctx *f)
{
	const DAT_CONNECTION_EVENT_DATA *d;
	unsigned char pd[40];
	struct fconn c;
	int r = DT_FAIL;

	dt_fill(pd, sizeof(pd), 9);
	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, pd, sizeof(pd)))
		goto out;
	d = &c.ev.event_data.connect_event_data;
	CT("the accept carries private data",
	   d->private_data && d->private_data_size >= (DAT_COUNT)sizeof(pd));
	CT("the service returned our private data",
	   dt_check("private data", d->private_data, sizeof(pd), 9));
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int cm_reject(struct fctx *f)
{
	char pd[16] = FS_REJECT_TAG;
	struct fconn c;
	DAT_EVENT ev;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0))
		goto out;
	CK("dat_ep_connect", dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&f->sin,
					    f->qual, dt_secs(20), sizeof(pd),
					    pd, DAT_QOS_BEST_EFFORT,
					    DAT_CONNECT_DEFAULT_FLAG),
	   DAT_SUCCESS);
	if (!fc_conn_event(f, "a connection the server rejects", c.conn,
			   DAT_CONNECTION_EVENT_PEER_REJECTED, &ev))
		goto out;
	CT("PEER_REJECTED names the EP",
	   ev.event_data.connect_event_data.ep_handle == c.ep);
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int cm_no_listener(struct fctx *f)
{
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0))
		goto out;
	/* port 7 of the server's address: no PSP there */
	CK("dat_ep_connect", dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&f->sin,
					    7, dt_secs(20), 0, NULL,
					    DAT_QOS_BEST_EFFORT,
					    DAT_CONNECT_DEFAULT_FLAG),
	   DAT_SUCCESS);
	if (!fc_conn_event(f, "a connection nobody listens for", c.conn,
			   DAT_CONNECTION_EVENT_NON_PEER_REJECTED, NULL))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int cm_connect_twice(struct fctx *f)
{
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0))
		goto out;
	CK("dat_ep_connect(a CONNECTED EP)",
	   dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&f->sin, f->qual,
			  dt_secs(20), 0, NULL, DAT_QOS_BEST_EFFORT,
			  DAT_CONNECT_DEFAULT_FLAG), DAT_INVALID_STATE);
	CT("still CONNECTED", fc_state(c.ep) == DAT_EP_STATE_CONNECTED);
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int cm_psp(struct fctx *f)
{
	DAT_EVD_HANDLE cr = DAT_HANDLE_NULL;
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL, psp2 = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = 0;
	DAT_PSP_PARAM p;
	int r = DT_FAIL;

	CK("dat_evd_create(CR)", dat_evd_create(f->ia, 8, DAT_HANDLE_NULL,
						DAT_EVD_CR_FLAG, &cr),
	   DAT_SUCCESS);
	CK("dat_psp_create_any", dat_psp_create_any(f->ia, &q, cr,
						    DAT_PSP_CONSUMER_FLAG,
						    &psp), DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	CK("dat_psp_query", dat_psp_query(psp, DAT_PSP_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("psp_param.conn_qual is the one returned", p.conn_qual == q);
	CT("psp_param.evd_handle", p.evd_handle == cr);
	CK("dat_psp_create(a qualifier in use)",
	   dat_psp_create(f->ia, q, cr, DAT_PSP_CONSUMER_FLAG, &psp2),
	   DAT_CONN_QUAL_IN_USE);
	psp2 = DAT_HANDLE_NULL;
	CK("dat_evd_free(the PSP's EVD)", dat_evd_free(cr), DAT_INVALID_STATE);
	CK("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	psp = DAT_HANDLE_NULL;
	CK("dat_psp_create(the freed qualifier again)",
	   dat_psp_create(f->ia, q, cr, DAT_PSP_CONSUMER_FLAG, &psp),
	   DAT_SUCCESS);
	r = DT_PASS;
out:
	if (psp)
		dat_psp_free(psp);
	if (psp2)
		dat_psp_free(psp2);
	if (cr)
		dat_evd_free(cr);
	return r;
}

static int cm_rsp(struct fctx *f)
{
	DAT_EVD_HANDLE cr = DAT_HANDLE_NULL;
	DAT_RSP_HANDLE rsp = DAT_HANDLE_NULL;
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = 0;
	DAT_RSP_PARAM p;
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0))
		goto out;
	CK("dat_evd_create(CR)", dat_evd_create(f->ia, 8, DAT_HANDLE_NULL,
						DAT_EVD_CR_FLAG, &cr),
	   DAT_SUCCESS);
	/* A qualifier the transport has just found free, not one of our
	 * choosing: over rdma_cm a connecting ID of any other program takes
	 * an ephemeral port, from the same range as any fixed choice (a
	 * pid-derived 47xxx was once found taken beside other dapltests). */
	CK("dat_psp_create_any(a free qualifier for the RSP)",
	   dat_psp_create_any(f->ia, &q, cr, DAT_PSP_CONSUMER_FLAG, &psp),
	   DAT_SUCCESS);
	CK("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	psp = DAT_HANDLE_NULL;
	CK("dat_rsp_create", dat_rsp_create(f->ia, q, c.ep, cr, &rsp),
	   DAT_SUCCESS);
	CT("the RSP's EP is RESERVED", fc_state(c.ep) == DAT_EP_STATE_RESERVED);
	memset(&p, 0, sizeof(p));
	CK("dat_rsp_query", dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("rsp_param.ep_handle", p.ep_handle == c.ep);
	CK("dat_rsp_free", dat_rsp_free(rsp), DAT_SUCCESS);
	rsp = DAT_HANDLE_NULL;
	CT("the EP is UNCONNECTED again",
	   fc_state(c.ep) == DAT_EP_STATE_UNCONNECTED);
	/* and it connects as any other */
	if (!fc_connect(f, &c, NULL, 0))
		goto out;
	r = DT_PASS;
out:
	if (rsp)
		dat_rsp_free(rsp);
	if (psp)
		dat_psp_free(psp);
	fc_conn_close(f, &c);
	if (cr)
		dat_evd_free(cr);
	return r;
}

static int cm_abrupt(struct fctx *f)
{
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0))
		goto out;
	CK("dat_ep_disconnect(ABRUPT)",
	   dat_ep_disconnect(c.ep, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	if (!fc_conn_event(f, "abrupt disconnect", c.conn,
			   DAT_CONNECTION_EVENT_DISCONNECTED, NULL))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int cm_reset_reuse(struct fctx *f)
{
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0))
		goto out;
	dt_disconnect(c.ep, c.conn);
	CT("DISCONNECTED", fc_state(c.ep) == DAT_EP_STATE_DISCONNECTED);
	CK("dat_ep_reset", dat_ep_reset(c.ep), DAT_SUCCESS);
	CT("UNCONNECTED after the reset",
	   fc_state(c.ep) == DAT_EP_STATE_UNCONNECTED);
	if (!fc_connect(f, &c, NULL, 0))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static const struct fcase connmgt[] = {
	{ "cm_connect_disconnect", "connect, query, graceful disconnect",
	  cm_connect },
	{ "cm_private_data", "private data both ways", cm_private_data },
	{ "cm_peer_rejected", "the server rejects: PEER_REJECTED", cm_reject },
	{ "cm_no_listener", "nobody listens: NON_PEER_REJECTED",
	  cm_no_listener },
	{ "cm_connect_twice", "connecting a CONNECTED EP: INVALID_STATE",
	  cm_connect_twice },
	{ "cm_psp", "PSP_any, query, a qualifier in use, free", cm_psp },
	{ "cm_rsp", "RSP reserves its EP; freed, the EP connects", cm_rsp },
	{ "cm_abrupt_disconnect", "dat_ep_disconnect ABRUPT", cm_abrupt },
	{ "cm_reset_reuse", "dat_ep_reset after a disconnect, connect again",
	  cm_reset_reuse },
};
FGROUP(fgroup_connmgt, "connmgt", 1, connmgt);

/* ---- dataxfer ------------------------------------------------------------ */

/* send n segments of seg bytes, have them echoed into the receive */
static int echo(struct fctx *f, struct fconn *c, unsigned nseg, unsigned seg,
		uint32_t seed)
{
	DAT_LMR_TRIPLET s[8], rv;
	DAT_VLEN total = (DAT_VLEN)nseg * seg;
	unsigned i;

	/* send from [0, 32K), receive into [32K, 64K) */
	rv = dt_iov(&c->mem, 32768, 32768);
	if (!fc_rc(f, "dat_ep_post_recv",
		   dat_ep_post_recv(c->ep, 1, &rv, dt_cookie(0xEC0),
				    DAT_COMPLETION_DEFAULT_FLAG), DAT_SUCCESS))
		return 0;
	dt_fill(c->mem.buf, total, seed);
	memset(c->mem.buf + 32768, 0, 32768);
	for (i = 0; i < nseg; i++)
		s[i] = dt_iov(&c->mem, (DAT_VLEN)i * seg, seg);
	if (!fc_rc(f, "dat_ep_post_send",
		   dat_ep_post_send(c->ep, nseg, s, dt_cookie(0x5E0),
				    DAT_COMPLETION_DEFAULT_FLAG), DAT_SUCCESS) ||
	    !fc_dto(f, "send", c->req, 0x5E0, DAT_DTO_SUCCESS, total) ||
	    !fc_dto(f, "the echo", c->rcv, 0xEC0, DAT_DTO_SUCCESS, total))
		return 0;
	return fc_true(f, "the echo holds what was sent",
		       dt_check("echo", c->mem.buf + 32768, total, seed));
}

static int dx_send_recv(struct fctx *f)
{
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0) ||
	    !echo(f, &c, 1, 1024, 21))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int dx_multiseg(struct fctx *f)
{
	struct fconn c;
	int r = DT_FAIL;
	unsigned n = f->attr.max_iov_segments_per_dto < 4 ?
		     (unsigned)f->attr.max_iov_segments_per_dto : 4;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0) ||
	    !echo(f, &c, n, 1000, 22))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int dx_zero_length(struct fctx *f)
{
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0) ||
	    !echo(f, &c, 1, 0, 23))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int dx_many(struct fctx *f)
{
	DAT_LMR_TRIPLET s, rv;
	struct fconn c;
	unsigned i;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 20) || !fc_connect(f, &c, NULL, 0))
		goto out;
	for (i = 0; i < 12; i++) {
		rv = dt_iov(&c.mem, 32768 + i * 256, 256);
		CK("dat_ep_post_recv", dat_ep_post_recv(c.ep, 1, &rv,
							dt_cookie(0x100 + i),
							DAT_COMPLETION_DEFAULT_FLAG),
		   DAT_SUCCESS);
	}
	for (i = 0; i < 12; i++) {
		dt_fill(c.mem.buf + i * 256, 256, 100 + i);
		s = dt_iov(&c.mem, i * 256, 256);
		CK("dat_ep_post_send", dat_ep_post_send(c.ep, 1, &s,
							dt_cookie(0x200 + i),
							DAT_COMPLETION_DEFAULT_FLAG),
		   DAT_SUCCESS);
	}
	for (i = 0; i < 12; i++)
		if (!fc_dto(f, "send", c.req, 0x200 + i, DAT_DTO_SUCCESS, 256))
			goto out;
	for (i = 0; i < 12; i++)
		if (!fc_dto(f, "echo", c.rcv, 0x100 + i, DAT_DTO_SUCCESS, 256))
			goto out;
	for (i = 0; i < 12; i++)
		CT("echo in order and intact",
		   dt_check("echo", c.mem.buf + 32768 + i * 256, 256, 100 + i));
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static DAT_RMR_TRIPLET remote(const struct fctx *f, DAT_VLEN off,
			      DAT_VLEN len)
{
	DAT_RMR_TRIPLET t;

	t.rmr_context = f->rbuf_rctx;
	t.pad = 0;
	t.target_address = f->rbuf_addr + off;
	t.segment_length = len;
	return t;
}

static int dx_rdma_read(struct fctx *f)
{
	DAT_RMR_TRIPLET rt = remote(f, 0, 4096);
	DAT_LMR_TRIPLET l;
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0))
		goto out;
	l = dt_iov(&c.mem, 0, 4096);
	CK("dat_ep_post_rdma_read", dat_ep_post_rdma_read(c.ep, 1, &l,
							  dt_cookie(0x4EAD),
							  &rt,
							  DAT_COMPLETION_DEFAULT_FLAG),
	   DAT_SUCCESS);
	if (!fc_dto(f, "RDMA read", c.req, 0x4EAD, DAT_DTO_SUCCESS, 4096))
		goto out;
	CT("the server's buffer as it filled it",
	   dt_check("RDMA read", c.mem.buf, 4096, 77));
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int dx_rdma_write_read(struct fctx *f)
{
	DAT_RMR_TRIPLET rt = remote(f, 32768, 8192);
	DAT_LMR_TRIPLET l[2];
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0))
		goto out;
	dt_fill(c.mem.buf, 8192, 31);
	l[0] = dt_iov(&c.mem, 0, 4096);
	l[1] = dt_iov(&c.mem, 4096, 4096);
	CK("dat_ep_post_rdma_write(2 segments)",
	   dat_ep_post_rdma_write(c.ep, 2, l, dt_cookie(0x3),
				  &rt, DAT_COMPLETION_DEFAULT_FLAG),
	   DAT_SUCCESS);
	if (!fc_dto(f, "RDMA write", c.req, 0x3, DAT_DTO_SUCCESS, 8192))
		goto out;
	l[0] = dt_iov(&c.mem, 16384, 8192);
	CK("dat_ep_post_rdma_read", dat_ep_post_rdma_read(c.ep, 1, l,
							  dt_cookie(0x4), &rt,
							  DAT_COMPLETION_DEFAULT_FLAG),
	   DAT_SUCCESS);
	if (!fc_dto(f, "RDMA read back", c.req, 0x4, DAT_DTO_SUCCESS, 8192))
		goto out;
	CT("what was written reads back",
	   dt_check("RDMA read back", c.mem.buf + 16384, 8192, 31));
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int dx_bad_rkey(struct fctx *f)
{
	DAT_RMR_TRIPLET rt = remote(f, 32768, 256);
	DAT_LMR_TRIPLET l;
	struct fconn c;
	int r = DT_FAIL;

	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0))
		goto out;
	rt.rmr_context ^= 0x00ffff00;
	l = dt_iov(&c.mem, 0, 256);
	CK("dat_ep_post_rdma_write(a wrong rmr_context)",
	   dat_ep_post_rdma_write(c.ep, 1, &l, dt_cookie(0xBAD), &rt,
				  DAT_COMPLETION_DEFAULT_FLAG), DAT_SUCCESS);
	if (!fc_dto(f, "RDMA write with a wrong key", c.req, 0xBAD,
		    DAT_DTO_ERR_REMOTE_ACCESS, (DAT_VLEN)-1))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static const struct fcase dataxfer[] = {
	{ "dx_send_recv", "a send echoed back by the server", dx_send_recv },
	{ "dx_multiseg", "a send of several segments", dx_multiseg },
	{ "dx_zero_length", "a send of 0 bytes", dx_zero_length },
	{ "dx_pipelined", "12 sends in flight, echoed in order", dx_many },
	{ "dx_rdma_read", "RDMA read of the server's buffer", dx_rdma_read },
	{ "dx_rdma_write_read", "RDMA write, then read it back",
	  dx_rdma_write_read },
	{ "dx_bad_rmr_context", "RDMA write with a wrong key: DAT_DTO_ERR_REMOTE_ACCESS",
	  dx_bad_rkey },
};
FGROUP(fgroup_dataxfer, "dataxfer", 1, dataxfer);
