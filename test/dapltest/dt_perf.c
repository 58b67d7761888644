/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_perf.c - the performance test (-T P): one connection, `iterations`
 * operations in all, as OFA's dapltest counts them (-i N moves N
 * operations, whatever the pipeline), posted in rounds of `pipeline` back
 * to back and reaped (blocking waits or polling); the last round may be
 * shorter.  Each round gives a latency (its time / its operations) and a
 * bandwidth (its bytes / its time); the test prints min, median and max
 * of both, and fails unless every operation completed and every figure
 * is positive.  For SR the server answers each round with one message
 * once it has reposted its receives, so the round's time includes that
 * round trip.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt.h"

#define P_ACK		0xACC0ULL
#define P_OP		0x0B00ULL
#define P_RECV		0x0E00ULL

struct perf {
	DAT_EP_HANDLE ep;
	DAT_EVD_HANDLE req, rcv, conn, cr;
	DAT_PSP_HANDLE psp;
	struct dt_mem data, ack;
	unsigned seg_size, num_segs, pipeline;
	int poll;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int perf_objs(struct dt_ctl *c, struct perf *p, int server)
{
	DAT_VLEN len = (DAT_VLEN)p->seg_size * p->num_segs;
	DAT_EP_ATTR a;
	DAT_RETURN rc;

	rc = dat_evd_create(c->ia, 2 * p->pipeline + 8, DAT_HANDLE_NULL,
			    DAT_EVD_DTO_FLAG, &p->req);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(c->ia, 2 * p->pipeline + 8,
				    DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				    &p->rcv);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(c->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CONNECTION_FLAG, &p->conn);
	if (rc == DAT_SUCCESS && server)
		rc = dat_evd_create(c->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CR_FLAG, &p->cr);
	if (rc != DAT_SUCCESS) {
		dt_err("performance: dat_evd_create: %s", dt_rc(rc));
		return -1;
	}
	dt_ep_attr(&c->attr, &a, (int)p->pipeline + 4, (int)p->pipeline + 4,
		   (int)p->num_segs);
	rc = dat_ep_create(c->ia, c->pz, p->rcv, p->req, p->conn, &a, &p->ep);
	if (rc != DAT_SUCCESS) {
		p->ep = DAT_HANDLE_NULL;
		dt_err("performance: dat_ep_create: %s", dt_rc(rc));
		return -1;
	}
	rc = dt_mem_alloc(c->ia, c->pz, &p->data, len, DT_PRIV_ALL);
	if (rc == DAT_SUCCESS)
		rc = dt_mem_alloc(c->ia, c->pz, &p->ack, 64, DT_PRIV_ALL);
	if (rc != DAT_SUCCESS) {
		dt_err("performance: dat_lmr_create(%llu bytes): %s",
		       (unsigned long long)len, dt_rc(rc));
		return -1;
	}
	return 0;
}

static void perf_free(struct perf *p)
{
	if (p->ep) {
		dt_disconnect(p->ep, p->conn);
		dat_ep_free(p->ep);
	}
	if (p->psp)
		dat_psp_free(p->psp);
	dt_mem_free(&p->data);
	dt_mem_free(&p->ack);
	if (p->cr)
		dat_evd_free(p->cr);
	if (p->conn)
		dat_evd_free(p->conn);
	if (p->rcv)
		dat_evd_free(p->rcv);
	if (p->req)
		dat_evd_free(p->req);
}

static void iov_of(const struct perf *p, DAT_LMR_TRIPLET *iov)
{
	unsigned s;

	for (s = 0; s < p->num_segs; s++)
		iov[s] = dt_iov(&p->data, (DAT_VLEN)s * p->seg_size,
				p->seg_size);
}

static int post_recvs(struct perf *p, unsigned n)
{
	DAT_LMR_TRIPLET iov[64];
	DAT_RETURN rc;
	unsigned i;

	iov_of(p, iov);
	for (i = 0; i < n; i++) {
		rc = dat_ep_post_recv(p->ep, p->num_segs, iov,
				      dt_cookie(P_RECV),
				      DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS) {
			dt_err("performance: dat_ep_post_recv: %s", dt_rc(rc));
			return -1;
		}
	}
	return 0;
}

static int post_ack_recv(struct perf *p)
{
	DAT_LMR_TRIPLET iov = dt_iov(&p->ack, 0, 64);
	DAT_RETURN rc;

	rc = dat_ep_post_recv(p->ep, 1, &iov, dt_cookie(P_ACK),
			      DAT_COMPLETION_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS)
		dt_err("performance: dat_ep_post_recv(ack): %s", dt_rc(rc));
	return rc == DAT_SUCCESS ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int report(const char *what, double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	dt_log("  %-22s min %12.3f  median %12.3f  max %12.3f", what, v[0],
	       v[n / 2], v[n - 1]);
	return v[0] > 0 ? 0 : -1;
}

/* the operations of round `round` of a test of `total` operations */
static unsigned round_ops(unsigned total, unsigned pipeline, unsigned round)
{
	unsigned left = total - round * pipeline;

	return left < pipeline ? left : pipeline;
}

/* one round of the client: n ops, their completions, for SR the
 * server's ack */
static int client_round(struct perf *p, int type, const DAT_RMR_TRIPLET *r,
			unsigned n)
{
	DAT_LMR_TRIPLET iov[64];
	DAT_RETURN rc = DAT_SUCCESS;
	unsigned i;

	iov_of(p, iov);
	for (i = 0; i < n; i++) {
		if (type == DT_SR)
			rc = dat_ep_post_send(p->ep, p->num_segs, iov,
					      dt_cookie(P_OP),
					      DAT_COMPLETION_DEFAULT_FLAG);
		else if (type == DT_RW)
			rc = dat_ep_post_rdma_write(p->ep, p->num_segs, iov,
						    dt_cookie(P_OP), r,
						    DAT_COMPLETION_DEFAULT_FLAG);
		else
			rc = dat_ep_post_rdma_read(p->ep, p->num_segs, iov,
						   dt_cookie(P_OP), r,
						   DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS) {
			dt_err("performance: post %s: %s", dt_op_name(type),
			       dt_rc(rc));
			return -1;
		}
	}
	for (i = 0; i < n; i++)
		if (dt_wait_dto("performance op", p->req, NULL, p->poll, P_OP,
				NULL))
			return -1;
	if (type != DT_SR)
		return 0;
	if (dt_wait_dto("performance: server's ack", p->rcv, NULL, p->poll,
			P_ACK, NULL))
		return -1;
	return post_ack_recv(p);
}

int dt_performance(const struct dt_args *a)
{
	const struct dt_op *op = &a->ops[0];
	struct dt_hello h, ans;
	struct sockaddr_in sin;
	struct perf p;
	struct dt_ctl c;
	DAT_RMR_TRIPLET r;
	double *lat, *bw, t0, dt, op_bytes, total = 0;
	unsigned i, n, rounds, done = 0, ops = 0;
	int rc;

	dt_hello_init(&h, DT_P);
	h.iterations = a->iterations;
	h.pipeline = a->pipeline;
	h.perf_type = op->type;
	h.seg_size = op->seg_size;
	h.num_segs = op->num_segs;
	h.perf_poll = a->perf_poll;
	rc = dt_client_start(&c, a, &h, &ans);
	if (rc)
		return rc;
	memset(&p, 0, sizeof(p));
	p.seg_size = op->seg_size;
	p.num_segs = op->num_segs;
	p.pipeline = a->pipeline;
	p.poll = a->perf_poll;
	rounds = (a->iterations + p.pipeline - 1) / p.pipeline;
	lat = calloc(rounds, sizeof(double));
	bw = calloc(rounds, sizeof(double));
	rc = DT_EXIT_FAIL;
	if (!lat || !bw || perf_objs(&c, &p, 0))
		goto out;
	if (op->type == DT_SR && post_ack_recv(&p))
		goto out;
	dt_sockaddr(&sin, a->server, 0);
	if (dt_connect(p.ep, p.conn, &sin, ans.data_qual, NULL, 0,
		       "performance: data connection"))
		goto out;
	r.rmr_context = ans.buf_rctx;
	r.pad = 0;
	r.target_address = ans.buf_addr;
	r.segment_length = (DAT_VLEN)p.seg_size * p.num_segs;
	op_bytes = (double)p.seg_size * p.num_segs;
	dt_log("Performance test: %s %u x %u bytes, pipeline %u, %u op(s) in %u round(s), %s",
	       dt_op_name(op->type), p.num_segs, p.seg_size, p.pipeline,
	       a->iterations, rounds, p.poll ? "polling" : "blocking");
	for (i = 0; i < rounds; i++) {
		n = round_ops(a->iterations, p.pipeline, i);
		t0 = now_s();
		if (client_round(&p, op->type, &r, n))
			break;
		dt = now_s() - t0;
		total += dt;
		lat[i] = dt * 1e6 / n;
		bw[i] = op_bytes * n / dt / 1e6;
		done++;
		ops += n;
	}
	/* tell the server we are through, either way */
	dt_hello_init(&h, DT_P);
	h.status = ops != a->iterations;
	if (dt_ctl_send(&c, &h) || dt_ctl_recv(&c, &ans, 60) || ans.status) {
		dt_err("performance: the server reports a failure: %.*s",
		       (int)sizeof(ans.text), ans.text);
		goto out;
	}
	if (ops != a->iterations) {
		dt_err("performance: %u of %u operations completed", ops,
		       a->iterations);
		goto out;
	}
	dt_log("  %u ops, %.0f bytes in %.6f s", ops, op_bytes * ops, total);
	rc = DT_EXIT_OK;
	if (report("latency (us per op):", lat, done) ||
	    report("bandwidth (MB/s):", bw, done)) {
		dt_err("performance: a figure is not positive");
		rc = DT_EXIT_FAIL;
	}
out:
	dt_log("Performance test: %s", rc ? "FAILED" : "PASSED");
	free(lat);
	free(bw);
	perf_free(&p);
	dt_client_finish(&c);
	return rc;
}

/* ---- server -------------------------------------------------------------- */

/* SR: the client's rounds of a test of `total` operations (its first
 * round's receives are posted before the accept) */
static int serve_sr(struct perf *p, unsigned total)
{
	DAT_LMR_TRIPLET iov = dt_iov(&p->ack, 0, 8);
	unsigned i, k, rounds = (total + p->pipeline - 1) / p->pipeline;
	DAT_RETURN rc;

	for (i = 0; i < rounds; i++) {
		for (k = 0; k < round_ops(total, p->pipeline, i); k++)
			if (dt_wait_dto("performance: receive", p->rcv, NULL,
					p->poll, P_RECV, NULL))
				return -1;
		if (i + 1 < rounds &&
		    post_recvs(p, round_ops(total, p->pipeline, i + 1)))
			return -1;
		rc = dat_ep_post_send(p->ep, 1, &iov, dt_cookie(P_ACK),
				      DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS) {
			dt_err("performance: ack: %s", dt_rc(rc));
			return -1;
		}
		if (dt_wait_dto("performance: ack", p->req, NULL, p->poll,
				P_ACK, NULL))
			return -1;
	}
	return 0;
}

int dt_serve_performance(struct dt_ctl *c, struct dt_hello *h)
{
	struct dt_hello ans, fin;
	DAT_CONN_QUAL qual;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN rc;
	struct perf p;
	int ret = -1;

	memset(&p, 0, sizeof(p));
	dt_hello_init(&ans, DT_P);
	if (h->perf_type < DT_SR || h->perf_type > DT_RW || !h->pipeline ||
	    h->pipeline > 256 || !h->num_segs || h->num_segs > 64 ||
	    !h->seg_size || h->seg_size > (16u << 20) || !h->iterations) {
		ans.status = 1;
		snprintf(ans.text, sizeof(ans.text), "bad performance request");
		dt_ctl_send(c, &ans);
		return -1;
	}
	p.seg_size = h->seg_size;
	p.num_segs = h->num_segs;
	p.pipeline = h->pipeline;
	p.poll = h->perf_poll;
	if (perf_objs(c, &p, 1) ||
	    (h->perf_type == DT_SR &&
	     post_recvs(&p, round_ops(h->iterations, p.pipeline, 0))))
		goto fail;
	rc = dat_psp_create_any(c->ia, &qual, p.cr, DAT_PSP_CONSUMER_FLAG,
				&p.psp);
	if (rc != DAT_SUCCESS) {
		p.psp = DAT_HANDLE_NULL;
		dt_err("performance: dat_psp_create_any: %s", dt_rc(rc));
		goto fail;
	}
	ans.data_qual = qual;
	ans.buf_addr = (uintptr_t)p.data.buf;
	ans.buf_len = p.data.len;
	ans.buf_rctx = p.data.rctx;
	if (dt_ctl_send(c, &ans))
		goto out;
	rc = dat_evd_wait(p.cr, dt_secs(30), 1, &ev, &nmore);
	if (rc != DAT_SUCCESS ||
	    ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		dt_err("performance: no data connection: %s", dt_rc(rc));
		goto out;
	}
	if (dt_accept(ev.event_data.cr_arrival_event_data.cr_handle, p.ep,
		      p.conn, NULL, 0))
		goto out;
	ret = 0;
	if (h->perf_type == DT_SR)
		ret = serve_sr(&p, h->iterations);
	if (dt_ctl_recv(c, &fin, 120) || fin.status)
		ret = -1;
	dt_hello_init(&ans, DT_P);
	ans.status = ret ? 1 : 0;
	snprintf(ans.text, sizeof(ans.text), "%s", ret ? "failed" : "ok");
	if (dt_ctl_send(c, &ans))
		ret = -1;
	goto out;
fail:
	ans.status = 1;
	snprintf(ans.text, sizeof(ans.text), "server: cannot set up");
	dt_ctl_send(c, &ans);
out:
	perf_free(&p);
	return ret;
}
