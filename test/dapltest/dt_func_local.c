/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_func_local.c - functional cases that need no peer: hwconn (IA open
 * and close), pz, mem (LMRs), endpoint, cqmgt (EVDs and CNOs) and
 * queryinfo (queries, and one handle type passed where another is
 * expected: DAT_INVALID_HANDLE, never a crash).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dt_func.h"

static DAT_RETURN ia_open(struct fctx *f, DAT_IA_HANDLE *ia)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;

	return dat_ia_open((const DAT_NAME_PTR)f->args->ia_name, 8, &async,
			   ia);
}

/* ---- hwconn -------------------------------------------------------------- */

static int hw_open_close(struct fctx *f)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR attr;
	int r = DT_FAIL;

	CK("dat_ia_open", ia_open(f, &ia), DAT_SUCCESS);
	CK("dat_ia_query", dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, &attr,
					0, NULL), DAT_SUCCESS);
	CT("the IA has an async EVD", async != DAT_HANDLE_NULL);
	CK("dat_ia_close(GRACEFUL)", dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
	   DAT_SUCCESS);
	ia = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (ia)
		dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	return r;
}

static int hw_bad_name(struct fctx *f)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	rc = dat_ia_open((const DAT_NAME_PTR)"dapltest-no-such-ia", 8, &async,
			 &ia);
	if (rc == DAT_SUCCESS)
		dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	return fc_rc(f, "dat_ia_open(unknown name)", rc,
		     DAT_PROVIDER_NOT_FOUND) ? DT_PASS : DT_FAIL;
}

/*
 * dat_ia_open(3DAT) names DAT_INVALID_PARAMETER; the reference libdat
 * answers DAT_INVALID_HANDLE with subtype DAT_INVALID_HANDLE_IA, and ours
 * keeps that for binary compatibility.  Either, and no crash.
 */
static int hw_null_ia_ptr(struct fctx *f)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	rc = dat_ia_open((const DAT_NAME_PTR)f->args->ia_name, 8, &async,
			 NULL);
	if (DAT_GET_TYPE(rc) == DAT_INVALID_PARAMETER ||
	    rc == (DAT_RETURN)(DAT_CLASS_ERROR | DAT_INVALID_HANDLE |
				 DAT_INVALID_HANDLE_IA))
		return DT_PASS;
	fc_why(f, "dat_ia_open(ia_handle NULL): got %s, want DAT_INVALID_PARAMETER (or the reference's DAT_INVALID_HANDLE_IA)",
	       dt_rc(rc));
	return DT_FAIL;
}

static int hw_close_twice(struct fctx *f)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	int r = DT_FAIL;

	/* f->ia stays open: the provider stays loaded, so the stale handle
	 * points at a (cleared) object, not at unmapped memory */
	CK("dat_ia_open", ia_open(f, &ia), DAT_SUCCESS);
	CK("dat_ia_close", dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
	   DAT_SUCCESS);
	CK("dat_ia_close(the closed IA)",
	   dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	return r;
}

static int hw_close_busy(struct fctx *f)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz;
	int r = DT_FAIL;

	CK("dat_ia_open", ia_open(f, &ia), DAT_SUCCESS);
	CK("dat_pz_create", dat_pz_create(ia, &pz), DAT_SUCCESS);
	CK("dat_ia_close(GRACEFUL) with a PZ",
	   dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE);
	CK("dat_ia_close(ABRUPT) with a PZ",
	   dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	ia = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (ia)
		dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	return r;
}

static int hw_two_opens(struct fctx *f)
{
	DAT_IA_HANDLE a = DAT_HANDLE_NULL, b = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pa = DAT_HANDLE_NULL, pb = DAT_HANDLE_NULL;
	int r = DT_FAIL;

	CK("dat_ia_open(first)", ia_open(f, &a), DAT_SUCCESS);
	CK("dat_ia_open(second)", ia_open(f, &b), DAT_SUCCESS);
	CT("two opens give two IA handles", a != b);
	CK("dat_pz_create(first IA)", dat_pz_create(a, &pa), DAT_SUCCESS);
	CK("dat_pz_create(second IA)", dat_pz_create(b, &pb), DAT_SUCCESS);
	CK("dat_pz_free", dat_pz_free(pa), DAT_SUCCESS);
	pa = DAT_HANDLE_NULL;
	CK("dat_ia_close(first)", dat_ia_close(a, DAT_CLOSE_GRACEFUL_FLAG),
	   DAT_SUCCESS);
	a = DAT_HANDLE_NULL;
	CK("dat_pz_free(second IA's, after the first IA closed)",
	   dat_pz_free(pb), DAT_SUCCESS);
	pb = DAT_HANDLE_NULL;
	CK("dat_ia_close(second)", dat_ia_close(b, DAT_CLOSE_GRACEFUL_FLAG),
	   DAT_SUCCESS);
	b = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (a)
		dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG);
	if (b)
		dat_ia_close(b, DAT_CLOSE_ABRUPT_FLAG);
	return r;
}

static int hw_registry(struct fctx *f)
{
	DAT_PROVIDER_INFO info[64], *list[64];
	DAT_COUNT n = 0, i;
	int r = DT_FAIL, found = 0;

	for (i = 0; i < 64; i++)
		list[i] = &info[i];
	CK("dat_registry_list_providers",
	   dat_registry_list_providers(64, &n, list), DAT_SUCCESS);
	for (i = 0; i < n; i++)
		if (!strcmp(info[i].ia_name, f->args->ia_name))
			found = 1;
	CT("the IA's name is in dat_registry_list_providers", found);
	r = DT_PASS;
out:
	return r;
}

