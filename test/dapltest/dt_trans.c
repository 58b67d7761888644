/*
 * dt_trans.c - the transaction test (-T T): threads x endpoints connected
 * pairs, each running the op list for a number of iterations, both ends
 * in lockstep.
 *
 * Per EP and iteration i both ends do the same:
 *   1. fill the buffers the peer reads (RR ops the peer initiates)
 *   2. send READY(i), wait for the peer's READY(i)
 *   3. post the ops this end initiates (SR send, RR read, RW write), reap
 *      their completions in order; with -V check what RR read
 *   4. reap the receives of the SR ops the peer initiates; -V checks them
 *   5. post the receives of iteration i+1, send DONE(i), wait for DONE(i)
 *   6. with -V check the buffers the peer wrote (RW): its DONE came after
 *      its writes on the same reliable connection
 * Receives are consumed in posting order, so each end posts exactly the
 * sequence the peer will send: READY, the SR data, DONE.  Every wait is
 * bounded: a dead peer shows as a flushed receive or a timeout.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dt.h"

#define X_SLOTS		8
#define X_SLOT		256
#define C_CTL		0x10000ULL	/* | slot: control receive */
#define C_OP		0x20000ULL	/* | op: SR data receive */
#define C_SEND		0x30000ULL	/* control send */
#define C_INIT		0x40000ULL	/* | op: initiated op */

struct xmsg {
	char tag[8];
	uint32_t iter;
	uint32_t nops;
	struct {
		uint64_t addr;
		uint32_t rctx;
		uint32_t pad;
	} buf[DT_MAX_OPS];
};

struct xep {
	DAT_EP_HANDLE ep;
	DAT_EVD_HANDLE req, rcv, conn;
	struct dt_mem ctl;		/* slot 0 send, 1..X_SLOTS receives */
	struct dt_mem op[DT_MAX_OPS];
	struct xmsg peer;		/* the peer's buffers */
	unsigned thread, index, rnext;
	char what[48];
};

/* what one thread of either side runs */
struct xthread {
	const struct dt_xcfg *cfg;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	const DAT_IA_ATTR *attr;
	DAT_CNO_HANDLE cno;
	struct xep *eps;
	unsigned neps, thread;
	/* client only: where to connect */
	const struct sockaddr_in *sin;
	DAT_CONN_QUAL qual;
	int rc;
	pthread_t tid;
};

static int peer_inits(const struct dt_xcfg *c, const struct dt_op *op)
{
	return (int)op->server_init != c->server;
}

static uint32_t seed(const struct xep *x, unsigned iter, unsigned k)
{
	return iter * 131u + k * 7u + x->index * 1009u + x->thread * 100003u;
}

static DAT_VLEN op_len(const struct dt_op *op)
{
	return (DAT_VLEN)op->seg_size * op->num_segs;
}

static int recvs_needed(const struct dt_xcfg *c)
{
	return 2 * ((int)c->nops + 2) + 2;
}

/* ---- objects ------------------------------------------------------------- */

static int xep_create(struct xthread *t, struct xep *x)
{
	const struct dt_xcfg *c = t->cfg;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	unsigned k, maxsegs = 1;

	snprintf(x->what, sizeof(x->what), "thread %u EP %u", x->thread,
		 x->index);
	for (k = 0; k < c->nops; k++)
		if (c->ops[k].num_segs > maxsegs)
			maxsegs = c->ops[k].num_segs;
	rc = dat_evd_create(t->ia, 64, t->cno, DAT_EVD_DTO_FLAG, &x->req);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(t->ia, 64, t->cno, DAT_EVD_DTO_FLAG,
				    &x->rcv);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(t->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CONNECTION_FLAG, &x->conn);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: dat_evd_create: %s", x->what, dt_rc(rc));
		return -1;
	}
	dt_ep_attr(t->attr, &a, recvs_needed(c), 2 * (int)c->nops + 4,
		   (int)maxsegs);
	if ((unsigned)a.max_request_iov < maxsegs) {
		dt_err("%s: %u segments per op, the IA allows %d", x->what,
		       maxsegs, a.max_request_iov);
		return -1;
	}
	rc = dat_ep_create(t->ia, t->pz, x->rcv, x->req, x->conn, &a, &x->ep);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: dat_ep_create: %s", x->what, dt_rc(rc));
		x->ep = DAT_HANDLE_NULL;
		return -1;
	}
	rc = dt_mem_alloc(t->ia, t->pz, &x->ctl, X_SLOT * (X_SLOTS + 1),
			  DT_PRIV_ALL);
	for (k = 0; rc == DAT_SUCCESS && k < c->nops; k++)
		rc = dt_mem_alloc(t->ia, t->pz, &x->op[k], op_len(&c->ops[k]),
				  DT_PRIV_ALL);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: dat_lmr_create: %s", x->what, dt_rc(rc));
		return -1;
	}
	return 0;
}

