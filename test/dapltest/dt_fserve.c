/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_fserve.c - the server half of the functional test: an echo service.
 *
 * It listens on a PSP_any, rejects a connection whose private data starts
 * with FS_REJECT_TAG and accepts any other with the same private data
 * back; every message received is sent back on its connection; an RDMA
 * buffer (first 4 KiB: pattern 77) is open for remote reads and writes.
 * One thread polls all its EVDs and the control connection, whose next
 * message ends the service.  Each connection has its own slot of
 * receive buffers; a cookie holds the slot, the buffer and the slot's
 * generation, so completions of a freed connection are recognised.
 *
 * A connection whose private data names it a command connection (struct
 * fs_cmd_pdata, dt_func.h) gets the RDMA commands instead of the echo:
 * the service RDMA-writes or -reads a triplet the client names (a memory
 * window of the rmr group) through that connection or another command
 * connection of the client, and answers with the completion's status; or
 * it sets and reads its atomic target (the atomic group).  A command's
 * RDMA operation carries FS_CMD_BIT in its cookie; its answer goes back
 * in the buffer the command came in.  A connection that ends while an
 * operation of a command is in flight on it is freed only once that
 * operation completed (freeing the EP would drop the completion, and the
 * command would never be answered).
 */
#define _GNU_SOURCE
#include <string.h>

#include "dt_func.h"
#include <dat/dat_ib_extensions.h>

#define FS_EPS		16
#define FS_BUFS		16	/* receives per connection */
#define FS_BUF		4096
#define FS_RDMA		(64 * 1024)
#define FS_CMD_BIT	(1ULL << 40)	/* cookie of a command's RDMA op */
#define FS_CMD_WAIT_S	10		/* for the target's ESTABLISHED */

_Static_assert(sizeof(struct fs_cmd) <= FS_BUF, "a command fits a buffer");

enum fs_cmd_state { FS_IDLE, FS_WAIT, FS_POSTED };

struct fs_ep {
	DAT_EP_HANDLE ep;
	uint16_t gen;
	int established;
	/* a message can arrive before our ESTABLISHED event (the peer's
	 * came first); its echo waits for ours: length, or -1 */
	long long pending[FS_BUFS];
	uint32_t token;		/* a command connection's; 0: echo */
	int dead;		/* ended while a command's op is in flight */
	/* its command in progress: waiting for its target connection's
	 * ESTABLISHED, or its RDMA operation posted there */
	enum fs_cmd_state cmd;
	unsigned cmd_b, cmd_target;
	uint64_t cmd_since;
};

struct fserve {
	struct dt_ctl *c;
	DAT_EVD_HANDLE req, rcv, conn, cr;
	DAT_PSP_HANDLE psp;
	struct dt_mem bufs, rdma, scratch, atarget;
	struct fs_ep eps[FS_EPS];
	unsigned served, echoed, commands;
	int atomic;		/* the target has REMOTE_ATOMIC */
	DAT_COUNT max_pdata;
	unsigned char pattern[FS_CMD_MAX];
};

static uint64_t fs_cookie(const struct fserve *s, unsigned e, unsigned b)
{
	return ((uint64_t)s->eps[e].gen << 16) | (e << 8) | b;
}

/* the slot of a cookie, if it is still the same connection */
static int fs_slot(const struct fserve *s, uint64_t cookie, DAT_EP_HANDLE ep,
		   unsigned *e, unsigned *b)
{
	*e = (cookie >> 8) & 0xff;
	*b = cookie & 0xff;
	return *e < FS_EPS && *b < FS_BUFS && s->eps[*e].ep == ep &&
	       s->eps[*e].gen == (uint16_t)(cookie >> 16);
}

static DAT_LMR_TRIPLET fs_buf(const struct fserve *s, unsigned e, unsigned b,
			      DAT_VLEN len)
{
	return dt_iov(&s->bufs, ((DAT_VLEN)e * FS_BUFS + b) * FS_BUF, len);
}