static const struct fcase hwconn[] = {
	{ "hwconn_open_close", "dat_ia_open, query, close GRACEFUL",
	  hw_open_close },
	{ "hwconn_bad_name", "an unknown IA name: DAT_PROVIDER_NOT_FOUND",
	  hw_bad_name },
	{ "hwconn_null_ia_ptr", "dat_ia_open without ia_handle: an error, no crash",
	  hw_null_ia_ptr },
	{ "hwconn_close_twice", "closing a closed IA: INVALID_HANDLE",
	  hw_close_twice },
	{ "hwconn_close_busy", "GRACEFUL close with a PZ: INVALID_STATE; ABRUPT closes",
	  hw_close_busy },
	{ "hwconn_two_opens", "two opens of one name are independent",
	  hw_two_opens },
	{ "hwconn_registry", "the IA is listed by dat_registry_list_providers",
	  hw_registry },
};
FGROUP(fgroup_hwconn, "hwconn", 0, hwconn);

/* ---- pz ------------------------------------------------------------------ */

static int pz_create_free(struct fctx *f)
{
	DAT_PZ_HANDLE pz;
	int r = DT_FAIL;

	CK("dat_pz_create", dat_pz_create(f->ia, &pz), DAT_SUCCESS);
	CK("dat_pz_free", dat_pz_free(pz), DAT_SUCCESS);
	r = DT_PASS;
out:
	return r;
}

