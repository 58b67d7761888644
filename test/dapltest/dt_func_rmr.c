/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_func_rmr.c - the rmr group: memory windows (dat_rmr_create, _query,
 * _bind, _free).  The client owns the memory and binds the windows on
 * its own connections to the echo service; the service reads and writes
 * through them with RDMA on those connections (its commands, dt_func.h),
 * and reports each completion's status.  A write through a context that
 * is dead (the window unbound, rebound or freed) or through a read-only
 * window must fail there with DAT_DTO_ERR_REMOTE_ACCESS and leave the
 * memory alone; that connection breaks, so such a write is asked for on
 * a second command connection.
 *
 * Not checked: that the device refuses an access through a window that
 * goes past the window's end but stays inside its LMR.  Soft-RoCE (rxe,
 * Linux 6.1) checks such an access against the memory region only, so
 * it succeeds there.
 *
 * UNSUPP only where dat_ia_query reports max_rmrs 0 (no memory windows,
 * or DAPL_CMA_DISABLE=mw); rmr_create_free checks that dat_rmr_create
 * then says DAT_MODEL_NOT_SUPPORTED.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dt_func.h"

#define WMEM		16384	/* the LMR the windows are bound over */
#define WOFF		4096	/* the window */
#define WLEN		4096
#define WOFF2		10240	/* where a rebind moves it */
#define SENTINEL	0xEE
#define REMOTE_RW	(DAT_MEM_PRIV_REMOTE_READ_FLAG | \
			 DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

static DAT_RMR_COOKIE rck(uint64_t v)
{
	DAT_RMR_COOKIE c;

	c.as_64 = v;
	return c;
}

static int no_rmr(struct fctx *f)
{
	if (f->attr.max_rmrs > 0)
		return 0;
	fc_why(f, "dat_ia_query: max_rmrs 0 (no memory windows)");
	return 1;
}

/* one bind completion on evd (bounded): its RMR, cookie and status */
static int bind_done(struct fctx *f, const char *what, DAT_EVD_HANDLE evd,
		     DAT_RMR_HANDLE rmr, uint64_t cookie,
		     DAT_DTO_COMPLETION_STATUS status)
{
	const DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (!fc_rc(f, what, dt_wait(evd, NULL, 0, dt_secs(20), &ev),
		   DAT_SUCCESS))
		return 0;
	d = &ev.event_data.rmr_completion_event_data;
	if (ev.event_number != DAT_RMR_BIND_COMPLETION_EVENT) {
		fc_why(f, "%s: event %s, want DAT_RMR_BIND_COMPLETION_EVENT",
		       what, dt_ev(ev.event_number));
		return 0;
	}
	if (d->rmr_handle != rmr || d->user_cookie.as_64 != cookie) {
		fc_why(f, "%s: rmr_handle %p cookie 0x%llx, want %p 0x%llx",
		       what, d->rmr_handle,
		       (unsigned long long)d->user_cookie.as_64, rmr,
		       (unsigned long long)cookie);
		return 0;
	}
	if (d->status != status) {
		fc_why(f, "%s: status %s, want %s", what, dt_dto(d->status),
		       dt_dto(status));
		return 0;
	}
	return 1;
}

/* nothing on evd (a refused call completes nothing) */
static int evd_empty(struct fctx *f, const char *what, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;
	DAT_RETURN rc = dat_evd_dequeue(evd, &ev);

	if (DAT_GET_TYPE(rc) == DAT_QUEUE_EMPTY)
		return 1;
	fc_why(f, "%s: dat_evd_dequeue: %s, event %s", what, dt_rc(rc),
	       rc == DAT_SUCCESS ? dt_ev(ev.event_number) : "-");
	return 0;
}