static int fs_recv(struct fserve *s, unsigned e, unsigned b)
{
	DAT_LMR_TRIPLET iov = fs_buf(s, e, b, FS_BUF);

	return dat_ep_post_recv(s->eps[e].ep, 1, &iov,
				dt_cookie(fs_cookie(s, e, b)),
				DAT_COMPLETION_DEFAULT_FLAG) == DAT_SUCCESS ?
	       0 : -1;
}

static void fs_drop(struct fserve *s, unsigned e)
{
	DAT_RETURN rc;

	if (!s->eps[e].ep)
		return;
	rc = dat_ep_free(s->eps[e].ep);
	if (rc != DAT_SUCCESS)
		dt_err("echo service: dat_ep_free: %s", dt_rc(rc));
	s->eps[e].ep = DAT_HANDLE_NULL;
	s->eps[e].gen++;
	s->eps[e].established = 0;
	s->eps[e].token = 0;
	s->eps[e].dead = 0;
	s->eps[e].cmd = FS_IDLE;
}

/* sends len bytes of buffer b back on its connection */
static void fs_send_back(struct fserve *s, unsigned e, unsigned b,
			 DAT_VLEN len)
{
	DAT_LMR_TRIPLET iov = fs_buf(s, e, b, len);
	DAT_RETURN rc;

	rc = dat_ep_post_send(s->eps[e].ep, 1, &iov,
			      dt_cookie(fs_cookie(s, e, b)),
			      DAT_COMPLETION_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS)
		dt_err("echo service: dat_ep_post_send: %s", dt_rc(rc));
	else if (s->eps[e].token)
		s->commands++;
	else
		s->echoed++;
}

/* ---- the RDMA commands ---------------------------------------------------- */

static struct fs_cmd *fs_cmdbuf(const struct fserve *s, unsigned e,
				unsigned b)
{
	return (struct fs_cmd *)(s->bufs.buf +
				 ((DAT_VLEN)e * FS_BUFS + b) * FS_BUF);
}

static void fs_answer(struct fserve *s, unsigned e, unsigned b)
{
	fs_send_back(s, e, b, sizeof(struct fs_cmd));
}

static void fs_refuse(struct fserve *s, unsigned e, unsigned b,
		      DAT_RETURN rc, const char *why)
{
	struct fs_cmd *c = fs_cmdbuf(s, e, b);

	c->post_rc = rc;
	snprintf(c->text, sizeof(c->text), "%s", why);
	dt_dbg("echo service: command %u refused: %s", c->op, why);
	fs_answer(s, e, b);
}

/* the slot of a live command connection with this token */
static int fs_token_slot(const struct fserve *s, uint32_t token)
{
	int e;

	for (e = 0; e < FS_EPS; e++)
		if (token && s->eps[e].ep && s->eps[e].token == token)
			return e;
	return -1;
}

/* an operation of a command is in flight on slot t */
static int fs_target_busy(const struct fserve *s, unsigned t)
{
	unsigned e;

	for (e = 0; e < FS_EPS; e++)
		if (s->eps[e].ep && s->eps[e].cmd == FS_POSTED &&
		    s->eps[e].cmd_target == t)
			return 1;
	return 0;
}

/* the RDMA operation of slot e's waiting command, once its target
 * connection is there */