static int pz_query(struct fctx *f)
{
	DAT_PZ_PARAM p;
	int r = DT_FAIL;

	memset(&p, 0, sizeof(p));
	CK("dat_pz_query", dat_pz_query(f->pz, DAT_PZ_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("pz_param.ia_handle is the IA", p.ia_handle == f->ia);
	r = DT_PASS;
out:
	return r;
}

static int pz_in_use_lmr(struct fctx *f)
{
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	struct dt_mem m = { 0 };
	int r = DT_FAIL;

	CK("dat_pz_create", dat_pz_create(f->ia, &pz), DAT_SUCCESS);
	CK("dat_lmr_create", dt_mem_alloc(f->ia, pz, &m, 4096, DT_PRIV_ALL),
	   DAT_SUCCESS);
	CK("dat_pz_free(with an LMR)", dat_pz_free(pz), DAT_INVALID_STATE);
	dt_mem_free(&m);
	CK("dat_pz_free(after dat_lmr_free)", dat_pz_free(pz), DAT_SUCCESS);
	pz = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (m.lmr)
		dt_mem_free(&m);
	if (pz)
		dat_pz_free(pz);
	return r;
}

static int pz_in_use_ep(struct fctx *f)
{
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	int r = DT_FAIL;

	CK("dat_pz_create", dat_pz_create(f->ia, &pz), DAT_SUCCESS);
	CK("dat_evd_create", dat_evd_create(f->ia, 8, DAT_HANDLE_NULL,
					    DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_ep_create", dat_ep_create(f->ia, pz, evd, evd,
					  DAT_HANDLE_NULL, NULL, &ep),
	   DAT_SUCCESS);
	CK("dat_pz_free(with an EP)", dat_pz_free(pz), DAT_INVALID_STATE);
	CK("dat_ep_free", dat_ep_free(ep), DAT_SUCCESS);
	ep = DAT_HANDLE_NULL;
	CK("dat_pz_free(after dat_ep_free)", dat_pz_free(pz), DAT_SUCCESS);
	pz = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (ep)
		dat_ep_free(ep);
	if (evd)
		dat_evd_free(evd);
	if (pz)
		dat_pz_free(pz);
	return r;
}

static int pz_free_twice(struct fctx *f)
{
	DAT_PZ_HANDLE pz;
	int r = DT_FAIL;

	CK("dat_pz_create", dat_pz_create(f->ia, &pz), DAT_SUCCESS);
	CK("dat_pz_free", dat_pz_free(pz), DAT_SUCCESS);
	CK("dat_pz_free(freed PZ)", dat_pz_free(pz), DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	return r;
}

static int pz_null_ptr(struct fctx *f)
{
	return fc_rc(f, "dat_pz_create(pz_handle NULL)",
		     dat_pz_create(f->ia, NULL), DAT_INVALID_PARAMETER) ?
	       DT_PASS : DT_FAIL;
}

static const struct fcase pz[] = {
	{ "pz_create_free", "dat_pz_create and dat_pz_free", pz_create_free },
	{ "pz_query", "dat_pz_query names the IA", pz_query },
	{ "pz_in_use_lmr", "a PZ with an LMR: INVALID_STATE", pz_in_use_lmr },
	{ "pz_in_use_ep", "a PZ with an EP: INVALID_STATE", pz_in_use_ep },
	{ "pz_free_twice", "freeing a freed PZ: INVALID_HANDLE",
	  pz_free_twice },
	{ "pz_null_ptr", "dat_pz_create without pz_handle: INVALID_PARAMETER",
	  pz_null_ptr },
};
FGROUP(fgroup_pz, "pz", 0, pz);

/* ---- mem ----------------------------------------------------------------- */

static int mem_create_query(struct fctx *f)
{
	struct dt_mem m = { 0 };
	DAT_LMR_PARAM p;
	int r = DT_FAIL;

	CK("dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &m, 8192, DT_PRIV_ALL),
	   DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	CK("dat_lmr_query", dat_lmr_query(m.lmr, DAT_LMR_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("lmr_param.ia_handle is the IA", p.ia_handle == f->ia);
	CT("lmr_param.pz_handle is the PZ", p.pz_handle == f->pz);
	CT("lmr_param.length is 8192", p.length == 8192);
	CT("lmr_param.lmr_context is the one returned",
	   p.lmr_context == m.lctx);
	CT("lmr_param.rmr_context is the one returned",
	   p.rmr_context == m.rctx);
	CT("the registered region covers the buffer",
	   p.registered_address <= (uintptr_t)m.buf &&
	   p.registered_address + p.registered_size >= (uintptr_t)m.buf + 8192);
	r = DT_PASS;
out:
	dt_mem_free(&m);
	return r;
}

static int mem_zero_length(struct fctx *f)
{
	struct dt_mem m = { 0 };
	DAT_RETURN rc = dt_mem_alloc(f->ia, f->pz, &m, 0, DT_PRIV_ALL);

	if (rc == DAT_SUCCESS)
		dt_mem_free(&m);
	return fc_rc(f, "dat_lmr_create(length 0)", rc,
		     DAT_INVALID_PARAMETER) ? DT_PASS : DT_FAIL;
}

static int mem_bad_pz(struct fctx *f)
{
	DAT_PZ_HANDLE pz;
	struct dt_mem m = { 0 };
	DAT_RETURN rc;
	int r = DT_FAIL;

	CK("dat_pz_create", dat_pz_create(f->ia, &pz), DAT_SUCCESS);
	CK("dat_pz_free", dat_pz_free(pz), DAT_SUCCESS);
	rc = dt_mem_alloc(f->ia, pz, &m, 4096, DT_PRIV_ALL);
	if (rc == DAT_SUCCESS)
		dt_mem_free(&m);
	CK("dat_lmr_create(freed PZ)", rc, DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	return r;
}

static int mem_free_twice(struct fctx *f)
{
	struct dt_mem m = { 0 };
	DAT_LMR_HANDLE lmr;
	int r = DT_FAIL;

	CK("dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &m, 4096, DT_PRIV_ALL),
	   DAT_SUCCESS);
	lmr = m.lmr;
	dt_mem_free(&m);
	CK("dat_lmr_free(freed LMR)", dat_lmr_free(lmr), DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	return r;
}

static int mem_shared_lmr(struct fctx *f)
{
	struct dt_mem m = { 0 };
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE l2 = DAT_HANDLE_NULL;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN len;
	DAT_VADDR addr;
	int r = DT_FAIL;

	CK("dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &m, 8192, DT_PRIV_ALL),
	   DAT_SUCCESS);
	rd.for_lmr_handle = m.lmr;
	CK("dat_lmr_create(DAT_MEM_TYPE_LMR of it)",
	   dat_lmr_create(f->ia, DAT_MEM_TYPE_LMR, rd, 8192, f->pz,
			  DT_PRIV_ALL, &l2, &lc, &rctx, &len, &addr),
	   DAT_SUCCESS);
	CT("the new LMR covers the same memory",
	   addr <= (uintptr_t)m.buf && addr + len >= (uintptr_t)m.buf + 8192);
	CK("dat_lmr_free(the new LMR)", dat_lmr_free(l2), DAT_SUCCESS);
	l2 = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (l2)
		dat_lmr_free(l2);
	dt_mem_free(&m);
	return r;
}

static int mem_bad_context(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	struct dt_mem m = { 0 };
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	int r = DT_FAIL;

	CK("dat_evd_create", dat_evd_create(f->ia, 8, DAT_HANDLE_NULL,
					    DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_ep_create", dat_ep_create(f->ia, f->pz, evd, evd,
					  DAT_HANDLE_NULL, NULL, &ep),
	   DAT_SUCCESS);
	CK("dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &m, 4096, DT_PRIV_ALL),
	   DAT_SUCCESS);
	iov = dt_iov(&m, 0, 4096);
	iov.lmr_context ^= 0x5a5a5a00;
	CK("dat_ep_post_recv(an lmr_context nobody has)",
	   dat_ep_post_recv(ep, 1, &iov, dt_cookie(1),
			    DAT_COMPLETION_DEFAULT_FLAG),
	   DAT_PRIVILEGES_VIOLATION);
	iov = dt_iov(&m, 4000, 4096);
	CK("dat_ep_post_recv(a segment past the LMR's end)",
	   dat_ep_post_recv(ep, 1, &iov, dt_cookie(2),
			    DAT_COMPLETION_DEFAULT_FLAG),
	   DAT_INVALID_PARAMETER);
	CK("nothing was posted", dat_evd_dequeue(evd, &ev), DAT_QUEUE_EMPTY);
	r = DT_PASS;
out:
	if (ep)
		dat_ep_free(ep);
	dt_mem_free(&m);
	if (evd)
		dat_evd_free(evd);
	return r;
}

static int mem_sync(struct fctx *f)
{
	struct dt_mem m = { 0 };
	DAT_LMR_TRIPLET iov;
	int r = DT_FAIL;

	CK("dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &m, 4096, DT_PRIV_ALL),
	   DAT_SUCCESS);
	iov = dt_iov(&m, 0, 4096);
	CK("dat_lmr_sync_rdma_read", dat_lmr_sync_rdma_read(f->ia, &iov, 1),
	   DAT_SUCCESS);
	CK("dat_lmr_sync_rdma_write", dat_lmr_sync_rdma_write(f->ia, &iov, 1),
	   DAT_SUCCESS);
	r = DT_PASS;
out:
	dt_mem_free(&m);
	return r;
}

static int mem_other_pz(struct fctx *f)
{
	DAT_PZ_HANDLE pz2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	struct dt_mem m = { 0 };
	DAT_LMR_TRIPLET iov;
	int r = DT_FAIL;

	CK("dat_pz_create", dat_pz_create(f->ia, &pz2), DAT_SUCCESS);
	CK("dat_evd_create", dat_evd_create(f->ia, 8, DAT_HANDLE_NULL,
					    DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_ep_create", dat_ep_create(f->ia, f->pz, evd, evd,
					  DAT_HANDLE_NULL, NULL, &ep),
	   DAT_SUCCESS);
	CK("dat_lmr_create(another PZ)",
	   dt_mem_alloc(f->ia, pz2, &m, 4096, DT_PRIV_ALL), DAT_SUCCESS);
	iov = dt_iov(&m, 0, 4096);
	CK("dat_ep_post_recv(an LMR of another PZ)",
	   dat_ep_post_recv(ep, 1, &iov, dt_cookie(1),
			    DAT_COMPLETION_DEFAULT_FLAG),
	   DAT_PROTECTION_VIOLATION);
	r = DT_PASS;
out:
	if (ep)
		dat_ep_free(ep);
	dt_mem_free(&m);
	if (evd)
		dat_evd_free(evd);
	if (pz2)
		dat_pz_free(pz2);
	return r;
}

static const struct fcase mem[] = {
	{ "mem_lmr_create_query", "dat_lmr_create and dat_lmr_query",
	  mem_create_query },
	{ "mem_lmr_zero_length", "an LMR of 0 bytes: INVALID_PARAMETER",
	  mem_zero_length },
	{ "mem_lmr_freed_pz", "an LMR in a freed PZ: INVALID_HANDLE",
	  mem_bad_pz },
	{ "mem_lmr_free_twice", "freeing a freed LMR: INVALID_HANDLE",
	  mem_free_twice },
	{ "mem_lmr_shared", "DAT_MEM_TYPE_LMR: a second LMR of one region",
	  mem_shared_lmr },
	{ "mem_bad_lmr_context", "posts with a bad lmr_context or segment",
	  mem_bad_context },
	{ "mem_other_pz", "a post with an LMR of another PZ: PROTECTION_VIOLATION",
	  mem_other_pz },
	{ "mem_lmr_sync", "dat_lmr_sync_rdma_read/write", mem_sync },
};
FGROUP(fgroup_mem, "mem", 0, mem);

/* ---- endpoint ------------------------------------------------------------ */

struct epset {
	DAT_EVD_HANDLE dto, conn, cr;
	DAT_EP_HANDLE ep;
};

static int epset_open(struct fctx *f, struct epset *s, int with_ep)
{
	memset(s, 0, sizeof(*s));
	if (!fc_rc(f, "dat_evd_create(DTO)",
		   dat_evd_create(f->ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				  &s->dto), DAT_SUCCESS) ||
	    !fc_rc(f, "dat_evd_create(CONNECTION)",
		   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL,
				  DAT_EVD_CONNECTION_FLAG, &s->conn),
		   DAT_SUCCESS) ||
	    !fc_rc(f, "dat_evd_create(CR)",
		   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
				  &s->cr), DAT_SUCCESS))
		return 0;
	if (with_ep &&
	    !fc_rc(f, "dat_ep_create",
		   dat_ep_create(f->ia, f->pz, s->dto, s->dto, s->conn, NULL,
				 &s->ep), DAT_SUCCESS)) {
		s->ep = DAT_HANDLE_NULL;
		return 0;
	}
	return 1;
}

static void epset_close(struct epset *s)
{
	if (s->ep)
		dat_ep_free(s->ep);
	if (s->cr)
		dat_evd_free(s->cr);
	if (s->conn)
		dat_evd_free(s->conn);
	if (s->dto)
		dat_evd_free(s->dto);
}

static int ep_create_free(struct fctx *f)
{
	struct epset s;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 1))
		goto out;
	CT("a new EP is UNCONNECTED",
	   fc_state(s.ep) == DAT_EP_STATE_UNCONNECTED);
	CK("dat_ep_free", dat_ep_free(s.ep), DAT_SUCCESS);
	s.ep = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	epset_close(&s);
	return r;
}

static int ep_wrong_evd(struct fctx *f)
{
	struct epset s;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_RETURN rc;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 0))
		goto out;
	rc = dat_ep_create(f->ia, f->pz, s.cr, s.dto, s.conn, NULL, &ep);
	if (rc == DAT_SUCCESS)
		dat_ep_free(ep);
	CK("dat_ep_create(a CR EVD as recv_evd)", rc, DAT_INVALID_HANDLE);
	rc = dat_ep_create(f->ia, f->pz, s.dto, s.dto, s.dto, NULL, &ep);
	if (rc == DAT_SUCCESS)
		dat_ep_free(ep);
	CK("dat_ep_create(a DTO EVD as connect_evd)", rc, DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	epset_close(&s);
	return r;
}

static int ep_too_deep(struct fctx *f)
{
	struct epset s;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 0))
		goto out;
	dt_ep_attr(&f->attr, &a, 4, 4, 1);
	a.max_recv_dtos = f->attr.max_dto_per_ep + 1;
	rc = dat_ep_create(f->ia, f->pz, s.dto, s.dto, s.conn, &a, &ep);
	if (rc == DAT_SUCCESS)
		dat_ep_free(ep);
	CK("dat_ep_create(max_recv_dtos over max_dto_per_ep)", rc,
	   DAT_INVALID_PARAMETER);
	r = DT_PASS;
out:
	epset_close(&s);
	return r;
}

static int ep_free_twice(struct fctx *f)
{
	struct epset s;
	DAT_EP_HANDLE ep;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 1))
		goto out;
	ep = s.ep;
	s.ep = DAT_HANDLE_NULL;
	CK("dat_ep_free", dat_ep_free(ep), DAT_SUCCESS);
	CK("dat_ep_free(freed EP)", dat_ep_free(ep), DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	epset_close(&s);
	return r;
}

