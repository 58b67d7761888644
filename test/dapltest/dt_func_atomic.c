/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_func_atomic.c - the atomic group: the IB atomic extension
 * (<dat/dat_ib_extensions.h>: dat_ib_post_fetch_and_add,
 * dat_ib_post_cmp_and_swap) against the echo service's atomic target, an
 * LMR registered with DAT_IB_MEM_PRIV_REMOTE_ATOMIC whose words the
 * service sets and reads with its CPU on command (dt_func.h), so every
 * result is checked in the server's memory, not only in the original
 * value that comes back.
 *
 * UNSUPP only where the provider attributes DAT_IB_FETCH_AND_ADD and
 * DAT_IB_CMP_AND_SWAP are "FALSE" (no atomics, or
 * DAPL_CMA_DISABLE=atomic); at_attributes checks that both calls then
 * say DAT_MODEL_NOT_SUPPORTED.  at_wrong_handle runs either way: a
 * handle that is no EP is refused before the provider looks at its
 * device.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dt_func.h"
#include <dat/dat_ib_extensions.h>

#define LOCAL_OFF	8192	/* where the original values land in c.mem */
#define SENTINEL	0xEE

static int atomics(const struct fctx *f)
{
	const char *a = fc_prov_attr(f, DAT_IB_ATTR_FETCH_AND_ADD);
	const char *b = fc_prov_attr(f, DAT_IB_ATTR_CMP_AND_SWAP);

	return a && b && !strcmp(a, "TRUE") && !strcmp(b, "TRUE");
}

static int no_atomic(struct fctx *f)
{
	if (atomics(f))
		return 0;
	fc_why(f, "provider attributes %s/%s not TRUE (no atomics)",
	       DAT_IB_ATTR_FETCH_AND_ADD, DAT_IB_ATTR_CMP_AND_SWAP);
	return 1;
}

/* one atomic completion on c's request EVD (bounded): DAT_IB_DTO_EVENT
 * with the DTO data of c's EP, cookie, status, 8 bytes if it succeeded */
static int at_done(struct fctx *f, const char *what, struct fconn *c,
		   uint64_t cookie, DAT_DTO_COMPLETION_STATUS status)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (!fc_rc(f, what, dt_wait(c->req, NULL, 0, dt_secs(20), &ev),
		   DAT_SUCCESS))
		return 0;
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_IB_DTO_EVENT) {
		fc_why(f, "%s: event %s, want DAT_IB_DTO_EVENT", what,
		       dt_ev(ev.event_number));
		return 0;
	}
	if (d->ep_handle != c->ep || d->user_cookie.as_64 != cookie) {
		fc_why(f, "%s: ep %p cookie 0x%llx, want %p 0x%llx", what,
		       d->ep_handle, (unsigned long long)d->user_cookie.as_64,
		       c->ep, (unsigned long long)cookie);
		return 0;
	}
	if (d->status != status) {
		fc_why(f, "%s: status %s, want %s", what, dt_dto(d->status),
		       dt_dto(status));
		return 0;
	}
	if (status == DAT_DTO_SUCCESS && d->transfered_length != 8) {
		fc_why(f, "%s: transfered_length %llu, want 8", what,
		       (unsigned long long)d->transfered_length);
		return 0;
	}
	return 1;
}

/* the service sets (set) or reads the target word at off; *tgt is the
 * target's triplet at off, *value the word the service's CPU reads */
static int target(struct fctx *f, struct fconn *c, int set, uint64_t off,
		  uint64_t v, DAT_RMR_TRIPLET *tgt, uint64_t *value)
{
	struct fs_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.op = set ? FS_OP_ASET : FS_OP_AGET;
	cmd.addr = off;
	cmd.value = v;
	if (!fc_cmd(f, c, &cmd))
		return 0;
	if (cmd.post_rc != DAT_SUCCESS) {
		fc_why(f, "the service's atomic target: %s: %.*s",
		       dt_rc(cmd.post_rc), (int)sizeof(cmd.text), cmd.text);
		return 0;
	}
	if (!cmd.atomic) {
		fc_why(f, "the server's atomic target has no REMOTE_ATOMIC (the server's device has no atomics?)");
		return 0;
	}
	if (tgt) {
		tgt->rmr_context = cmd.trctx;
		tgt->pad = 0;
		tgt->target_address = cmd.taddr + off;
		tgt->segment_length = 8;
	}
	*value = cmd.tvalue;
	return 1;
}