static void xep_free(struct xep *x, unsigned nops)
{
	DAT_RETURN rc;
	unsigned k;

	if (x->ep) {
		dt_disconnect(x->ep, x->conn);
		rc = dat_ep_free(x->ep);
		if (rc != DAT_SUCCESS)
			dt_err("%s: dat_ep_free: %s", x->what, dt_rc(rc));
	}
	dt_mem_free(&x->ctl);
	for (k = 0; k < nops; k++)
		dt_mem_free(&x->op[k]);
	if (x->conn)
		dat_evd_free(x->conn);
	if (x->rcv)
		dat_evd_free(x->rcv);
	if (x->req)
		dat_evd_free(x->req);
	memset(x, 0, sizeof(*x));
}

/* ---- posts and reaps ----------------------------------------------------- */

static int post_ctl_recv(struct xep *x)
{
	unsigned slot = x->rnext++ % X_SLOTS;
	DAT_LMR_TRIPLET iov = dt_iov(&x->ctl, X_SLOT * (slot + 1), X_SLOT);
	DAT_RETURN rc;

	rc = dat_ep_post_recv(x->ep, 1, &iov, dt_cookie(C_CTL | slot),
			      DAT_COMPLETION_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS)
		dt_err("%s: dat_ep_post_recv: %s", x->what, dt_rc(rc));
	return rc == DAT_SUCCESS ? 0 : -1;
}

static void segments(const struct dt_mem *m, const struct dt_op *op,
		     DAT_LMR_TRIPLET *iov)
{
	unsigned s;

	for (s = 0; s < op->num_segs; s++)
		iov[s] = dt_iov(m, (DAT_VLEN)s * op->seg_size, op->seg_size);
}

/* the receives of one iteration: READY, SR data the peer sends, DONE */
static int post_iter_recvs(const struct dt_xcfg *c, struct xep *x)
{
	DAT_LMR_TRIPLET iov[64];
	DAT_RETURN rc;
	unsigned k;

	if (post_ctl_recv(x))
		return -1;
	for (k = 0; k < c->nops; k++) {
		if (c->ops[k].type != DT_SR || !peer_inits(c, &c->ops[k]))
			continue;
		segments(&x->op[k], &c->ops[k], iov);
		rc = dat_ep_post_recv(x->ep, c->ops[k].num_segs, iov,
				      dt_cookie(C_OP | k),
				      DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS) {
			dt_err("%s: op %u: dat_ep_post_recv: %s", x->what, k,
			       dt_rc(rc));
			return -1;
		}
	}
	return post_ctl_recv(x);
}

static int send_msg(const struct dt_xcfg *c, struct xthread *t,
		    struct xep *x, const char *tag, unsigned iter)
{
	struct xmsg *m = (struct xmsg *)x->ctl.buf;
	DAT_LMR_TRIPLET iov = dt_iov(&x->ctl, 0, sizeof(*m));
	DAT_RETURN rc;
	unsigned k;

	memset(m, 0, sizeof(*m));
	snprintf(m->tag, sizeof(m->tag), "%s", tag);
	m->iter = iter;
	m->nops = c->nops;
	for (k = 0; k < c->nops; k++) {
		m->buf[k].addr = (uintptr_t)x->op[k].buf;
		m->buf[k].rctx = x->op[k].rctx;
	}
	rc = dat_ep_post_send(x->ep, 1, &iov, dt_cookie(C_SEND),
			      DAT_COMPLETION_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: dat_ep_post_send(%s): %s", x->what, tag, dt_rc(rc));
		return -1;
	}
	return dt_wait_dto(x->what, x->req, t->cno, c->poll, C_SEND, NULL);
}