static int ep_query_modify(struct fctx *f)
{
	struct epset s;
	DAT_EP_PARAM p;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 1))
		goto out;
	memset(&p, 0, sizeof(p));
	CK("dat_ep_query", dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("ep_param.ia_handle", p.ia_handle == f->ia);
	CT("ep_param.pz_handle", p.pz_handle == f->pz);
	CT("ep_param.recv_evd_handle", p.recv_evd_handle == s.dto);
	CT("ep_param.connect_evd_handle", p.connect_evd_handle == s.conn);
	CT("ep_param.ep_state UNCONNECTED",
	   p.ep_state == DAT_EP_STATE_UNCONNECTED);
	CT("ep_attr.service_type RC",
	   p.ep_attr.service_type == DAT_SERVICE_TYPE_RC);
	p.ep_attr.max_recv_dtos = 8;
	CK("dat_ep_modify(max_recv_dtos 8)",
	   dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p),
	   DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	CK("dat_ep_query", dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("max_recv_dtos is at least 8 after the modify",
	   p.ep_attr.max_recv_dtos >= 8);
	r = DT_PASS;
out:
	epset_close(&s);
	return r;
}

static int ep_recv_unconnected(struct fctx *f)
{
	struct epset s;
	struct dt_mem m = { 0 };
	DAT_LMR_TRIPLET iov;
	DAT_EP_STATE st;
	DAT_BOOLEAN ri = DAT_TRUE, qi;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 1))
		goto out;
	CK("dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &m, 256, DT_PRIV_ALL),
	   DAT_SUCCESS);
	iov = dt_iov(&m, 0, 256);
	CK("dat_ep_post_recv(UNCONNECTED)",
	   dat_ep_post_recv(s.ep, 1, &iov, dt_cookie(0x77),
			    DAT_COMPLETION_DEFAULT_FLAG), DAT_SUCCESS);
	CK("dat_ep_get_status", dat_ep_get_status(s.ep, &st, &ri, &qi),
	   DAT_SUCCESS);
	CT("a posted receive: recv_idle is FALSE", ri == DAT_FALSE);
	CK("dat_ep_free(with a posted receive)", dat_ep_free(s.ep),
	   DAT_SUCCESS);
	s.ep = DAT_HANDLE_NULL;
	/* dat_ep_free(3DAT): its completions may be on the EVD or not;
	 * if there is one, it is the flushed receive */
	rc = dat_evd_dequeue(s.dto, &ev);
	if (rc == DAT_SUCCESS) {
		d = &ev.event_data.dto_completion_event_data;
		CT("a completion after dat_ep_free is the flushed receive",
		   ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		   d->status == DAT_DTO_ERR_FLUSHED &&
		   d->user_cookie.as_64 == 0x77);
		CK("then the EVD is empty", dat_evd_dequeue(s.dto, &ev),
		   DAT_QUEUE_EMPTY);
	} else {
		CK("dat_evd_dequeue after dat_ep_free", rc, DAT_QUEUE_EMPTY);
	}
	r = DT_PASS;