static void fs_cmd_start(struct fserve *s, unsigned e)
{
	struct fs_ep *p = &s->eps[e];
	struct fs_cmd *c = fs_cmdbuf(s, e, p->cmd_b);
	unsigned char *local = s->scratch.buf + (DAT_VLEN)e * FS_CMD_MAX;
	DAT_LMR_TRIPLET l;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE ck;
	DAT_RETURN rc;
	int t = c->via ? fs_token_slot(s, c->via) : (int)e;

	if (t < 0 || s->eps[t].dead) {
		p->cmd = FS_IDLE;
		fs_refuse(s, e, p->cmd_b,
			  DT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1),
			  "no connection of that token");
		return;
	}
	if (!s->eps[t].established) {
		if (dt_now_us() - p->cmd_since > dt_secs(FS_CMD_WAIT_S)) {
			p->cmd = FS_IDLE;
			fs_refuse(s, e, p->cmd_b,
				  DT_ERR(DAT_TIMEOUT_EXPIRED, 0),
				  "the target connection never got ESTABLISHED");
		}
		return;		/* tried again on the next pass */
	}
	l = dt_iov(&s->scratch, (DAT_VLEN)e * FS_CMD_MAX, c->len);
	r.rmr_context = c->rmr_context;
	r.pad = 0;
	r.target_address = c->addr;
	r.segment_length = c->len;
	ck = dt_cookie(FS_CMD_BIT | fs_cookie(s, e, p->cmd_b));
	if (c->op == FS_OP_WRITE) {
		dt_fill(local, c->len, c->seed);
		rc = dat_ep_post_rdma_write(s->eps[t].ep, 1, &l, ck, &r,
					    DAT_COMPLETION_DEFAULT_FLAG);
	} else {
		memset(local, 0, c->len);
		rc = dat_ep_post_rdma_read(s->eps[t].ep, 1, &l, ck, &r,
					   DAT_COMPLETION_DEFAULT_FLAG);
	}
	if (rc != DAT_SUCCESS) {
		p->cmd = FS_IDLE;
		fs_refuse(s, e, p->cmd_b, rc, "the RDMA post failed");
		return;
	}
	p->cmd = FS_POSTED;
	p->cmd_target = (unsigned)t;
}

/* the completion of a command's RDMA operation (any status) */
static void fs_cmd_done(struct fserve *s,
			const DAT_DTO_COMPLETION_EVENT_DATA *d)
{
	uint64_t ck = d->user_cookie.as_64;
	unsigned e = (ck >> 8) & 0xff, b = ck & 0xff;
	int t = -1, k;
	struct fs_cmd *c;

	for (k = 0; k < FS_EPS; k++)
		if (d->ep_handle && s->eps[k].ep == d->ep_handle)
			t = k;
	if (e < FS_EPS && b < FS_BUFS && s->eps[e].ep &&
	    s->eps[e].gen == (uint16_t)(ck >> 16) &&
	    s->eps[e].cmd == FS_POSTED && s->eps[e].cmd_b == b) {
		c = fs_cmdbuf(s, e, b);
		c->post_rc = DAT_SUCCESS;
		c->status = d->status;
		if (c->op == FS_OP_READ && d->status == DAT_DTO_SUCCESS) {
			dt_fill(s->pattern, c->len, c->seed);
			c->match = !memcmp(s->scratch.buf +
					   (DAT_VLEN)e * FS_CMD_MAX,
					   s->pattern, c->len);
		}
		dt_dbg("echo service: command %u done: %s", c->op,
		       dt_dto(d->status));
		s->eps[e].cmd = FS_IDLE;
		fs_answer(s, e, b);
	}
	if (t >= 0 && s->eps[t].dead && !fs_target_busy(s, (unsigned)t))
		fs_drop(s, (unsigned)t);
}

static void fs_atarget(const struct fserve *s, struct fs_cmd *c)
{
	c->atomic = (uint32_t)s->atomic;
	c->taddr = (uintptr_t)s->atarget.buf;
	c->tlen = s->atarget.len;
	c->trctx = s->atarget.rctx;
	memcpy(&c->tvalue, s->atarget.buf + c->addr, sizeof(c->tvalue));
}