static int recv_msg(const struct dt_xcfg *c, struct xthread *t,
		    struct xep *x, const char *tag, unsigned iter,
		    struct xmsg *out)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	struct xmsg m;
	DAT_EVENT ev;
	DAT_RETURN rc;

	rc = dt_wait(x->rcv, t->cno, c->poll, dt_secs(30), &ev);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: waiting for the peer's %s(%u): %s (peer gone?)",
		       x->what, tag, iter, dt_rc(rc));
		return -1;
	}
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS ||
	    (d->user_cookie.as_64 & ~0xffffULL) != C_CTL) {
		dt_err("%s: waiting for %s(%u): %s %s cookie 0x%llx%s", x->what,
		       tag, iter, dt_ev(ev.event_number), dt_dto(d->status),
		       (unsigned long long)d->user_cookie.as_64,
		       d->status == DAT_DTO_ERR_FLUSHED ?
		       " (connection lost: peer gone?)" : "");
		return -1;
	}
	memcpy(&m, x->ctl.buf + X_SLOT * ((d->user_cookie.as_64 & 0xff) + 1),
	       sizeof(m));
	if (strncmp(m.tag, tag, sizeof(m.tag)) || m.iter != iter ||
	    m.nops != c->nops) {
		dt_err("%s: got %.8s(%u) with %u ops, want %s(%u) with %u ops",
		       x->what, m.tag, m.iter, m.nops, tag, iter, c->nops);
		return -1;
	}
	if (out)
		*out = m;
	return 0;
}

static int post_op(const struct dt_xcfg *c, struct xep *x, unsigned k,
		   unsigned iter)
{
	const struct dt_op *op = &c->ops[k];
	DAT_LMR_TRIPLET iov[64];
	DAT_RMR_TRIPLET r;
	DAT_RETURN rc;

	segments(&x->op[k], op, iov);
	r.rmr_context = x->peer.buf[k].rctx;
	r.pad = 0;
	r.target_address = x->peer.buf[k].addr;
	r.segment_length = op_len(op);
	switch (op->type) {
	case DT_SR:
		dt_fill(x->op[k].buf, op_len(op), seed(x, iter, k));
		rc = dat_ep_post_send(x->ep, op->num_segs, iov,
				      dt_cookie(C_INIT | k),
				      DAT_COMPLETION_DEFAULT_FLAG);
		break;
	case DT_RW:
		dt_fill(x->op[k].buf, op_len(op), seed(x, iter, k));
		rc = dat_ep_post_rdma_write(x->ep, op->num_segs, iov,
					    dt_cookie(C_INIT | k), &r,
					    DAT_COMPLETION_DEFAULT_FLAG);
		break;
	default:
		memset(x->op[k].buf, 0, op_len(op));
		rc = dat_ep_post_rdma_read(x->ep, op->num_segs, iov,
					   dt_cookie(C_INIT | k), &r,
					   DAT_COMPLETION_DEFAULT_FLAG);
		break;
	}
	if (rc != DAT_SUCCESS) {
		dt_err("%s: op %u %s: post: %s", x->what, k,
		       dt_op_name(op->type), dt_rc(rc));
		return -1;
	}
	return 0;
}

static int check_op(const struct dt_xcfg *c, struct xep *x, unsigned k,
		    unsigned iter, const char *how)
{
	char what[96];

	if (!c->validate)
		return 0;
	snprintf(what, sizeof(what), "%s op %u %s iteration %u (%s)", x->what,
		 k, dt_op_name(c->ops[k].type), iter, how);
	return dt_check(what, x->op[k].buf, op_len(&c->ops[k]),
			seed(x, iter, k)) ? 0 : -1;
}

/* completions of this end's ops, in posting order; a -f op by polling */
static int reap_ops(const struct dt_xcfg *c, struct xthread *t,
		    struct xep *x, unsigned iter)
{
	DAT_VLEN len;
	unsigned k;

	for (k = 0; k < c->nops; k++) {
		if (peer_inits(c, &c->ops[k]))
			continue;
		if (dt_wait_dto(x->what, x->req, t->cno,
				c->poll || c->ops[k].reap, C_INIT | k, &len))
			return -1;
		if (c->ops[k].type == DT_RR &&
		    check_op(c, x, k, iter, "RDMA read"))
			return -1;
	}
	for (k = 0; k < c->nops; k++) {
		if (!peer_inits(c, &c->ops[k]) || c->ops[k].type != DT_SR)
			continue;
		if (dt_wait_dto(x->what, x->rcv, t->cno,
				c->poll || c->ops[k].reap, C_OP | k, &len))
			return -1;
		if (len != op_len(&c->ops[k])) {
			dt_err("%s: op %u: received %llu bytes, want %llu",
			       x->what, k, (unsigned long long)len,
			       (unsigned long long)op_len(&c->ops[k]));
			return -1;
		}
		if (check_op(c, x, k, iter, "received"))
			return -1;
	}
	return 0;
}