out:
	epset_close(&s);
	dt_mem_free(&m);
	return r;
}

static int ep_send_unconnected(struct fctx *f)
{
	struct epset s;
	struct dt_mem m = { 0 };
	DAT_LMR_TRIPLET iov;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 1))
		goto out;
	CK("dat_lmr_create", dt_mem_alloc(f->ia, f->pz, &m, 256, DT_PRIV_ALL),
	   DAT_SUCCESS);
	iov = dt_iov(&m, 0, 256);
	CK("dat_ep_post_send(UNCONNECTED)",
	   dat_ep_post_send(s.ep, 1, &iov, dt_cookie(1),
			    DAT_COMPLETION_DEFAULT_FLAG), DAT_INVALID_STATE);
	r = DT_PASS;
out:
	epset_close(&s);
	dt_mem_free(&m);
	return r;
}

static int ep_evd_in_use(struct fctx *f)
{
	struct epset s;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 1))
		goto out;
	CK("dat_evd_free(an EVD an EP uses)", dat_evd_free(s.dto),
	   DAT_INVALID_STATE);
	r = DT_PASS;
out:
	epset_close(&s);
	return r;
}

static int ep_reset_unconnected(struct fctx *f)
{
	struct epset s;
	int r = DT_FAIL;

	if (!epset_open(f, &s, 1))
		goto out;
	CK("dat_ep_reset(UNCONNECTED)", dat_ep_reset(s.ep), DAT_SUCCESS);
	CT("still UNCONNECTED", fc_state(s.ep) == DAT_EP_STATE_UNCONNECTED);
	r = DT_PASS;
out:
	epset_close(&s);
	return r;
}

static const struct fcase endpoint[] = {
	{ "ep_create_free", "dat_ep_create (default attributes) and free",
	  ep_create_free },
	{ "ep_wrong_evd", "EVDs of the wrong kind: INVALID_HANDLE",
	  ep_wrong_evd },
	{ "ep_too_deep", "max_recv_dtos over the IA's limit: INVALID_PARAMETER",
	  ep_too_deep },
	{ "ep_free_twice", "freeing a freed EP: INVALID_HANDLE",
	  ep_free_twice },
	{ "ep_query_modify", "dat_ep_query, dat_ep_modify", ep_query_modify },
	{ "ep_recv_unconnected", "a receive posted before connecting; dat_ep_free with it",
	  ep_recv_unconnected },
	{ "ep_send_unconnected", "a send on an unconnected EP: INVALID_STATE",
	  ep_send_unconnected },
	{ "ep_evd_in_use", "freeing an EVD an EP uses: INVALID_STATE",
	  ep_evd_in_use },
	{ "ep_reset_unconnected", "dat_ep_reset of an unconnected EP",
	  ep_reset_unconnected },
};
FGROUP(fgroup_endpoint, "endpoint", 0, endpoint);

/* ---- cqmgt --------------------------------------------------------------- */