/* the original value in c.mem, and the target word in the server */
static int values(struct fctx *f, struct fconn *c, uint64_t off,
		  uint64_t orig, uint64_t now, const char *what)
{
	uint64_t got, v;

	memcpy(&got, c->mem.buf + LOCAL_OFF, sizeof(got));
	if (got != orig) {
		fc_why(f, "%s: original value 0x%llx, want 0x%llx", what,
		       (unsigned long long)got, (unsigned long long)orig);
		return 0;
	}
	if (!target(f, c, 0, off, 0, NULL, &v))
		return 0;
	if (v != now) {
		fc_why(f, "%s: the server's word is 0x%llx, want 0x%llx", what,
		       (unsigned long long)v, (unsigned long long)now);
		return 0;
	}
	return 1;
}

static DAT_LMR_TRIPLET local8(struct fconn *c)
{
	memset(c->mem.buf + LOCAL_OFF, SENTINEL, 16);
	return dt_iov(&c->mem, LOCAL_OFF, 8);
}

static DAT_RETURN fadd(struct fconn *c, uint64_t add, uint64_t cookie,
		       const DAT_RMR_TRIPLET *r)
{
	DAT_LMR_TRIPLET l = local8(c);

	return dat_ib_post_fetch_and_add(c->ep, add, &l, dt_cookie(cookie), r,
					 DAT_COMPLETION_DEFAULT_FLAG);
}

static DAT_RETURN cswap(struct fconn *c, uint64_t cmp, uint64_t swap,
			uint64_t cookie, const DAT_RMR_TRIPLET *r)
{
	DAT_LMR_TRIPLET l = local8(c);

	return dat_ib_post_cmp_and_swap(c->ep, cmp, swap, &l, dt_cookie(cookie),
					r, DAT_COMPLETION_DEFAULT_FLAG);
}

/* ---- the cases ------------------------------------------------------------- */