/* dat_rmr_query of an unbound window: zero triplet, privileges, context */
static int unbound(struct fctx *f, DAT_RMR_HANDLE rmr, DAT_PZ_HANDLE pz)
{
	DAT_RMR_PARAM p;

	memset(&p, 0x5a, sizeof(p));
	return fc_rc(f, "dat_rmr_query", dat_rmr_query(rmr, DAT_RMR_FIELD_ALL,
						       &p), DAT_SUCCESS) &&
	       fc_true(f, "rmr_param.ia_handle is the IA", p.ia_handle == f->ia) &&
	       fc_true(f, "rmr_param.pz_handle is the PZ", p.pz_handle == pz) &&
	       fc_true(f, "an unbound window: segment_length 0, mem_priv 0, rmr_context 0",
		       p.lmr_triplet.segment_length == 0 && p.mem_priv == 0 &&
		       p.rmr_context == 0);
}

/* ---- a case's objects ------------------------------------------------------ */

struct rc {
	struct fconn d;		/* the windows' connection */
	struct fconn c;		/* a second one, for writes that break d */
	struct dt_mem win;	/* WMEM, SENTINEL bytes */
	DAT_RMR_HANDLE rmr;
};

static int rc_open(struct fctx *f, struct rc *r, int two)
{
	memset(r, 0, sizeof(*r));
	if (!fc_rc(f, "dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &r->win,
						     WMEM, DT_PRIV_ALL),
		   DAT_SUCCESS))
		return 0;
	memset(r->win.buf, SENTINEL, WMEM);
	if (!fc_rc(f, "dat_rmr_create", dat_rmr_create(f->pz, &r->rmr),
		   DAT_SUCCESS)) {
		r->rmr = DAT_HANDLE_NULL;
		return 0;
	}
	if (!fc_cmd_connect(f, &r->d))
		return 0;
	return !two || fc_cmd_connect(f, &r->c);
}

static void rc_close(struct fctx *f, struct rc *r)
{
	if (r->rmr)
		fc_rc(f, "dat_rmr_free", dat_rmr_free(r->rmr), DAT_SUCCESS);
	fc_conn_close(f, &r->d);
	fc_conn_close(f, &r->c);
	dt_mem_free(&r->win);
}

/* binds the window over [off, off + len) of win on d; waits for it */
static int win_bind(struct fctx *f, struct rc *r, DAT_VLEN off, DAT_VLEN len,
		DAT_MEM_PRIV_FLAGS priv, uint64_t cookie, DAT_RMR_CONTEXT *ctx)
{
	DAT_LMR_TRIPLET t = dt_iov(&r->win, off, len);

	return fc_rc(f, "dat_rmr_bind", dat_rmr_bind(r->rmr, &t, priv, r->d.ep,
						     rck(cookie),
						     DAT_COMPLETION_DEFAULT_FLAG,
						     ctx), DAT_SUCCESS) &&
	       bind_done(f, "the bind's completion", r->d.req, r->rmr, cookie,
			 DAT_DTO_SUCCESS);
}

/*
 * The service RDMA-writes (seed's pattern) or -reads len bytes at off of
 * win through context ctx, on d; the command goes on d itself, or on c
 * (from_c) when the write is to break d.  Its completion must have status
 * want; a successful read must have found the pattern seed.
 */
static int remote(struct fctx *f, struct rc *r, int from_c, enum fs_op op,
		  DAT_RMR_CONTEXT ctx, DAT_VLEN off, DAT_VLEN len,
		  uint32_t seed, DAT_DTO_COMPLETION_STATUS want)
{
	const char *name = op == FS_OP_WRITE ? "write" : "read";
	struct fs_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.op = op;
	cmd.via = from_c ? r->d.token : 0;
	cmd.seed = seed;
	cmd.addr = (uintptr_t)(r->win.buf + off);
	cmd.len = len;
	cmd.rmr_context = ctx;
	if (!fc_cmd(f, from_c ? &r->c : &r->d, &cmd))
		return 0;
	if (cmd.post_rc != DAT_SUCCESS) {
		fc_why(f, "the service's RDMA %s: %s: %.*s", name,
		       dt_rc(cmd.post_rc), (int)sizeof(cmd.text), cmd.text);
		return 0;
	}
	if (cmd.status != want) {
		fc_why(f, "the service's RDMA %s through context 0x%x: %s, want %s",
		       name, ctx, dt_dto(cmd.status), dt_dto(want));
		return 0;
	}
	if (op == FS_OP_READ && want == DAT_DTO_SUCCESS && !cmd.match) {
		fc_why(f, "the service's RDMA read through context 0x%x did not read what the window holds",
		       ctx);
		return 0;
	}
	return 1;
}