static void fs_command(struct fserve *s, unsigned e, unsigned b, DAT_VLEN len)
{
	struct fs_cmd *c = fs_cmdbuf(s, e, b);
	struct fs_ep *p = &s->eps[e];

	if (len != sizeof(*c) || c->magic != FS_CMD_MAGIC) {
		if (len >= sizeof(*c))
			fs_refuse(s, e, b,
				  DT_ERR(DAT_INVALID_PARAMETER, 0),
				  "not a command");
		else {
			dt_err("echo service: a message of %llu bytes on a command connection",
			       (unsigned long long)len);
			fs_recv(s, e, b);
		}
		return;
	}
	c->post_rc = DAT_SUCCESS;
	c->status = DAT_DTO_SUCCESS;
	c->match = 0;
	c->text[0] = 0;
	switch (c->op) {
	case FS_OP_ASET:
	case FS_OP_AGET:
		if (c->addr % 8 || c->addr > FS_ATARGET - 8) {
			fs_refuse(s, e, b,
				  DT_ERR(DAT_INVALID_PARAMETER, 0),
				  "offset outside the atomic target");
			return;
		}
		if (c->op == FS_OP_ASET)
			memcpy(s->atarget.buf + c->addr, &c->value,
			       sizeof(c->value));
		fs_atarget(s, c);
		fs_answer(s, e, b);
		return;
	case FS_OP_WRITE:
	case FS_OP_READ:
		if (!c->len || c->len > FS_CMD_MAX) {
			fs_refuse(s, e, b, DT_ERR(DAT_LENGTH_ERROR, 0),
				  "length 0 or above FS_CMD_MAX");
			return;
		}
		if (p->cmd != FS_IDLE) {
			fs_refuse(s, e, b,
				  DT_ERR(DAT_INVALID_STATE, 0),
				  "one command at a time");
			return;
		}
		p->cmd = FS_WAIT;
		p->cmd_b = b;
		p->cmd_since = dt_now_us();
		fs_cmd_start(s, e);
		return;
	}
	fs_refuse(s, e, b, DT_ERR(DAT_INVALID_PARAMETER, 0),
		  "unknown command");
}

/* ---- messages --------------------------------------------------------------- */

static void fs_message(struct fserve *s, unsigned e, unsigned b, DAT_VLEN len)
{
	if (!s->eps[e].established) {
		s->eps[e].pending[b] = (long long)len;
		return;
	}
	if (s->eps[e].token)
		fs_command(s, e, b, len);
	else
		fs_send_back(s, e, b, len);
}

static void fs_established(struct fserve *s, unsigned e)
{
	unsigned b;

	s->eps[e].established = 1;
	for (b = 0; b < FS_BUFS; b++)
		if (s->eps[e].pending[b] >= 0) {
			fs_message(s, e, b, (DAT_VLEN)s->eps[e].pending[b]);
			s->eps[e].pending[b] = -1;
		}
}

static void fs_request(struct fserve *s, DAT_CR_HANDLE cr)
{
	DAT_CR_PARAM p;
	DAT_EP_ATTR a;
	unsigned e, b;
	DAT_COUNT plen = 0;
	DAT_RETURN rc;
	struct fs_cmd_pdata cpd;
	uint32_t token = 0;
	char pd[256];

	memset(&p, 0, sizeof(p));
	rc = dat_cr_query(cr, DAT_CR_FIELD_ALL, &p);
	if (rc == DAT_SUCCESS && p.private_data && p.private_data_size > 0) {
		plen = p.private_data_size < (DAT_COUNT)sizeof(pd) ?
		       p.private_data_size : (DAT_COUNT)sizeof(pd);
		memcpy(pd, p.private_data, plen);
		if (!strncmp(pd, FS_REJECT_TAG, strlen(FS_REJECT_TAG))) {
			dt_dbg("echo service: rejecting as asked");
			dat_cr_reject(cr);
			return;
		}
		if (plen >= (DAT_COUNT)sizeof(cpd) &&
		    !strncmp(pd, FS_CMD_TAG, sizeof(cpd.tag))) {
			memcpy(&cpd, pd, sizeof(cpd));
			token = cpd.token;
			if (!token || fs_token_slot(s, token) >= 0) {
				dt_err("echo service: command connection token %u is 0 or in use",
				       token);
				dat_cr_reject(cr);
				return;
			}
		}
	}
	for (e = 0; e < FS_EPS && s->eps[e].ep; e++)
		;
	if (e == FS_EPS) {
		dt_err("echo service: more than %d connections", FS_EPS);
		dat_cr_reject(cr);
		return;
	}
	dt_ep_attr(&s->c->attr, &a, FS_BUFS, FS_BUFS, 1);
	rc = dat_ep_create(s->c->ia, s->c->pz, s->rcv, s->req, s->conn, &a,
			   &s->eps[e].ep);
	if (rc != DAT_SUCCESS) {
		dt_err("echo service: dat_ep_create: %s", dt_rc(rc));
		s->eps[e].ep = DAT_HANDLE_NULL;
		dat_cr_reject(cr);
		return;
	}
	for (b = 0; b < FS_BUFS; b++)
		s->eps[e].pending[b] = -1;
	s->eps[e].token = token;
	for (b = 0; b < FS_BUFS; b++)
		if (fs_recv(s, e, b)) {
			fs_drop(s, e);
			dat_cr_reject(cr);
			return;
		}
	if (plen > s->max_pdata)
		plen = s->max_pdata;
	rc = dat_cr_accept(cr, s->eps[e].ep, plen, plen ? pd : NULL);
	if (rc != DAT_SUCCESS) {
		dt_err("echo service: dat_cr_accept: %s", dt_rc(rc));
		fs_drop(s, e);
		return;
	}
	s->served++;
}