static int at_attributes(struct fctx *f)
{
	const char *a = fc_prov_attr(f, DAT_IB_ATTR_FETCH_AND_ADD);
	const char *b = fc_prov_attr(f, DAT_IB_ATTR_CMP_AND_SWAP);
	DAT_RMR_TRIPLET rt = { 0, 0, 0, 8 };
	DAT_LMR_PARAM p;
	struct dt_mem m;
	struct fconn c;
	int r = DT_FAIL;

	memset(&m, 0, sizeof(m));
	memset(&c, 0, sizeof(c));
	CT("provider attributes DAT_IB_FETCH_AND_ADD and DAT_IB_CMP_AND_SWAP are there",
	   a && b);
	CT("the two attributes are TRUE or FALSE, and agree",
	   (!strcmp(a, "TRUE") || !strcmp(a, "FALSE")) && !strcmp(a, b));
	if (!strcmp(a, "FALSE")) {
		/* the calls must say so too (on any EP: the device is asked
		 * before the EP's state) */
		if (!fc_conn_open(f, &c, 0))
			goto out;
		CKX("dat_ib_post_fetch_and_add without atomics",
		    fadd(&c, 1, 1, &rt),
		    DT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
		CKX("dat_ib_post_cmp_and_swap without atomics",
		    cswap(&c, 0, 1, 2, &rt),
		    DT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
		fc_why(f, "provider attributes %s/%s FALSE (no atomics); both calls DAT_MODEL_NOT_SUPPORTED",
		       DAT_IB_ATTR_FETCH_AND_ADD, DAT_IB_ATTR_CMP_AND_SWAP);
		r = DT_UNSUPP;
		goto out;
	}
	/* an atomic target registers, and keeps its privilege */
	CK("dat_lmr_create(DAT_IB_MEM_PRIV_REMOTE_ATOMIC)",
	   dt_mem_alloc(f->ia, f->pz, &m, 4096,
			DT_PRIV_ALL | DAT_IB_MEM_PRIV_REMOTE_ATOMIC),
	   DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	CK("dat_lmr_query", dat_lmr_query(m.lmr, DAT_LMR_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("lmr_param.mem_priv has DAT_IB_MEM_PRIV_REMOTE_ATOMIC",
	   p.mem_priv == (DT_PRIV_ALL | DAT_IB_MEM_PRIV_REMOTE_ATOMIC));
	CT("an atomic target has an rmr_context", m.rctx != 0);
	r = DT_PASS;
out:
	dt_mem_free(&m);
	fc_conn_close(f, &c);
	return r;
}

static int at_fetch_add(struct fctx *f)
{
	const uint64_t v0 = 0x1122334455667700ull;
	DAT_RMR_TRIPLET rt;
	struct fconn c;
	uint64_t v;
	int r = DT_FAIL;

	if (no_atomic(f))
		return DT_UNSUPP;
	if (!fc_cmd_connect(f, &c) || !target(f, &c, 1, 0, v0, &rt, &v))
		goto out;
	CT("the service set its word", v == v0);
	CK("dat_ib_post_fetch_and_add(+0x10)", fadd(&c, 0x10, 0xFA1, &rt),
	   DAT_SUCCESS);
	if (!at_done(f, "fetch_and_add", &c, 0xFA1, DAT_DTO_SUCCESS) ||
	    !values(f, &c, 0, v0, v0 + 0x10, "fetch_and_add(+0x10)"))
		goto out;
	CT("only 8 bytes of the local segment written",
	   c.mem.buf[LOCAL_OFF + 8] == SENTINEL);
	/* adding 2^64 - 1 subtracts 1 */
	CK("dat_ib_post_fetch_and_add(-1)", fadd(&c, ~0ull, 0xFA2, &rt),
	   DAT_SUCCESS);
	if (!at_done(f, "fetch_and_add", &c, 0xFA2, DAT_DTO_SUCCESS) ||
	    !values(f, &c, 0, v0 + 0x10, v0 + 0xF, "fetch_and_add(-1)"))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int at_cmp_swap(struct fctx *f)
{
	const uint64_t a = 0xA0A0A0A0A0A0A0A0ull, b = 0x0B0B0B0B0B0B0B0Bull,
		       x = 0x5555555555555555ull;
	DAT_RMR_TRIPLET rt;
	struct fconn c;
	uint64_t v;
	int r = DT_FAIL;

	if (no_atomic(f))
		return DT_UNSUPP;
	if (!fc_cmd_connect(f, &c) || !target(f, &c, 1, 8, a, &rt, &v))
		goto out;
	CK("dat_ib_post_cmp_and_swap (it matches)", cswap(&c, a, b, 0xC51, &rt),
	   DAT_SUCCESS);
	if (!at_done(f, "cmp_and_swap hit", &c, 0xC51, DAT_DTO_SUCCESS) ||
	    !values(f, &c, 8, a, b, "cmp_and_swap hit: swapped"))
		goto out;
	CK("dat_ib_post_cmp_and_swap (it does not match)",
	   cswap(&c, a, x, 0xC52, &rt), DAT_SUCCESS);
	if (!at_done(f, "cmp_and_swap miss", &c, 0xC52, DAT_DTO_SUCCESS) ||
	    !values(f, &c, 8, b, b, "cmp_and_swap miss: unchanged"))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static int at_errors(struct fctx *f)
{
	const uint64_t v0 = 77;
	DAT_RMR_TRIPLET rt, bad;
	DAT_LMR_TRIPLET l;
	struct fconn c, u;
	DAT_EVENT ev;
	uint64_t v;
	int r = DT_FAIL;

	memset(&u, 0, sizeof(u));
	if (no_atomic(f))
		return DT_UNSUPP;
	if (!fc_cmd_connect(f, &c) || !target(f, &c, 1, 16, v0, &rt, &v))
		goto out;
	bad = rt;
	bad.target_address += 4;
	CKX("fetch_and_add to an address not 8-byte aligned",
	    fadd(&c, 1, 0xE1, &bad),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	CKX("cmp_and_swap to an address not 8-byte aligned",
	    cswap(&c, v0, 1, 0xE2, &bad),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	CKX("fetch_and_add(remote_iov NULL)", fadd(&c, 1, 0xE3, NULL),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	CKX("fetch_and_add(local_iov NULL)",
	    dat_ib_post_fetch_and_add(c.ep, 1, NULL, dt_cookie(0xE4), &rt,
				      DAT_COMPLETION_DEFAULT_FLAG),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	CKX("cmp_and_swap(local_iov NULL)",
	    dat_ib_post_cmp_and_swap(c.ep, v0, 1, NULL, dt_cookie(0xE5), &rt,
				     DAT_COMPLETION_DEFAULT_FLAG),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	l = dt_iov(&c.mem, LOCAL_OFF, 4);
	CKX("fetch_and_add into a local segment of 4 bytes",
	    dat_ib_post_fetch_and_add(c.ep, 1, &l, dt_cookie(0xE6), &rt,
				      DAT_COMPLETION_DEFAULT_FLAG),
	    DT_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE));
	l = dt_iov(&c.mem, c.mem.len - 4, 8);
	CKX("fetch_and_add into a local segment past its LMR's end",
	    dat_ib_post_fetch_and_add(c.ep, 1, &l, dt_cookie(0xE7), &rt,
				      DAT_COMPLETION_DEFAULT_FLAG),
	    DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	l = dt_iov(&c.mem, LOCAL_OFF, 8);
	l.lmr_context ^= 0x5a5a0000;
	CKX("cmp_and_swap into an lmr_context that is no LMR",
	    dat_ib_post_cmp_and_swap(c.ep, v0, 1, &l, dt_cookie(0xE8), &rt,
				     DAT_COMPLETION_DEFAULT_FLAG),
	    DT_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE));
	CT("nothing was posted: no completion",
	   DAT_GET_TYPE(dat_evd_dequeue(c.req, &ev)) == DAT_QUEUE_EMPTY);
	CT("the EP is still CONNECTED",
	   fc_state(c.ep) == DAT_EP_STATE_CONNECTED);
	if (!target(f, &c, 0, 16, 0, NULL, &v))
		goto out;
	CT("the target is untouched", v == v0);
	/* an EP that is not connected */
	if (!fc_conn_open(f, &u, 0))
		goto out;
	CK("fetch_and_add on an UNCONNECTED EP", fadd(&u, 1, 0xEA, &rt),
	   DT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	/* and a good one still works */
	CK("dat_ib_post_fetch_and_add", fadd(&c, 5, 0xE9, &rt), DAT_SUCCESS);
	if (!at_done(f, "fetch_and_add after the refused ones", &c, 0xE9,
		     DAT_DTO_SUCCESS) ||
	    !values(f, &c, 16, v0, v0 + 5, "fetch_and_add(+5)"))
		goto out;
	r = DT_PASS;
out:
	fc_conn_close(f, &u);
	fc_conn_close(f, &c);
	return r;
}

/* an RDMA read of the 8 bytes at rt through c into LOCAL_OFF + 16 */
static int peek(struct fctx *f, struct fconn *c, const DAT_RMR_TRIPLET *rt,
		uint64_t *v)
{
	DAT_LMR_TRIPLET l = dt_iov(&c->mem, LOCAL_OFF + 16, 8);

	if (!fc_rc(f, "dat_ep_post_rdma_read",
		   dat_ep_post_rdma_read(c->ep, 1, &l, dt_cookie(0x9EE), rt,
					 DAT_COMPLETION_DEFAULT_FLAG),
		   DAT_SUCCESS) ||
	    !fc_dto(f, "RDMA read of the server's buffer", c->req, 0x9EE,
		    DAT_DTO_SUCCESS, 8))
		return 0;
	memcpy(v, c->mem.buf + LOCAL_OFF + 16, sizeof(*v));
	return 1;
}

static int at_no_atomic_priv(struct fctx *f)
{
	DAT_RMR_TRIPLET rt;
	struct fconn c, c2;
	uint64_t before, after;
	int r = DT_FAIL;

	memset(&c2, 0, sizeof(c2));
	if (no_atomic(f))
		return DT_UNSUPP;
	/* the service's RDMA buffer: remote read and write, no atomics */
	rt.rmr_context = f->rbuf_rctx;
	rt.pad = 0;
	rt.target_address = f->rbuf_addr + 40960;
	rt.segment_length = 8;
	if (!fc_conn_open(f, &c, 0) || !fc_connect(f, &c, NULL, 0) ||
	    !peek(f, &c, &rt, &before))
		goto out;
	CK("fetch_and_add to memory without REMOTE_ATOMIC",
	   fadd(&c, 1, 0xAA1, &rt), DAT_SUCCESS);
	if (!at_done(f, "fetch_and_add without REMOTE_ATOMIC", &c, 0xAA1,
		     DAT_DTO_ERR_REMOTE_ACCESS) ||
	    !fc_conn_lost(f, &c, "the connection after the refused atomic"))
		goto out;
	if (!fc_conn_open(f, &c2, 0) || !fc_connect(f, &c2, NULL, 0) ||
	    !peek(f, &c2, &rt, &after))
		goto out;
	CT("the server's memory is unchanged", after == before);
	r = DT_PASS;
out:
	fc_conn_close(f, &c2);
	fc_conn_close(f, &c);
	return r;
}

static int at_wrong_handle(struct fctx *f)
{
	DAT_RMR_TRIPLET rt = { 0, 0, 0, 8 };
	DAT_LMR_TRIPLET l;
	struct fconn c;
	int r = DT_FAIL;
	const DAT_RETURN bad_ep = DT_ERR(DAT_INVALID_HANDLE,
					 DAT_INVALID_HANDLE_EP);

	if (!fc_conn_open(f, &c, 0))
		goto out;
	l = dt_iov(&c.mem, LOCAL_OFF, 8);
	CKX("dat_ib_post_fetch_and_add(an LMR handle as the EP)",
	    dat_ib_post_fetch_and_add((DAT_EP_HANDLE)c.mem.lmr, 1, &l,
				      dt_cookie(1), &rt,
				      DAT_COMPLETION_DEFAULT_FLAG), bad_ep);
	CKX("dat_ib_post_cmp_and_swap(a PZ handle as the EP)",
	    dat_ib_post_cmp_and_swap((DAT_EP_HANDLE)f->pz, 0, 1, &l,
				     dt_cookie(2), &rt,
				     DAT_COMPLETION_DEFAULT_FLAG), bad_ep);
	CKX("dat_ib_post_fetch_and_add(an EVD handle as the EP)",
	    dat_ib_post_fetch_and_add((DAT_EP_HANDLE)c.req, 1, &l,
				      dt_cookie(3), &rt,
				      DAT_COMPLETION_DEFAULT_FLAG), bad_ep);
	CK("dat_ib_post_cmp_and_swap(NULL)",
	   dat_ib_post_cmp_and_swap(DAT_HANDLE_NULL, 0, 1, &l, dt_cookie(4),
				    &rt, DAT_COMPLETION_DEFAULT_FLAG),
	   DT_ERR(DAT_INVALID_HANDLE, 0));
	r = DT_PASS;
out:
	fc_conn_close(f, &c);
	return r;
}

static const struct fcase atomic[] = {
	{ "at_attributes", "DAT_IB_FETCH_AND_ADD/CMP_AND_SWAP TRUE; an atomic target registers",
	  at_attributes },
	{ "at_fetch_add", "fetch_and_add: the original value back, the sum in the server",
	  at_fetch_add },
	{ "at_cmp_swap", "cmp_and_swap: a hit swaps, a miss does not",
	  at_cmp_swap },
	{ "at_errors", "misaligned, short, NULL, unconnected: refused before posting",
	  at_errors },
	{ "at_no_atomic_priv", "a target without REMOTE_ATOMIC: DAT_DTO_ERR_REMOTE_ACCESS",
	  at_no_atomic_priv },
	{ "at_wrong_handle", "a handle that is no EP: DAT_INVALID_HANDLE",
	  at_wrong_handle },
};
FGROUP(fgroup_atomic, "atomic", 1, atomic);
