/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_limit.c - the limit test (-T L, no server): for each object type,
 * create objects until the cap (-m) or the first refusal, then free them
 * all; -w rounds of that must all reach the same count, and the IA must
 * then close gracefully (which it refuses while anything is left), so
 * everything was freed.  A refusal before the cap must be a resource
 * error (DAT_INSUFFICIENT_RESOURCES), never anything else.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dt.h"

struct lim {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE evd, cr;
	DAT_IA_ATTR attr;
	const char *ia_name;
	unsigned max;
};

typedef DAT_RETURN (*lim_make)(struct lim *l, unsigned i, DAT_HANDLE *h);
typedef DAT_RETURN (*lim_free)(struct lim *l, DAT_HANDLE h);

/* ---- per type: make and free one -------------------------------------- */

static DAT_RETURN mk_ia(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;

	(void)i;
	return dat_ia_open((const DAT_NAME_PTR)l->ia_name, 4, &async,
			   (DAT_IA_HANDLE *)h);
}

static DAT_RETURN fr_ia(struct lim *l, DAT_HANDLE h)
{
	(void)l;
	return dat_ia_close(h, DAT_CLOSE_GRACEFUL_FLAG);
}

static DAT_RETURN mk_pz(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	(void)i;
	return dat_pz_create(l->ia, (DAT_PZ_HANDLE *)h);
}

static DAT_RETURN fr_pz(struct lim *l, DAT_HANDLE h)
{
	(void)l;
	return dat_pz_free(h);
}

static DAT_RETURN mk_cno(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	(void)i;
	return dat_cno_create(l->ia, DAT_OS_WAIT_PROXY_AGENT_NULL,
			      (DAT_CNO_HANDLE *)h);
}

static DAT_RETURN fr_cno(struct lim *l, DAT_HANDLE h)
{
	(void)l;
	return dat_cno_free(h);
}

static DAT_RETURN mk_evd(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	(void)i;
	return dat_evd_create(l->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
			      (DAT_EVD_HANDLE *)h);
}

static DAT_RETURN fr_evd(struct lim *l, DAT_HANDLE h)
{
	(void)l;
	return dat_evd_free(h);
}

static DAT_RETURN mk_ep(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	DAT_EP_ATTR a;

	(void)i;
	dt_ep_attr(&l->attr, &a, 4, 4, 1);
	return dat_ep_create(l->ia, l->pz, l->evd, l->evd, DAT_HANDLE_NULL,
			     &a, (DAT_EP_HANDLE *)h);
}

static DAT_RETURN fr_ep(struct lim *l, DAT_HANDLE h)
{
	(void)l;
	return dat_ep_free(h);
}

/* an RSP holds its own EP: free both */
struct rsp_pair {
	DAT_RSP_HANDLE rsp;
	DAT_EP_HANDLE ep;
};

static DAT_RETURN mk_rsp(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	struct rsp_pair *r = calloc(1, sizeof(*r));
	DAT_RETURN rc;

	if (!r)
		return DAT_INSUFFICIENT_RESOURCES;
	rc = mk_ep(l, i, &r->ep);
	if (rc == DAT_SUCCESS) {
		rc = dat_rsp_create(l->ia, 30000 + i, r->ep, l->cr, &r->rsp);
		if (rc != DAT_SUCCESS)
			dat_ep_free(r->ep);
	}
	if (rc != DAT_SUCCESS) {
		free(r);
		return rc;
	}
	*h = r;
	return DAT_SUCCESS;
}

static DAT_RETURN fr_rsp(struct lim *l, DAT_HANDLE h)
{
	struct rsp_pair *r = h;
	DAT_RETURN rc = dat_rsp_free(r->rsp);

	(void)l;
	if (rc == DAT_SUCCESS)
		rc = dat_ep_free(r->ep);
	free(r);
	return rc;
}

static DAT_RETURN mk_psp(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	DAT_CONN_QUAL q;

	(void)i;
	return dat_psp_create_any(l->ia, &q, l->cr, DAT_PSP_CONSUMER_FLAG,
				  (DAT_PSP_HANDLE *)h);
}

static DAT_RETURN fr_psp(struct lim *l, DAT_HANDLE h)
{
	(void)l;
	return dat_psp_free(h);
}

static DAT_RETURN mk_lmr(struct lim *l, unsigned i, DAT_HANDLE *h)
{
	struct dt_mem *m = calloc(1, sizeof(*m));
	DAT_RETURN rc;

	(void)i;
	if (!m)
		return DAT_INSUFFICIENT_RESOURCES;
	rc = dt_mem_alloc(l->ia, l->pz, m, 4096, DT_PRIV_ALL);
	if (rc != DAT_SUCCESS) {
		free(m);
		return rc;
	}
	*h = m;
	return DAT_SUCCESS;
}

static DAT_RETURN fr_lmr(struct lim *l, DAT_HANDLE h)
{
	struct dt_mem *m = h;
	DAT_RETURN rc = dat_lmr_free(m->lmr);

	(void)l;
	free(m->buf);
	free(m);
	return rc;
}