/* ---- the lockstep loop of one thread ------------------------------------- */

static int iterate(struct xthread *t)
{
	const struct dt_xcfg *c = t->cfg;
	struct xep *x;
	unsigned i, k, e;

	for (e = 0; e < t->neps; e++) {
		x = &t->eps[e];
		if (send_msg(c, t, x, "SETUP", 0) ||
		    recv_msg(c, t, x, "SETUP", 0, &x->peer))
			return -1;
	}
	for (i = 0; i < c->iterations; i++) {
		for (e = 0; e < t->neps; e++) {
			x = &t->eps[e];
			for (k = 0; k < c->nops; k++)
				if (c->ops[k].type == DT_RR &&
				    peer_inits(c, &c->ops[k]))
					dt_fill(x->op[k].buf,
						op_len(&c->ops[k]),
						seed(x, i, k));
			if (send_msg(c, t, x, "READY", i))
				return -1;
		}
		for (e = 0; e < t->neps; e++)
			if (recv_msg(c, t, &t->eps[e], "READY", i, NULL))
				return -1;
		for (e = 0; e < t->neps; e++)
			for (k = 0; k < c->nops; k++)
				if (!peer_inits(c, &c->ops[k]) &&
				    post_op(c, &t->eps[e], k, i))
					return -1;
		for (e = 0; e < t->neps; e++) {
			x = &t->eps[e];
			if (reap_ops(c, t, x, i))
				return -1;
			if (i + 1 < c->iterations && post_iter_recvs(c, x))
				return -1;
			if (send_msg(c, t, x, "DONE", i))
				return -1;
		}
		for (e = 0; e < t->neps; e++) {
			x = &t->eps[e];
			if (recv_msg(c, t, x, "DONE", i, NULL))
				return -1;
			for (k = 0; k < c->nops; k++)
				if (c->ops[k].type == DT_RW &&
				    peer_inits(c, &c->ops[k]) &&
				    check_op(c, x, k, i, "RDMA written"))
					return -1;
		}
	}
	return 0;
}

/* the receives that must be there before the peer can send: SETUP and
 * iteration 0 */
static int prepost(const struct dt_xcfg *c, struct xep *x)
{
	if (post_ctl_recv(x))
		return -1;
	return c->iterations ? post_iter_recvs(c, x) : 0;
}

static void *client_thread(void *arg)
{
	struct xthread *t = arg;
	uint32_t pd[2];
	unsigned e;

	t->rc = -1;
	for (e = 0; e < t->neps; e++) {
		struct xep *x = &t->eps[e];

		x->thread = t->thread;
		x->index = e;
		if (xep_create(t, x) || prepost(t->cfg, x))
			return NULL;
		pd[0] = t->thread;
		pd[1] = e;
		if (dt_connect(x->ep, x->conn, t->sin, t->qual, pd, sizeof(pd),
			       x->what))
			return NULL;
	}
	t->rc = iterate(t);
	return NULL;
}

static void *server_thread(void *arg)
{
	struct xthread *t = arg;

	t->rc = iterate(t);
	return NULL;
}

static void free_threads(struct xthread *t, unsigned n, unsigned nops)
{
	unsigned i, e;

	for (i = 0; i < n; i++) {
		for (e = 0; e < t[i].neps; e++)
			xep_free(&t[i].eps[e], nops);
		free(t[i].eps);
		if (t[i].cno)
			dat_cno_free(t[i].cno);
	}
	free(t);
}

static struct xthread *alloc_threads(const struct dt_xcfg *cfg,
				     DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				     const DAT_IA_ATTR *attr, unsigned n,
				     unsigned neps, int cno)
{
	struct xthread *t = calloc(n, sizeof(*t));
	DAT_RETURN rc;
	unsigned i;

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		t[i].cfg = cfg;
		t[i].ia = ia;
		t[i].pz = pz;
		t[i].attr = attr;
		t[i].thread = i;
		t[i].neps = neps;
		t[i].eps = calloc(neps, sizeof(struct xep));
		if (!t[i].eps) {
			free_threads(t, i + 1, 0);
			return NULL;
		}
		if (cno) {
			rc = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL,
					    &t[i].cno);
			if (rc != DAT_SUCCESS) {
				dt_err("dat_cno_create: %s", dt_rc(rc));
				t[i].cno = DAT_HANDLE_NULL;
				free_threads(t, i + 1, 0);
				return NULL;
			}
		}
	}
	return t;
}