static int cq_create_query(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVD_PARAM p;
	int r = DT_FAIL;

	CK("dat_evd_create(qlen 10)",
	   dat_evd_create(f->ia, 10, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	memset(&p, 0, sizeof(p));
	CK("dat_evd_query", dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("evd_param.ia_handle", p.ia_handle == f->ia);
	CT("evd_param.evd_qlen is at least 10", p.evd_qlen >= 10);
	CT("evd_param.evd_flags DTO", p.evd_flags == DAT_EVD_DTO_FLAG);
	CK("dat_evd_free", dat_evd_free(evd), DAT_SUCCESS);
	evd = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	return r;
}

static int cq_wait_timeout(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	uint64_t t0, dt;
	int r = DT_FAIL;

	CK("dat_evd_create",
	   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	t0 = dt_now_us();
	CK("dat_evd_wait(empty, 200 ms)",
	   dat_evd_wait(evd, 200000, 1, &ev, &nmore), DAT_TIMEOUT_EXPIRED);
	dt = dt_now_us() - t0;
	CT("dat_evd_wait waited at least 200 ms", dt >= 190000);
	CT("dat_evd_wait returned within 10 s", dt < dt_secs(10));
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	return r;
}

static int cq_dequeue_empty(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVENT ev;
	int r = DT_FAIL;

	CK("dat_evd_create",
	   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_evd_dequeue(empty)", dat_evd_dequeue(evd, &ev),
	   DAT_QUEUE_EMPTY);
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	return r;
}

static int cq_software_event(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVENT ev, got;
	int r = DT_FAIL, cookie;

	CK("dat_evd_create(SOFTWARE)",
	   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
			  &evd), DAT_SUCCESS);
	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer = &cookie;
	CK("dat_evd_post_se", dat_evd_post_se(evd, &ev), DAT_SUCCESS);
	CK("dat_evd_wait", dt_wait(evd, NULL, 0, dt_secs(5), &got),
	   DAT_SUCCESS);
	CT("a DAT_SOFTWARE_EVENT", got.event_number == DAT_SOFTWARE_EVENT);
	CT("its pointer is the posted one",
	   got.event_data.software_event_data.pointer == &cookie);
	CT("its evd_handle is the EVD", got.evd_handle == evd);
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	return r;
}

static int cq_resize(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVD_PARAM p;
	int r = DT_FAIL;

	CK("dat_evd_create(qlen 8)",
	   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_evd_resize(64)", dat_evd_resize(evd, 64), DAT_SUCCESS);
	CK("dat_evd_query", dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p),
	   DAT_SUCCESS);
	CT("evd_qlen is at least 64 after the resize", p.evd_qlen >= 64);
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	return r;
}

static int cq_qlen_zero(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	rc = dat_evd_create(f->ia, 0, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd);
	if (rc == DAT_SUCCESS)
		dat_evd_free(evd);
	return fc_rc(f, "dat_evd_create(qlen 0)", rc, DAT_INVALID_PARAMETER) ?
	       DT_PASS : DT_FAIL;
}

static int cq_unwaitable(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	int r = DT_FAIL;

	CK("dat_evd_create",
	   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_evd_set_unwaitable", dat_evd_set_unwaitable(evd), DAT_SUCCESS);
	CK("dat_evd_wait(unwaitable)",
	   dat_evd_wait(evd, 100000, 1, &ev, &nmore), DAT_INVALID_STATE);
	CK("dat_evd_clear_unwaitable", dat_evd_clear_unwaitable(evd),
	   DAT_SUCCESS);
	CK("dat_evd_wait(waitable again, 50 ms)",
	   dat_evd_wait(evd, 50000, 1, &ev, &nmore), DAT_TIMEOUT_EXPIRED);
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	return r;
}

static int cq_cno(struct fctx *f)
{
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL, fired = DAT_HANDLE_NULL;
	DAT_CNO_PARAM cp;
	DAT_EVENT ev, got;
	int r = DT_FAIL;

	CK("dat_cno_create",
	   dat_cno_create(f->ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno),
	   DAT_SUCCESS);
	CK("dat_cno_query", dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp),
	   DAT_SUCCESS);
	CT("cno_param.ia_handle", cp.ia_handle == f->ia);
	CK("dat_evd_create(with the CNO)",
	   dat_evd_create(f->ia, 8, cno, DAT_EVD_SOFTWARE_FLAG, &evd),
	   DAT_SUCCESS);
	/* dat_cno_wait(3DAT): a timeout is DAT_QUEUE_EMPTY, handle NULL */
	fired = evd;
	CK("dat_cno_wait(nothing yet, 50 ms)",
	   dat_cno_wait(cno, 50000, &fired), DAT_QUEUE_EMPTY);
	CT("dat_cno_wait's timeout sets evd_handle NULL",
	   fired == DAT_HANDLE_NULL);
	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	CK("dat_evd_post_se", dat_evd_post_se(evd, &ev), DAT_SUCCESS);
	CK("dat_cno_wait", dat_cno_wait(cno, dt_secs(5), &fired), DAT_SUCCESS);
	CT("dat_cno_wait names the EVD", fired == evd);
	CK("dat_evd_dequeue", dat_evd_dequeue(evd, &got), DAT_SUCCESS);
	CT("the software event", got.event_number == DAT_SOFTWARE_EVENT);
	CK("dat_cno_free(an EVD uses it)", dat_cno_free(cno),
	   DAT_INVALID_STATE);
	CK("dat_evd_free", dat_evd_free(evd), DAT_SUCCESS);
	evd = DAT_HANDLE_NULL;
	CK("dat_cno_free", dat_cno_free(cno), DAT_SUCCESS);
	cno = DAT_HANDLE_NULL;
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	if (cno)
		dat_cno_free(cno);
	return r;
}

static int cq_free_twice(struct fctx *f)
{
	DAT_EVD_HANDLE evd;
	int r = DT_FAIL;

	CK("dat_evd_create",
	   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_evd_free", dat_evd_free(evd), DAT_SUCCESS);
	CK("dat_evd_free(freed EVD)", dat_evd_free(evd), DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	return r;
}

static int cq_se_queue_full(struct fctx *f)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVD_PARAM p;
	DAT_EVENT ev;
	DAT_RETURN rc = DAT_SUCCESS;
	DAT_COUNT i;
	int r = DT_FAIL;

	CK("dat_evd_create(qlen 4)",
	   dat_evd_create(f->ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
			  &evd), DAT_SUCCESS);
	CK("dat_evd_query", dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p),
	   DAT_SUCCESS);
	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	for (i = 0; i <= p.evd_qlen && rc == DAT_SUCCESS; i++)
		rc = dat_evd_post_se(evd, &ev);
	CK("dat_evd_post_se beyond evd_qlen", rc, DAT_QUEUE_FULL);
	CT("the queue held evd_qlen events", i == p.evd_qlen + 1);
	r = DT_PASS;
out:
	if (evd)
		dat_evd_free(evd);
	return r;
}

static const struct fcase cqmgt[] = {
	{ "cq_create_query", "dat_evd_create, query, free", cq_create_query },
	{ "cq_wait_timeout", "dat_evd_wait on an empty EVD times out in time",
	  cq_wait_timeout },
	{ "cq_dequeue_empty", "dat_evd_dequeue of an empty EVD: QUEUE_EMPTY",
	  cq_dequeue_empty },
	{ "cq_software_event", "dat_evd_post_se, then wait", cq_software_event },
	{ "cq_resize", "dat_evd_resize grows the queue", cq_resize },
	{ "cq_qlen_zero", "an EVD of qlen 0: INVALID_PARAMETER", cq_qlen_zero },
	{ "cq_unwaitable", "waiting on an unwaitable EVD: INVALID_STATE",
	  cq_unwaitable },
	{ "cq_cno", "a CNO fires for its EVD; freeing it in use: INVALID_STATE",
	  cq_cno },
	{ "cq_free_twice", "freeing a freed EVD: INVALID_HANDLE", cq_free_twice },
	{ "cq_se_queue_full", "software events beyond qlen: QUEUE_FULL",
	  cq_se_queue_full },
};
FGROUP(fgroup_cqmgt, "cqmgt", 0, cqmgt);

/* ---- queryinfo ----------------------------------------------------------- */

static int qi_ia_query(struct fctx *f)
{
	const DAT_IA_ATTR *a = &f->attr;
	const DAT_PROVIDER_ATTR *p = &f->pattr;
	int r = DT_FAIL;

	CT("adapter_name is set", a->adapter_name[0] != 0);
	CT("ia_address_ptr is set", a->ia_address_ptr != NULL);
	CT("max_eps > 0", a->max_eps > 0);
	CT("max_dto_per_ep > 0", a->max_dto_per_ep > 0);
	CT("max_evds > 0", a->max_evds > 0);
	CT("max_evd_qlen > 0", a->max_evd_qlen > 0);
	CT("max_iov_segments_per_dto > 0", a->max_iov_segments_per_dto > 0);
	CT("max_lmrs > 0", a->max_lmrs > 0);
	CT("max_pzs > 0", a->max_pzs > 0);
	CT("max_message_size > 0", a->max_message_size > 0);
	CT("max_rdma_size > 0", a->max_rdma_size > 0);
	CT("provider_name is set", p->provider_name[0] != 0);
	CT("dapl_version 1.2", p->dapl_version_major == 1 &&
	   p->dapl_version_minor == 2);
	CT("max_private_data_size > 0", p->max_private_data_size > 0);
	r = DT_PASS;
out:
	return r;
}

/* a set of one object of every type, for the wrong-type cases */
struct objs {
	DAT_EVD_HANDLE evd, cr;
	DAT_EP_HANDLE ep;
	DAT_CNO_HANDLE cno;
	DAT_PSP_HANDLE psp;
	struct dt_mem m;
};

static int objs_open(struct fctx *f, struct objs *o)
{
	DAT_CONN_QUAL q;

	memset(o, 0, sizeof(*o));
	return fc_rc(f, "dat_evd_create",
		     dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				    &o->evd), DAT_SUCCESS) &&
	       fc_rc(f, "dat_evd_create(CR)",
		     dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
				    &o->cr), DAT_SUCCESS) &&
	       fc_rc(f, "dat_ep_create",
		     dat_ep_create(f->ia, f->pz, o->evd, o->evd,
				   DAT_HANDLE_NULL, NULL, &o->ep),
		     DAT_SUCCESS) &&
	       fc_rc(f, "dat_cno_create",
		     dat_cno_create(f->ia, DAT_OS_WAIT_PROXY_AGENT_NULL,
				    &o->cno), DAT_SUCCESS) &&
	       fc_rc(f, "dat_psp_create_any",
		     dat_psp_create_any(f->ia, &q, o->cr,
					DAT_PSP_CONSUMER_FLAG, &o->psp),
		     DAT_SUCCESS) &&
	       fc_rc(f, "dat_lmr_create",
		     dt_mem_alloc(f->ia, f->pz, &o->m, 4096, DT_PRIV_ALL),
		     DAT_SUCCESS);
}

static void objs_close(struct objs *o)
{
	if (o->psp)
		dat_psp_free(o->psp);
	if (o->ep)
		dat_ep_free(o->ep);
	if (o->cno)
		dat_cno_free(o->cno);
	dt_mem_free(&o->m);
	if (o->cr)
		dat_evd_free(o->cr);
	if (o->evd)
		dat_evd_free(o->evd);
}

static int qi_handle_types(struct fctx *f)
{
	struct objs o;
	DAT_HANDLE_TYPE t;
	int r = DT_FAIL;

	if (!objs_open(f, &o))
		goto out;
#define TYPE_IS(h, want) do { \
		CK("dat_get_handle_type(" #h ")", dat_get_handle_type(h, &t), \
		   DAT_SUCCESS); \
		CT("dat_get_handle_type(" #h ") is " #want, t == want); \
	} while (0)
	TYPE_IS(f->ia, DAT_HANDLE_TYPE_IA);
	TYPE_IS(f->pz, DAT_HANDLE_TYPE_PZ);
	TYPE_IS(o.evd, DAT_HANDLE_TYPE_EVD);
	TYPE_IS(o.ep, DAT_HANDLE_TYPE_EP);
	TYPE_IS(o.cno, DAT_HANDLE_TYPE_CNO);
	TYPE_IS(o.psp, DAT_HANDLE_TYPE_PSP);
	TYPE_IS(o.m.lmr, DAT_HANDLE_TYPE_LMR);
#undef TYPE_IS
	r = DT_PASS;
out:
	objs_close(&o);
	return r;
}

/* every query with a handle of another type: INVALID_HANDLE */
static int qi_wrong_types(struct fctx *f)
{
	union {
		DAT_EP_PARAM ep;
		DAT_EVD_PARAM evd;
		DAT_PZ_PARAM pz;
		DAT_LMR_PARAM lmr;
		DAT_CNO_PARAM cno;
		DAT_PSP_PARAM psp;
		DAT_RSP_PARAM rsp;
		DAT_CR_PARAM cr;
		DAT_IA_ATTR ia;
	} p;
	DAT_EVD_HANDLE async;
	struct objs o;
	int r = DT_FAIL;

	if (!objs_open(f, &o))
		goto out;
	CK("dat_evd_query(a PZ)", dat_evd_query(f->pz, DAT_EVD_FIELD_ALL,
						&p.evd), DAT_INVALID_HANDLE);
	CK("dat_ep_query(an EVD)", dat_ep_query(o.evd, DAT_EP_FIELD_ALL,
						&p.ep), DAT_INVALID_HANDLE);
	CK("dat_pz_query(an LMR)", dat_pz_query(o.m.lmr, DAT_PZ_FIELD_ALL,
						&p.pz), DAT_INVALID_HANDLE);
	CK("dat_lmr_query(an EP)", dat_lmr_query(o.ep, DAT_LMR_FIELD_ALL,
						 &p.lmr), DAT_INVALID_HANDLE);
	CK("dat_cno_query(an EVD)", dat_cno_query(o.evd, DAT_CNO_FIELD_ALL,
						  &p.cno), DAT_INVALID_HANDLE);
	CK("dat_psp_query(an EP)", dat_psp_query(o.ep, DAT_PSP_FIELD_ALL,
						 &p.psp), DAT_INVALID_HANDLE);
	CK("dat_rsp_query(a PSP)", dat_rsp_query(o.psp, DAT_RSP_FIELD_ALL,
						 &p.rsp), DAT_INVALID_HANDLE);
	CK("dat_cr_query(an EVD)", dat_cr_query(o.evd, DAT_CR_FIELD_ALL,
						&p.cr), DAT_INVALID_HANDLE);
	CK("dat_ia_query(a PZ)", dat_ia_query(f->pz, &async, DAT_IA_FIELD_ALL,
					      &p.ia, 0, NULL),
	   DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	objs_close(&o);
	return r;
}

/* the frees and posts with a handle of another type */
static int qi_wrong_types_ops(struct fctx *f)
{
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	struct objs o;
	int r = DT_FAIL;

	if (!objs_open(f, &o))
		goto out;
	iov = dt_iov(&o.m, 0, 64);
	CK("dat_ep_post_send(a PZ)",
	   dat_ep_post_send(f->pz, 1, &iov, dt_cookie(1),
			    DAT_COMPLETION_DEFAULT_FLAG), DAT_INVALID_HANDLE);
	CK("dat_ep_post_recv(an LMR)",
	   dat_ep_post_recv(o.m.lmr, 1, &iov, dt_cookie(1),
			    DAT_COMPLETION_DEFAULT_FLAG), DAT_INVALID_HANDLE);
	CK("dat_evd_dequeue(an EP)", dat_evd_dequeue(o.ep, &ev),
	   DAT_INVALID_HANDLE);
	CK("dat_ep_free(an EVD)", dat_ep_free(o.evd), DAT_INVALID_HANDLE);
	CK("dat_evd_free(an EP)", dat_evd_free(o.ep), DAT_INVALID_HANDLE);
	CK("dat_pz_free(a CNO)", dat_pz_free(o.cno), DAT_INVALID_HANDLE);
	CK("dat_lmr_free(a PSP)", dat_lmr_free(o.psp), DAT_INVALID_HANDLE);
	CK("dat_psp_free(an LMR)", dat_psp_free(o.m.lmr), DAT_INVALID_HANDLE);
	CK("dat_cno_free(a PZ)", dat_cno_free(f->pz), DAT_INVALID_HANDLE);
	CK("dat_ia_close(an EP)", dat_ia_close(o.ep, DAT_CLOSE_ABRUPT_FLAG),
	   DAT_INVALID_HANDLE);
	CK("dat_pz_create(a PZ as the IA)", dat_pz_create(f->pz, &o.evd),
	   DAT_INVALID_HANDLE);
	/* every object survived being passed as another type */
	CT("the EP is still an UNCONNECTED EP",
	   fc_state(o.ep) == DAT_EP_STATE_UNCONNECTED);
	r = DT_PASS;
out:
	objs_close(&o);
	return r;
}

static int qi_freed_handle(struct fctx *f)
{
	DAT_EVD_HANDLE evd;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EP_PARAM p;
	int r = DT_FAIL;

	CK("dat_evd_create",
	   dat_evd_create(f->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd),
	   DAT_SUCCESS);
	CK("dat_ep_create", dat_ep_create(f->ia, f->pz, evd, evd,
					  DAT_HANDLE_NULL, NULL, &ep),
	   DAT_SUCCESS);
	CK("dat_ep_free", dat_ep_free(ep), DAT_SUCCESS);
	CK("dat_ep_query(freed EP)", dat_ep_query(ep, DAT_EP_FIELD_ALL, &p),
	   DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	dat_evd_free(evd);
	return r;
}

static int qi_null_handle(struct fctx *f)
{
	DAT_PZ_PARAM p;
	DAT_EVENT ev;
	int r = DT_FAIL;

	CK("dat_pz_query(NULL)", dat_pz_query(DAT_HANDLE_NULL,
					      DAT_PZ_FIELD_ALL, &p),
	   DAT_INVALID_HANDLE);
	CK("dat_evd_dequeue(NULL)", dat_evd_dequeue(DAT_HANDLE_NULL, &ev),
	   DAT_INVALID_HANDLE);
	r = DT_PASS;
out:
	return r;
}

static int qi_consumer_context(struct fctx *f)
{
	DAT_CONTEXT in, out;
	int r = DT_FAIL;

	in.as_64 = 0x1234567890abcdefULL;
	CK("dat_set_consumer_context(PZ)", dat_set_consumer_context(f->pz, in),
	   DAT_SUCCESS);
	out.as_64 = 0;
	CK("dat_get_consumer_context(PZ)",
	   dat_get_consumer_context(f->pz, &out), DAT_SUCCESS);
	CT("the context read back", out.as_64 == in.as_64);
	r = DT_PASS;
out:
	return r;
}

static const struct fcase queryinfo[] = {
	{ "qi_ia_query", "dat_ia_query: the IA and provider attributes",
	  qi_ia_query },
	{ "qi_handle_types", "dat_get_handle_type of every object",
	  qi_handle_types },
	{ "qi_wrong_type_query", "queries given another type's handle: INVALID_HANDLE",
	  qi_wrong_types },
	{ "qi_wrong_type_ops", "posts, frees, creates given another type's handle: INVALID_HANDLE",
	  qi_wrong_types_ops },
	{ "qi_freed_handle", "a query of a freed EP: INVALID_HANDLE",
	  qi_freed_handle },
	{ "qi_null_handle", "calls with DAT_HANDLE_NULL: INVALID_HANDLE",
	  qi_null_handle },
	{ "qi_consumer_context", "dat_set/get_consumer_context",
	  qi_consumer_context },
};
FGROUP(fgroup_queryinfo, "queryinfo", 0, queryinfo);