static int fs_slot_of_ep(const struct fserve *s, DAT_EP_HANDLE ep)
{
	int e;

	for (e = 0; e < FS_EPS; e++)
		if (ep && s->eps[e].ep == ep)
			return e;
	return -1;
}

/* one pass over the EVDs; returns how many events it handled */
static int fs_pass(struct fserve *s)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	unsigned e, b;
	int n = 0, k;

	while (dat_evd_dequeue(s->cr, &ev) == DAT_SUCCESS) {
		n++;
		if (ev.event_number == DAT_CONNECTION_REQUEST_EVENT)
			fs_request(s,
				   ev.event_data.cr_arrival_event_data.cr_handle);
	}
	while (dat_evd_dequeue(s->conn, &ev) == DAT_SUCCESS) {
		n++;
		k = fs_slot_of_ep(s, ev.event_data.connect_event_data.ep_handle);
		dt_dbg("echo service: %s on slot %d", dt_ev(ev.event_number),
		       k);
		if (k < 0)
			continue;
		if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED)
			fs_established(s, k);
		else if (fs_target_busy(s, k))
			s->eps[k].dead = 1;	/* freed by fs_cmd_done */
		else
			fs_drop(s, k);
	}
	while (dat_evd_dequeue(s->rcv, &ev) == DAT_SUCCESS) {
		n++;
		d = &ev.event_data.dto_completion_event_data;
		if (d->status != DAT_DTO_SUCCESS ||
		    !fs_slot(s, d->user_cookie.as_64, d->ep_handle, &e, &b))
			continue;
		fs_message(s, e, b, d->transfered_length);
	}
	while (dat_evd_dequeue(s->req, &ev) == DAT_SUCCESS) {
		n++;
		d = &ev.event_data.dto_completion_event_data;
		if (d->user_cookie.as_64 & FS_CMD_BIT)
			fs_cmd_done(s, d);
		else if (d->status == DAT_DTO_SUCCESS &&
			 fs_slot(s, d->user_cookie.as_64, d->ep_handle, &e, &b))
			fs_recv(s, e, b);
	}
	/* commands waiting for their target's ESTABLISHED */
	for (e = 0; e < FS_EPS; e++)
		if (s->eps[e].ep && s->eps[e].cmd == FS_WAIT)
			fs_cmd_start(s, e);
	return n;
}