static int run_threads(struct xthread *t, unsigned n, void *(*fn)(void *))
{
	unsigned i;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i].tid, NULL, fn, &t[i])) {
			dt_err("pthread_create failed");
			t[i].rc = -1;
			t[i].tid = 0;
		}
	for (i = 0; i < n; i++) {
		if (t[i].tid)
			pthread_join(t[i].tid, NULL);
		if (t[i].rc)
			rc = -1;
	}
	return rc;
}

static void cfg_from_hello(struct dt_xcfg *cfg, const struct dt_hello *h,
			   int server)
{
	cfg->ops = h->ops;
	cfg->nops = h->nops;
	cfg->iterations = h->iterations;
	cfg->validate = h->validate;
	cfg->poll = h->poll;
	cfg->server = server;
}

/* ---- client -------------------------------------------------------------- */

int dt_transaction(const struct dt_args *a)
{
	struct dt_hello h, ans;
	struct sockaddr_in sin;
	struct dt_xcfg cfg;
	struct xthread *t;
	struct dt_ctl c;
	uint64_t t0;
	unsigned i;
	int rc;

	dt_hello_init(&h, DT_T);
	h.threads = a->threads;
	h.eps = a->eps;
	h.iterations = a->iterations;
	h.nops = a->nops;
	h.validate = a->validate;
	h.poll = a->poll;
	h.cno = a->cno;
	memcpy(h.ops, a->ops, sizeof(h.ops));
	rc = dt_client_start(&c, a, &h, &ans);
	if (rc)
		return rc;
	dt_log("Transaction test: %u thread(s) x %u EP(s), %u iteration(s)%s%s%s",
	       a->threads, a->eps, a->iterations, a->validate ? ", validated" : "",
	       a->poll ? ", polling" : "", a->cno ? ", CNO" : "");
	for (i = 0; i < a->nops; i++)
		dt_log("  op %u: %s %s %u x %u bytes%s", i,
		       a->ops[i].server_init ? "server" : "client",
		       dt_op_name(a->ops[i].type), a->ops[i].num_segs,
		       a->ops[i].seg_size, a->ops[i].reap ? " (reaped by polling)" : "");
	cfg_from_hello(&cfg, &h, 0);
	dt_sockaddr(&sin, a->server, 0);
	t = alloc_threads(&cfg, c.ia, c.pz, &c.attr, a->threads, a->eps,
			  a->cno);
	if (!t) {
		dt_client_finish(&c);
		return DT_EXIT_FAIL;
	}
	for (i = 0; i < a->threads; i++) {
		t[i].sin = &sin;
		t[i].qual = ans.data_qual;
	}
	t0 = dt_now_us();
	rc = run_threads(t, a->threads, client_thread);
	free_threads(t, a->threads, a->nops);
	if (dt_ctl_recv(&c, &ans, 60) || ans.status) {
		dt_err("the server reports the transaction test failed%s%.*s",
		       ans.text[0] ? ": " : "", (int)sizeof(ans.text), ans.text);
		rc = -1;
	}
	dt_client_finish(&c);
	if (rc) {
		dt_log("Transaction test: FAILED");
		return DT_EXIT_FAIL;
	}
	dt_log("Transaction test: PASSED: %u thread(s) x %u EP(s) x %u iteration(s) x %u op(s) in %.3f s",
	       a->threads, a->eps, a->iterations, a->nops,
	       (dt_now_us() - t0) / 1e6);
	return DT_EXIT_OK;
}

/* ---- server -------------------------------------------------------------- */

static int check_request(const struct dt_hello *h, char *why, size_t n)
{
	unsigned k;

	if (!h->threads || h->threads > DT_MAX_THREADS || !h->eps ||
	    h->eps > DT_MAX_EPS || !h->nops || h->nops > DT_MAX_OPS) {
		snprintf(why, n, "bad threads/EPs/ops %u/%u/%u", h->threads,
			 h->eps, h->nops);
		return -1;
	}
	for (k = 0; k < h->nops; k++)
		if (h->ops[k].type < DT_SR || h->ops[k].type > DT_RW ||
		    !h->ops[k].num_segs || h->ops[k].num_segs > 64 ||
		    !h->ops[k].seg_size || h->ops[k].seg_size > (16u << 20)) {
			snprintf(why, n, "bad op %u", k);
			return -1;
		}
	return 0;
}