/* ---- the generic create-to-cap, free-all round --------------------------- */

static int round_of(struct lim *l, const char *name, lim_make mk,
		    lim_free fr, unsigned *count)
{
	DAT_HANDLE *h = calloc(l->max, sizeof(*h));
	DAT_RETURN rc = DAT_SUCCESS;
	unsigned n, i;
	int bad = 0;

	if (!h)
		return -1;
	for (n = 0; n < l->max; n++) {
		rc = mk(l, n, &h[n]);
		if (rc != DAT_SUCCESS)
			break;
	}
	if (n < l->max) {
		dt_log("  %s: refused after %u: %s", name, n, dt_rc(rc));
		if (DAT_GET_TYPE(rc) != DAT_INSUFFICIENT_RESOURCES) {
			dt_err("%s: object %u refused with %s, want DAT_INSUFFICIENT_RESOURCES",
			       name, n, dt_rc(rc));
			bad = 1;
		}
	}
	for (i = n; i-- > 0;) {
		rc = fr(l, h[i]);
		if (rc != DAT_SUCCESS) {
			dt_err("%s: freeing object %u: %s", name, i, dt_rc(rc));
			bad = 1;
		}
	}
	free(h);
	*count = n;
	return bad ? -1 : 0;
}

/* receives posted on one EP until the cap or the queue is full */
static int rpost_round(struct lim *l, unsigned *count)
{
	DAT_EP_HANDLE ep;
	struct dt_mem m;
	DAT_LMR_TRIPLET iov;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	unsigned n;
	int bad = 0;

	*count = 0;
	dt_ep_attr(&l->attr, &a, (int)l->max, 4, 1);
	rc = dat_ep_create(l->ia, l->pz, l->evd, l->evd, DAT_HANDLE_NULL, &a,
			   &ep);
	if (rc != DAT_SUCCESS) {
		dt_err("limit_rpost: dat_ep_create(max_recv_dtos %d): %s",
		       a.max_recv_dtos, dt_rc(rc));
		return -1;
	}
	if (dt_mem_alloc(l->ia, l->pz, &m, 64, DT_PRIV_ALL) != DAT_SUCCESS) {
		dat_ep_free(ep);
		return -1;
	}
	iov = dt_iov(&m, 0, 64);
	for (n = 0; n < l->max; n++) {
		rc = dat_ep_post_recv(ep, 1, &iov, dt_cookie(n),
				      DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS)
			break;
	}
	if (n < l->max) {
		dt_log("  limit_rpost: refused after %u (max_recv_dtos %d): %s",
		       n, a.max_recv_dtos, dt_rc(rc));
		if (DAT_GET_TYPE(rc) != DAT_INSUFFICIENT_RESOURCES) {
			dt_err("limit_rpost: want DAT_INSUFFICIENT_RESOURCES");
			bad = 1;
		}
	}
	rc = dat_ep_free(ep);
	if (rc != DAT_SUCCESS) {
		dt_err("limit_rpost: dat_ep_free: %s", dt_rc(rc));
		bad = 1;
	}
	dt_mem_free(&m);
	/* the flushed receives arrive on the EVD: drain them */
	{
		DAT_EVENT ev;
		unsigned flushed = 0;

		while (dat_evd_dequeue(l->evd, &ev) == DAT_SUCCESS)
			flushed++;
		dt_dbg("limit_rpost: %u flushed receives drained", flushed);
	}
	*count = n;
	return bad ? -1 : 0;
}

/* the largest LMR, doubling from 4 KiB up to 4 KiB << (max - 1), at most
 * 256 MiB */
static int size_round(struct lim *l, unsigned *count)
{
	unsigned n, top = l->max > 17 ? 17 : l->max;
	DAT_RETURN rc = DAT_SUCCESS;
	struct dt_mem m;
	int bad = 0;

	for (n = 0; n < top; n++) {
		DAT_VLEN len = (DAT_VLEN)4096 << n;

		if (len > l->attr.max_lmr_block_size)
			break;
		rc = dt_mem_alloc(l->ia, l->pz, &m, len, DT_PRIV_ALL);
		if (rc != DAT_SUCCESS)
			break;
		dt_mem_free(&m);
	}
	if (n < top) {
		dt_log("  limit_size_lmr: largest %llu bytes (next: %s)",
		       n ? 4096ULL << (n - 1) : 0ULL, dt_rc(rc));
		if (rc != DAT_SUCCESS &&
		    DAT_GET_TYPE(rc) != DAT_INSUFFICIENT_RESOURCES &&
		    DAT_GET_TYPE(rc) != DAT_LENGTH_ERROR)
			bad = 1;
	}
	*count = n;
	return bad ? -1 : 0;
}

struct limit_def {
	const char *name;
	lim_make mk;
	lim_free fr;
	int (*special)(struct lim *l, unsigned *count);
};