/* win holds seed's pattern at [off, off + len), and the bytes next to it
 * are still the sentinel */
static int holds(struct fctx *f, const struct rc *r, DAT_VLEN off,
		 DAT_VLEN len, uint32_t seed, const char *what)
{
	if (!dt_check(what, r->win.buf + off, len, seed)) {
		fc_why(f, "%s: not the pattern it should hold", what);
		return 0;
	}
	return fc_true(f, "the bytes next to the window are untouched",
		       r->win.buf[off - 1] == SENTINEL &&
		       r->win.buf[off + len] == SENTINEL);
}

/* ---- the cases ------------------------------------------------------------- */

static int rmr_create_free(struct fctx *f)
{
	DAT_PZ_HANDLE pz2 = DAT_HANDLE_NULL;
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL, old;
	DAT_RMR_PARAM p;
	DAT_RETURN rc;
	int r = DT_FAIL;

	if (no_rmr(f)) {
		rc = dat_rmr_create(f->pz, &rmr);
		if (rc == DAT_SUCCESS)
			dat_rmr_free(rmr);
		f->why[0] = 0;
		if (!fc_rc_exact(f, "dat_rmr_create with max_rmrs 0", rc,
				 DT_ERR(DAT_MODEL_NOT_SUPPORTED,
					DAT_NO_SUBTYPE)))
			return DT_FAIL;
		fc_why(f, "dat_ia_query: max_rmrs 0 (no memory windows), dat_rmr_create: DAT_MODEL_NOT_SUPPORTED");
		return DT_UNSUPP;
	}
	CK("dat_pz_create", dat_pz_create(f->ia, &pz2), DAT_SUCCESS);
	CKX("dat_rmr_create", dat_rmr_create(pz2, &rmr), DAT_SUCCESS);
	if (!unbound(f, rmr, pz2))
		goto out;
	CKX("dat_rmr_create(rmr_handle NULL)", dat_rmr_create(pz2, NULL),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	CKX("dat_rmr_query(a mask bit outside DAT_RMR_FIELD_ALL)",
	    dat_rmr_query(rmr, (DAT_RMR_PARAM_MASK)0x20, &p),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	CKX("dat_rmr_query(rmr_param NULL)",
	    dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, NULL),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	CKX("dat_pz_free of the RMR's PZ", dat_pz_free(pz2),
	    DT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE));
	old = rmr;
	rmr = DAT_HANDLE_NULL;
	CKX("dat_rmr_free", dat_rmr_free(old), DAT_SUCCESS);
	CKX("dat_rmr_free again", dat_rmr_free(old),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	CKX("dat_rmr_query of the freed RMR",
	    dat_rmr_query(old, DAT_RMR_FIELD_ALL, &p),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	CKX("dat_pz_free once the RMR is gone", dat_pz_free(pz2), DAT_SUCCESS);
	pz2 = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (rmr)
		dat_rmr_free(rmr);
	if (pz2)
		dat_pz_free(pz2);
	return r;
}

static int rmr_wrong_handles(struct fctx *f)
{
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL, r2 = DAT_HANDLE_NULL;
	DAT_RMR_CONTEXT ctx;
	DAT_LMR_TRIPLET t;
	DAT_RMR_PARAM p;
	struct fconn c;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!fc_conn_open(f, &c, 0))
		goto out;
	CK("dat_rmr_create", dat_rmr_create(f->pz, &rmr), DAT_SUCCESS);
	t = dt_iov(&c.mem, 0, 4096);
	CKX("dat_rmr_create(an LMR handle as the PZ)",
	    dat_rmr_create((DAT_PZ_HANDLE)c.mem.lmr, &r2),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	CKX("dat_rmr_query(an LMR handle)",
	    dat_rmr_query((DAT_RMR_HANDLE)c.mem.lmr, DAT_RMR_FIELD_ALL, &p),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	CKX("dat_rmr_free(a PZ handle)", dat_rmr_free((DAT_RMR_HANDLE)f->pz),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	CKX("dat_rmr_free(NULL)", dat_rmr_free(DAT_HANDLE_NULL),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	CKX("dat_rmr_bind(an EP handle as the RMR)",
	    dat_rmr_bind((DAT_RMR_HANDLE)c.ep, &t, REMOTE_RW, c.ep, rck(1),
			 DAT_COMPLETION_DEFAULT_FLAG, &ctx),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	CKX("dat_rmr_bind(an LMR handle as the EP)",
	    dat_rmr_bind(rmr, &t, REMOTE_RW, (DAT_EP_HANDLE)c.mem.lmr, rck(2),
			 DAT_COMPLETION_DEFAULT_FLAG, &ctx),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	CKX("dat_rmr_bind(the RMR as the EP)",
	    dat_rmr_bind(rmr, &t, REMOTE_RW, (DAT_EP_HANDLE)rmr, rck(3),
			 DAT_COMPLETION_DEFAULT_FLAG, &ctx),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	if (!evd_empty(f, "no completion for a refused bind", c.req) ||
	    !unbound(f, rmr, f->pz))
		goto out;
	r = DT_PASS;
out:
	if (r2)
		dat_rmr_free(r2);
	if (rmr)
		dat_rmr_free(rmr);
	fc_conn_close(f, &c);
	return r;
}

static int rmr_bind_unconnected(struct fctx *f)
{
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_RMR_CONTEXT ctx;
	DAT_LMR_TRIPLET t;
	struct fconn c;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!fc_conn_open(f, &c, 0))
		goto out;
	CK("dat_rmr_create", dat_rmr_create(f->pz, &rmr), DAT_SUCCESS);
	t = dt_iov(&c.mem, 4096, 4096);
	CKX("dat_rmr_bind on an UNCONNECTED EP",
	    dat_rmr_bind(rmr, &t, REMOTE_RW, c.ep, rck(0xB0),
			 DAT_COMPLETION_DEFAULT_FLAG, &ctx),
	    DT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	if (!evd_empty(f, "no completion for the refused bind", c.req) ||
	    !unbound(f, rmr, f->pz))
		goto out;
	/* the LMR is not pinned by the bind that was refused */
	CKX("dat_lmr_free", dat_lmr_free(c.mem.lmr), DAT_SUCCESS);
	c.mem.lmr = DAT_HANDLE_NULL;
	dt_mem_free(&c.mem);
	r = DT_PASS;
out:
	if (rmr)
		dat_rmr_free(rmr);
	fc_conn_close(f, &c);
	return r;
}

static int rmr_bind_errors(struct fctx *f)
{
	DAT_RMR_HANDLE r2 = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz2 = DAT_HANDLE_NULL;
	struct dt_mem ro, wo, other;
	DAT_RMR_COOKIE ck = rck(0xBAD);
	DAT_RMR_CONTEXT ctx;
	DAT_LMR_TRIPLET t;
	struct rc rc;
	int r = DT_FAIL;
	const DAT_RETURN arg2 = DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	if (no_rmr(f))
		return DT_UNSUPP;
	memset(&ro, 0, sizeof(ro));
	memset(&wo, 0, sizeof(wo));
	memset(&other, 0, sizeof(other));
	if (!rc_open(f, &rc, 0))
		goto out;
	t = dt_iov(&rc.win, WMEM - 8, 16);
	CKX("dat_rmr_bind past the end of the LMR",
	    dat_rmr_bind(rc.rmr, &t, REMOTE_RW, rc.d.ep, ck, 0, &ctx), arg2);
	t = dt_iov(&rc.win, 0, 16);
	t.virtual_address -= 8;
	CKX("dat_rmr_bind before the start of the LMR",
	    dat_rmr_bind(rc.rmr, &t, REMOTE_RW, rc.d.ep, ck, 0, &ctx), arg2);
	t = dt_iov(&rc.win, WOFF, WLEN);
	t.lmr_context ^= 0x5a5a0000;
	CKX("dat_rmr_bind on an lmr_context that is no LMR",
	    dat_rmr_bind(rc.rmr, &t, REMOTE_RW, rc.d.ep, ck, 0, &ctx), arg2);
	t = dt_iov(&rc.win, WOFF, WLEN);
	CKX("dat_rmr_bind(lmr_triplet NULL)",
	    dat_rmr_bind(rc.rmr, NULL, REMOTE_RW, rc.d.ep, ck, 0, &ctx), arg2);
	CKX("dat_rmr_bind with a privilege bit DAT 1.2 does not define",
	    dat_rmr_bind(rc.rmr, &t, 0x100, rc.d.ep, ck, 0, &ctx),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	CKX("dat_rmr_bind with DAT_COMPLETION_SOLICITED_WAIT_FLAG",
	    dat_rmr_bind(rc.rmr, &t, REMOTE_RW, rc.d.ep, ck,
			 DAT_COMPLETION_SOLICITED_WAIT_FLAG, &ctx),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	CKX("dat_rmr_bind UNSIGNALLED on an EP not configured for it",
	    dat_rmr_bind(rc.rmr, &t, REMOTE_RW, rc.d.ep, ck,
			 DAT_COMPLETION_UNSIGNALLED_FLAG, &ctx),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	CKX("dat_rmr_bind(rmr_context NULL)",
	    dat_rmr_bind(rc.rmr, &t, REMOTE_RW, rc.d.ep, ck, 0, NULL),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	/* remote read needs local read, remote write local write */
	CK("dat_lmr_create(LOCAL_READ only)",
	   dt_mem_alloc(f->ia, f->pz, &ro, 4096, DAT_MEM_PRIV_LOCAL_READ_FLAG),
	   DAT_SUCCESS);
	CK("dat_lmr_create(LOCAL_WRITE only)",
	   dt_mem_alloc(f->ia, f->pz, &wo, 4096, DAT_MEM_PRIV_LOCAL_WRITE_FLAG),
	   DAT_SUCCESS);
	t = dt_iov(&ro, 0, 256);
	CKX("a remote-write window on an LMR without LOCAL_WRITE",
	    dat_rmr_bind(rc.rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, rc.d.ep,
			 ck, 0, &ctx),
	    DT_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE));
	t = dt_iov(&wo, 0, 256);
	CKX("a remote-read window on an LMR without LOCAL_READ",
	    dat_rmr_bind(rc.rmr, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG, rc.d.ep,
			 ck, 0, &ctx),
	    DT_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE));
	/* the LMR, the RMR and the EP share one PZ */
	CK("dat_pz_create", dat_pz_create(f->ia, &pz2), DAT_SUCCESS);
	CK("dat_rmr_create(another PZ)", dat_rmr_create(pz2, &r2),
	   DAT_SUCCESS);
	CK("dat_lmr_create(another PZ)",
	   dt_mem_alloc(f->ia, pz2, &other, 4096, DT_PRIV_ALL), DAT_SUCCESS);
	t = dt_iov(&rc.win, WOFF, WLEN);
	CKX("dat_rmr_bind of an RMR of another PZ than the EP's",
	    dat_rmr_bind(r2, &t, REMOTE_RW, rc.d.ep, ck, 0, &ctx),
	    DT_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE));
	t = dt_iov(&other, 0, 256);
	CKX("dat_rmr_bind over an LMR of another PZ than the RMR's",
	    dat_rmr_bind(rc.rmr, &t, REMOTE_RW, rc.d.ep, ck, 0, &ctx),
	    DT_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE));
	if (!evd_empty(f, "no completion for a refused bind", rc.d.req) ||
	    !unbound(f, rc.rmr, f->pz))
		goto out;
	CT("the EP is still CONNECTED",
	   fc_state(rc.d.ep) == DAT_EP_STATE_CONNECTED);
	/* and a good bind goes through, its window working */
	if (!win_bind(f, &rc, WOFF, WLEN, REMOTE_RW, 0x600D, &ctx))
		goto out;
	dt_fill(rc.win.buf + WOFF, WLEN, 31);
	if (!remote(f, &rc, 0, FS_OP_READ, ctx, WOFF, WLEN, 31,
		    DAT_DTO_SUCCESS))
		goto out;
	r = DT_PASS;
out:
	if (r2)
		dat_rmr_free(r2);
	dt_mem_free(&other);
	if (pz2)
		dat_pz_free(pz2);
	dt_mem_free(&ro);
	dt_mem_free(&wo);
	rc_close(f, &rc);
	return r;
}

static int rmr_bind_query(struct fctx *f)
{
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RMR_PARAM p;
	struct rc rc;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!rc_open(f, &rc, 0) ||
	    !win_bind(f, &rc, WOFF, WLEN, REMOTE_RW, 0xB1, &ctx))
		goto out;
	CT("the window has an rmr_context of its own, not its LMR's",
	   ctx != rc.win.rctx);
	memset(&p, 0x5a, sizeof(p));
	CK("dat_rmr_query", dat_rmr_query(rc.rmr, DAT_RMR_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("rmr_param.ia_handle is the IA", p.ia_handle == f->ia);
	CT("rmr_param.pz_handle is the PZ", p.pz_handle == f->pz);
	CT("rmr_param.lmr_triplet is the one bound",
	   p.lmr_triplet.lmr_context == rc.win.lctx &&
	   p.lmr_triplet.virtual_address ==
	   (DAT_VADDR)(uintptr_t)(rc.win.buf + WOFF) &&
	   p.lmr_triplet.segment_length == WLEN);
	CT("rmr_param.mem_priv is REMOTE_READ | REMOTE_WRITE",
	   p.mem_priv == REMOTE_RW);
	CT("rmr_param.rmr_context is the one dat_rmr_bind returned",
	   p.rmr_context == ctx);
	memset(&p, 0, sizeof(p));
	CK("dat_rmr_query(DAT_RMR_FIELD_RMR_CONTEXT)",
	   dat_rmr_query(rc.rmr, DAT_RMR_FIELD_RMR_CONTEXT, &p), DAT_SUCCESS);
	CT("the context alone", p.rmr_context == ctx);
	CKX("dat_lmr_free of the LMR a window is bound to",
	    dat_lmr_free(rc.win.lmr),
	    DT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));
	CKX("dat_rmr_free", dat_rmr_free(rc.rmr), DAT_SUCCESS);
	rc.rmr = DAT_HANDLE_NULL;
	CKX("dat_lmr_free once the window is gone", dat_lmr_free(rc.win.lmr),
	    DAT_SUCCESS);
	rc.win.lmr = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	rc_close(f, &rc);
	return r;
}

static int rmr_remote_write_read(struct fctx *f)
{
	static unsigned char before[WLEN];
	DAT_RMR_CONTEXT ctx = 0;
	struct rc rc;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!rc_open(f, &rc, 0) ||
	    !win_bind(f, &rc, WOFF, WLEN, REMOTE_RW, 0xB2, &ctx) ||
	    !remote(f, &rc, 0, FS_OP_WRITE, ctx, WOFF, WLEN, 41,
		    DAT_DTO_SUCCESS) ||
	    !holds(f, &rc, WOFF, WLEN, 41, "the window after the service's RDMA write"))
		goto out;
	dt_fill(rc.win.buf + WOFF, WLEN, 42);
	if (!remote(f, &rc, 0, FS_OP_READ, ctx, WOFF, WLEN, 42,
		    DAT_DTO_SUCCESS))
		goto out;
	/* parts of it, at offsets: only those bytes change */
	dt_fill(rc.win.buf + WOFF + 1000, 100, 44);
	memcpy(before, rc.win.buf + WOFF, WLEN);
	if (!remote(f, &rc, 0, FS_OP_READ, ctx, WOFF + 1000, 100, 44,
		    DAT_DTO_SUCCESS) ||
	    !remote(f, &rc, 0, FS_OP_WRITE, ctx, WOFF + 2000, 24, 45,
		    DAT_DTO_SUCCESS))
		goto out;
	CT("24 bytes written at offset 2000 of the window, nothing else",
	   dt_check("the window", rc.win.buf + WOFF + 2000, 24, 45) &&
	   !memcmp(rc.win.buf + WOFF, before, 2000) &&
	   !memcmp(rc.win.buf + WOFF + 2024, before + 2024, WLEN - 2024));
	r = DT_PASS;
out:
	rc_close(f, &rc);
	return r;
}

static int rmr_read_only(struct fctx *f)
{
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RMR_PARAM p;
	struct rc rc;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!rc_open(f, &rc, 1) ||
	    !win_bind(f, &rc, WOFF, WLEN, DAT_MEM_PRIV_REMOTE_READ_FLAG, 0xB3,
		  &ctx))
		goto out;
	memset(&p, 0, sizeof(p));
	CK("dat_rmr_query", dat_rmr_query(rc.rmr, DAT_RMR_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("rmr_param.mem_priv is REMOTE_READ",
	   p.mem_priv == DAT_MEM_PRIV_REMOTE_READ_FLAG);
	dt_fill(rc.win.buf + WOFF, WLEN, 51);
	if (!remote(f, &rc, 0, FS_OP_READ, ctx, WOFF, WLEN, 51,
		    DAT_DTO_SUCCESS) ||
	    !remote(f, &rc, 1, FS_OP_WRITE, ctx, WOFF, WLEN, 52,
		    DAT_DTO_ERR_REMOTE_ACCESS) ||
	    !fc_conn_lost(f, &rc.d, "the window's connection after a write through a read-only window") ||
	    !holds(f, &rc, WOFF, WLEN, 51, "a read-only window after a write"))
		goto out;
	r = DT_PASS;
out:
	rc_close(f, &rc);
	return r;
}

static int rmr_unbind(struct fctx *f)
{
	DAT_RMR_CONTEXT ctx = 0, ctx2 = 0;
	DAT_LMR_TRIPLET t;
	struct rc rc;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!rc_open(f, &rc, 1) ||
	    !win_bind(f, &rc, WOFF, WLEN, REMOTE_RW, 0xB4, &ctx) ||
	    !remote(f, &rc, 0, FS_OP_WRITE, ctx, WOFF, WLEN, 61,
		    DAT_DTO_SUCCESS))
		goto out;
	t = dt_iov(&rc.win, 0, 0);
	CKX("dat_rmr_bind(segment_length 0): unbind",
	    dat_rmr_bind(rc.rmr, &t, 0, rc.d.ep, rck(0xB5),
			 DAT_COMPLETION_DEFAULT_FLAG, &ctx2), DAT_SUCCESS);
	if (!bind_done(f, "the unbind's completion", rc.d.req, rc.rmr, 0xB5,
		       DAT_DTO_SUCCESS) ||
	    !unbound(f, rc.rmr, f->pz) ||
	    !remote(f, &rc, 1, FS_OP_WRITE, ctx, WOFF, WLEN, 62,
		    DAT_DTO_ERR_REMOTE_ACCESS) ||
	    !fc_conn_lost(f, &rc.d, "the window's connection after a write through the unbound context") ||
	    !holds(f, &rc, WOFF, WLEN, 61, "the window after a write through the unbound context"))
		goto out;
	CKX("dat_lmr_free after the unbind", dat_lmr_free(rc.win.lmr),
	    DAT_SUCCESS);
	rc.win.lmr = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	rc_close(f, &rc);
	return r;
}

static int rmr_rebind(struct fctx *f)
{
	DAT_RMR_CONTEXT c1 = 0, c2 = 0;
	DAT_RMR_PARAM p;
	struct rc rc;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!rc_open(f, &rc, 1) ||
	    !win_bind(f, &rc, WOFF, WLEN, REMOTE_RW, 0xB6, &c1) ||
	    !remote(f, &rc, 0, FS_OP_WRITE, c1, WOFF, WLEN, 71,
		    DAT_DTO_SUCCESS) ||
	    !win_bind(f, &rc, WOFF2, WLEN, REMOTE_RW, 0xB7, &c2))
		goto out;
	CT("the rebind gave a new rmr_context", c2 != c1);
	memset(&p, 0, sizeof(p));
	CK("dat_rmr_query", dat_rmr_query(rc.rmr, DAT_RMR_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("rmr_param: the new range and context",
	   p.lmr_triplet.virtual_address ==
	   (DAT_VADDR)(uintptr_t)(rc.win.buf + WOFF2) &&
	   p.lmr_triplet.segment_length == WLEN && p.rmr_context == c2);
	if (!remote(f, &rc, 0, FS_OP_WRITE, c2, WOFF2, WLEN, 72,
		    DAT_DTO_SUCCESS) ||
	    !holds(f, &rc, WOFF2, WLEN, 72, "the rebound window after a write") ||
	    !remote(f, &rc, 1, FS_OP_WRITE, c1, WOFF, WLEN, 73,
		    DAT_DTO_ERR_REMOTE_ACCESS) ||
	    !fc_conn_lost(f, &rc.d, "the window's connection after a write through the previous context") ||
	    !holds(f, &rc, WOFF, WLEN, 71, "the old range after a write through the previous context") ||
	    !holds(f, &rc, WOFF2, WLEN, 72, "the rebound window after a write through the previous context"))
		goto out;
	r = DT_PASS;
out:
	rc_close(f, &rc);
	return r;
}

static int rmr_free_bound(struct fctx *f)
{
	DAT_RMR_HANDLE old;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RMR_PARAM p;
	struct rc rc;
	int r = DT_FAIL;

	if (no_rmr(f))
		return DT_UNSUPP;
	if (!rc_open(f, &rc, 1) ||
	    !win_bind(f, &rc, WOFF, WLEN, REMOTE_RW, 0xB8, &ctx) ||
	    !remote(f, &rc, 0, FS_OP_WRITE, ctx, WOFF, WLEN, 81,
		    DAT_DTO_SUCCESS))
		goto out;
	old = rc.rmr;
	rc.rmr = DAT_HANDLE_NULL;
	CKX("dat_rmr_free of a bound window", dat_rmr_free(old), DAT_SUCCESS);
	CKX("dat_rmr_query of the freed RMR",
	    dat_rmr_query(old, DAT_RMR_FIELD_ALL, &p),
	    DT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	if (!remote(f, &rc, 1, FS_OP_WRITE, ctx, WOFF, WLEN, 82,
		    DAT_DTO_ERR_REMOTE_ACCESS) ||
	    !fc_conn_lost(f, &rc.d, "the window's connection after a write through the freed window's context") ||
	    !holds(f, &rc, WOFF, WLEN, 81, "the memory after a write through the freed window's context"))
		goto out;
	CKX("dat_lmr_free once its window is freed", dat_lmr_free(rc.win.lmr),
	    DAT_SUCCESS);
	rc.win.lmr = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	rc_close(f, &rc);
	return r;
}

static const struct fcase rmr[] = {
	{ "rmr_create_free", "create, query unbound, PZ in use, free, freed handle",
	  rmr_create_free },
	{ "rmr_wrong_handles", "other handle types as RMR, PZ, EP: INVALID_HANDLE",
	  rmr_wrong_handles },
	{ "rmr_bind_unconnected", "bind on an UNCONNECTED EP: INVALID_STATE",
	  rmr_bind_unconnected },
	{ "rmr_bind_errors", "bind outside the LMR, privileges, PZs, flags: refused, nothing posted",
	  rmr_bind_errors },
	{ "rmr_bind_query", "bind, its completion, dat_rmr_query, the LMR pinned",
	  rmr_bind_query },
	{ "rmr_remote_write_read", "the server writes and reads through the window",
	  rmr_remote_write_read },
	{ "rmr_read_only", "a REMOTE_READ window: read works, write REMOTE_ACCESS",
	  rmr_read_only },
	{ "rmr_unbind", "unbind (length 0): the old context fails",
	  rmr_unbind },
	{ "rmr_rebind", "rebind elsewhere: new context works, the old fails",
	  rmr_rebind },
	{ "rmr_free_bound", "dat_rmr_free of a bound window: its context fails",
	  rmr_free_bound },
};
FGROUP(fgroup_rmr, "rmr", 1, rmr);