static int fs_open(struct fserve *s, DAT_CONN_QUAL *qual)
{
	DAT_IA_HANDLE ia = s->c->ia;
	DAT_PROVIDER_ATTR pa;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR attr;
	DAT_RETURN rc;
	DAT_COUNT i;

	rc = dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, &attr,
			  DAT_PROVIDER_FIELD_ALL, &pa);
	s->max_pdata = rc == DAT_SUCCESS ? pa.max_private_data_size : 0;
	for (i = 0; rc == DAT_SUCCESS &&
		    i < pa.num_provider_specific_attr; i++)
		if (!strcmp(pa.provider_specific_attr[i].name,
			    DAT_IB_ATTR_FETCH_AND_ADD) &&
		    !strcmp(pa.provider_specific_attr[i].value, "TRUE"))
			s->atomic = 1;
	rc = dat_evd_create(ia, 256, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
			    &s->req);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(ia, 256, DAT_HANDLE_NULL,
				    DAT_EVD_DTO_FLAG, &s->rcv);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(ia, 64, DAT_HANDLE_NULL,
				    DAT_EVD_CONNECTION_FLAG, &s->conn);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(ia, 32, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
				    &s->cr);
	if (rc == DAT_SUCCESS)
		rc = dt_mem_alloc(ia, s->c->pz, &s->bufs,
				  (DAT_VLEN)FS_EPS * FS_BUFS * FS_BUF,
				  DT_PRIV_ALL);
	if (rc == DAT_SUCCESS)
		rc = dt_mem_alloc(ia, s->c->pz, &s->rdma, FS_RDMA,
				  DT_PRIV_ALL);
	if (rc == DAT_SUCCESS)
		rc = dt_mem_alloc(ia, s->c->pz, &s->scratch,
				  (DAT_VLEN)FS_EPS * FS_CMD_MAX, DT_PRIV_ALL);
	if (rc == DAT_SUCCESS)
		rc = dt_mem_alloc(ia, s->c->pz, &s->atarget, FS_ATARGET,
				  DT_PRIV_ALL | DAT_IB_MEM_PRIV_REMOTE_ATOMIC);
	if (rc == DAT_SUCCESS)
		rc = dat_psp_create_any(ia, qual, s->cr, DAT_PSP_CONSUMER_FLAG,
					&s->psp);
	if (rc != DAT_SUCCESS) {
		dt_err("echo service set-up: %s", dt_rc(rc));
		return -1;
	}
	dt_fill(s->rdma.buf, 4096, 77);
	return 0;
}

static void fs_close(struct fserve *s)
{
	unsigned e;

	if (s->psp)
		dat_psp_free(s->psp);
	for (e = 0; e < FS_EPS; e++)
		fs_drop(s, e);
	dt_mem_free(&s->bufs);
	dt_mem_free(&s->rdma);
	dt_mem_free(&s->scratch);
	dt_mem_free(&s->atarget);
	if (s->cr)
		dat_evd_free(s->cr);
	if (s->conn)
		dat_evd_free(s->conn);
	if (s->rcv)
		dat_evd_free(s->rcv);
	if (s->req)
		dat_evd_free(s->req);
}

int dt_serve_functional(struct dt_ctl *c, struct dt_hello *h)
{
	struct dt_hello ans, bye;
	struct fserve s;
	DAT_CONN_QUAL qual = 0;
	uint64_t idle_since;
	int ret = -1, got = 0;

	(void)h;
	memset(&s, 0, sizeof(s));
	s.c = c;
	dt_hello_init(&ans, DT_F);
	if (fs_open(&s, &qual)) {
		ans.status = 1;
		snprintf(ans.text, sizeof(ans.text),
			 "server: cannot set up the echo service");
		dt_ctl_send(c, &ans);
		fs_close(&s);
		return -1;
	}
	ans.data_qual = qual;
	ans.buf_addr = (uintptr_t)s.rdma.buf;
	ans.buf_len = s.rdma.len;
	ans.buf_rctx = s.rdma.rctx;
	ans.features = DT_FEAT_FS_CMD;
	if (dt_ctl_send(c, &ans)) {
		fs_close(&s);
		return -1;
	}
	idle_since = dt_now_us();
	for (;;) {
		got = dt_ctl_poll(c, &bye);
		if (got)
			break;
		if (fs_pass(&s))
			idle_since = dt_now_us();
		else if (dt_now_us() - idle_since > dt_secs(120)) {
			dt_err("echo service: the client went quiet for %d s",
			       120 * dt_scale);
			break;
		}
		else
			dt_sleep_ms(1);
	}
	dt_log("Server: echo service: %u connection(s), %u message(s) echoed, %u command(s) answered",
	       s.served, s.echoed, s.commands);
	fs_close(&s);
	if (got == 1) {
		dt_hello_init(&ans, DT_F);
		snprintf(ans.text, sizeof(ans.text), "ok");
		ret = dt_ctl_send(c, &ans);
	}
	return ret;
}