static const struct limit_def limits[] = {
	{ "limit_ia", mk_ia, fr_ia, NULL },
	{ "limit_pz", mk_pz, fr_pz, NULL },
	{ "limit_cno", mk_cno, fr_cno, NULL },
	{ "limit_evd", mk_evd, fr_evd, NULL },
	{ "limit_ep", mk_ep, fr_ep, NULL },
	{ "limit_rsp", mk_rsp, fr_rsp, NULL },
	{ "limit_psp", mk_psp, fr_psp, NULL },
	{ "limit_lmr", mk_lmr, fr_lmr, NULL },
	{ "limit_rpost", NULL, NULL, rpost_round },
	{ "limit_size_lmr", NULL, NULL, size_round },
};
#define NLIMITS (sizeof(limits) / sizeof(limits[0]))

static int lim_open(struct lim *l)
{
	DAT_RETURN rc;

	if (dt_ia_open(l->ia_name, &l->ia, &l->async) != DAT_SUCCESS)
		return -1;
	rc = dat_ia_query(l->ia, &l->async, DAT_IA_FIELD_ALL, &l->attr, 0,
			  NULL);
	if (rc == DAT_SUCCESS)
		rc = dat_pz_create(l->ia, &l->pz);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(l->ia, (DAT_COUNT)l->max + 64,
				    DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				    &l->evd);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(l->ia, 16, DAT_HANDLE_NULL,
				    DAT_EVD_CR_FLAG, &l->cr);
	if (rc != DAT_SUCCESS) {
		dt_err("limit test set-up: %s", dt_rc(rc));
		return -1;
	}
	return 0;
}

/* everything of the test freed: the IA closes gracefully */
static int lim_close(struct lim *l)
{
	DAT_RETURN rc;
	int bad = 0;

	if (l->cr && dat_evd_free(l->cr) != DAT_SUCCESS)
		bad = 1;
	if (l->evd && dat_evd_free(l->evd) != DAT_SUCCESS)
		bad = 1;
	if (l->pz && dat_pz_free(l->pz) != DAT_SUCCESS)
		bad = 1;
	if (!l->ia)
		return -1;
	rc = dat_ia_close(l->ia, DAT_CLOSE_GRACEFUL_FLAG);
	if (rc != DAT_SUCCESS) {
		dt_err("dat_ia_close(GRACEFUL) after the limit test: %s (objects left behind)",
		       dt_rc(rc));
		dat_ia_close(l->ia, DAT_CLOSE_ABRUPT_FLAG);
		bad = 1;
	}
	return bad ? -1 : 0;
}

static int selected(const struct dt_args *a, const char *name)
{
	unsigned i;

	if (!a->nnames)
		return 1;
	for (i = 0; i < a->nnames; i++)
		if (!strcmp(a->names[i], name))
			return 1;
	return 0;
}

int dt_limit(const struct dt_args *a)
{
	struct dt_results res = { .tap = a->tap };
	unsigned i, w, count, first;
	struct lim l;
	char why[128];
	int bad, r;

	for (i = 0; i < a->nnames; i++) {
		unsigned k;

		for (k = 0; k < NLIMITS; k++)
			if (!strcmp(a->names[i], limits[k].name))
				break;
		if (k == NLIMITS) {
			dt_err("unknown limit test '%s'", a->names[i]);
			return DT_EXIT_USAGE;
		}
	}
	memset(&l, 0, sizeof(l));
	l.ia_name = a->ia_name;
	l.max = a->limit_max;
	if (lim_open(&l)) {
		lim_close(&l);
		return DT_EXIT_IA;
	}
	dt_log("Limit test: IA %s, cap %u, %u round(s) each", a->ia_name,
	       l.max, a->limit_width);
	for (i = 0; i < NLIMITS; i++) {
		if (!selected(a, limits[i].name))
			continue;
		bad = 0;
		first = 0;
		for (w = 0; w < a->limit_width && !bad; w++) {
			r = limits[i].special ?
				limits[i].special(&l, &count) :
				round_of(&l, limits[i].name, limits[i].mk,
					 limits[i].fr, &count);
			if (r)
				bad = 1;
			if (w == 0)
				first = count;
			else if (count != first) {
				dt_err("%s: round %u reached %u, round 1 %u: not everything was freed",
				       limits[i].name, w + 1, count, first);
				bad = 1;
			}
		}
		snprintf(why, sizeof(why), "%u created%s, all freed (%u round(s))",
			 first, first == l.max ? " (the cap)" : "",
			 a->limit_width);
		if (!bad && first == 0) {
			bad = 1;
			snprintf(why, sizeof(why), "not even one could be created");
		}
		dt_result(&res, limits[i].name, bad ? DT_FAIL : DT_PASS, why);
	}
	if (lim_close(&l))
		dt_result(&res, "limit_ia_close_graceful", DT_FAIL,
			  "objects left behind");
	else
		dt_result(&res, "limit_ia_close_graceful", DT_PASS,
			  "nothing left behind");
	return dt_summary(&res);
}