/* accepts threads x eps connections, each naming its thread and EP */
static int accept_all(struct dt_ctl *c, DAT_EVD_HANDLE cr_evd,
		      struct xthread *t, unsigned n, unsigned neps)
{
	unsigned got = 0, total = n * neps;
	DAT_CR_PARAM crp;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN rc;
	DAT_CR_HANDLE cr;
	uint32_t pd[2];
	struct xep *x;

	while (got < total) {
		rc = dat_evd_wait(cr_evd, dt_secs(30), 1, &ev, &nmore);
		if (rc != DAT_SUCCESS ||
		    ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
			dt_err("server: %u of %u data connections came: %s %s",
			       got, total, dt_rc(rc), dt_ev(ev.event_number));
			return -1;
		}
		cr = ev.event_data.cr_arrival_event_data.cr_handle;
		rc = dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp);
		if (rc != DAT_SUCCESS || crp.private_data_size < 8 ||
		    !crp.private_data) {
			dt_err("server: connection request without its thread/EP ids: %s",
			       dt_rc(rc));
			dat_cr_reject(cr);
			return -1;
		}
		memcpy(pd, crp.private_data, sizeof(pd));
		if (pd[0] >= n || pd[1] >= neps || t[pd[0]].eps[pd[1]].ep) {
			dt_err("server: bad thread/EP ids %u/%u", pd[0], pd[1]);
			dat_cr_reject(cr);
			return -1;
		}
		x = &t[pd[0]].eps[pd[1]];
		x->thread = pd[0];
		x->index = pd[1];
		if (xep_create(&t[pd[0]], x) || prepost(t->cfg, x) ||
		    dt_accept(cr, x->ep, x->conn, NULL, 0))
			return -1;
		got++;
	}
	(void)c;
	return 0;
}

int dt_serve_transaction(struct dt_ctl *c, struct dt_hello *h)
{
	DAT_EVD_HANDLE cr_evd = DAT_HANDLE_NULL;
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	struct xthread *t = NULL;
	struct dt_hello ans;
	struct dt_xcfg cfg;
	DAT_CONN_QUAL qual;
	DAT_RETURN rc;
	char why[96] = "";
	int ret = -1;

	dt_hello_init(&ans, DT_T);
	if (check_request(h, why, sizeof(why)))
		goto refuse;
	cfg_from_hello(&cfg, h, 1);
	/* every client thread may have a request outstanding */
	rc = dat_evd_create(c->ia, 2 * (DAT_COUNT)h->threads + 16,
			    DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd);
	if (rc == DAT_SUCCESS)
		rc = dat_psp_create_any(c->ia, &qual, cr_evd,
					DAT_PSP_CONSUMER_FLAG, &psp);
	if (rc != DAT_SUCCESS) {
		snprintf(why, sizeof(why), "server: data PSP: %s", dt_rc(rc));
		goto refuse;
	}
	t = alloc_threads(&cfg, c->ia, c->pz, &c->attr, h->threads, h->eps,
			  h->cno);
	if (!t) {
		snprintf(why, sizeof(why), "server: out of resources");
		goto refuse;
	}
	ans.data_qual = qual;
	if (dt_ctl_send(c, &ans))
		goto out;
	if (accept_all(c, cr_evd, t, h->threads, h->eps) == 0)
		ret = run_threads(t, h->threads, server_thread);
	dt_hello_init(&ans, DT_T);
	ans.status = ret ? 1 : 0;
	snprintf(ans.text, sizeof(ans.text), "%s",
		 ret ? "server side failed (see the server's output)" : "ok");
	if (dt_ctl_send(c, &ans))
		ret = -1;
	goto out;
refuse:
	dt_err("transaction test refused: %s", why);
	ans.status = 1;
	snprintf(ans.text, sizeof(ans.text), "%s", why);
	dt_ctl_send(c, &ans);
out:
	if (t)
		free_threads(t, h->threads, h->nops);
	if (psp)
		dat_psp_free(psp);
	if (cr_evd)
		dat_evd_free(cr_evd);
	return ret;
}
