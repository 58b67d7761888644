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
 */
#define _GNU_SOURCE
#include <string.h>

#include "dt_func.h"

#define FS_EPS		16
#define FS_BUFS		16	/* receives per connection */
#define FS_BUF		4096
#define FS_RDMA		(64 * 1024)

struct fs_ep {
	DAT_EP_HANDLE ep;
	uint16_t gen;
	int established;
	/* a message can arrive before our ESTABLISHED event (the peer's
	 * came first); its echo waits for ours: length, or -1 */
	long long pending[FS_BUFS];
};

struct fserve {
	struct dt_ctl *c;
	DAT_EVD_HANDLE req, rcv, conn, cr;
	DAT_PSP_HANDLE psp;
	struct dt_mem bufs, rdma;
	struct fs_ep eps[FS_EPS];
	unsigned served, echoed;
	DAT_COUNT max_pdata;
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
}

static void fs_echo(struct fserve *s, unsigned e, unsigned b, DAT_VLEN len)
{
	DAT_LMR_TRIPLET iov = fs_buf(s, e, b, len);
	DAT_RETURN rc;

	if (!s->eps[e].established) {
		s->eps[e].pending[b] = (long long)len;
		return;
	}
	rc = dat_ep_post_send(s->eps[e].ep, 1, &iov,
			      dt_cookie(fs_cookie(s, e, b)),
			      DAT_COMPLETION_DEFAULT_FLAG);
	if (rc == DAT_SUCCESS)
		s->echoed++;
	else
		dt_err("echo service: dat_ep_post_send: %s", dt_rc(rc));
}

static void fs_established(struct fserve *s, unsigned e)
{
	unsigned b;

	s->eps[e].established = 1;
	for (b = 0; b < FS_BUFS; b++)
		if (s->eps[e].pending[b] >= 0) {
			fs_echo(s, e, b, (DAT_VLEN)s->eps[e].pending[b]);
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
		else
			fs_drop(s, k);
	}
	while (dat_evd_dequeue(s->rcv, &ev) == DAT_SUCCESS) {
		n++;
		d = &ev.event_data.dto_completion_event_data;
		if (d->status != DAT_DTO_SUCCESS ||
		    !fs_slot(s, d->user_cookie.as_64, d->ep_handle, &e, &b))
			continue;
		fs_echo(s, e, b, d->transfered_length);
	}
	while (dat_evd_dequeue(s->req, &ev) == DAT_SUCCESS) {
		n++;
		d = &ev.event_data.dto_completion_event_data;
		if (d->status == DAT_DTO_SUCCESS &&
		    fs_slot(s, d->user_cookie.as_64, d->ep_handle, &e, &b))
			fs_recv(s, e, b);
	}
	return n;
}

static int fs_open(struct fserve *s, DAT_CONN_QUAL *qual)
{
	DAT_IA_HANDLE ia = s->c->ia;
	DAT_PROVIDER_ATTR pa;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR attr;
	DAT_RETURN rc;

	rc = dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, &attr,
			  DAT_PROVIDER_FIELD_ALL, &pa);
	s->max_pdata = rc == DAT_SUCCESS ? pa.max_private_data_size : 0;
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
	dt_log("Server: echo service: %u connection(s), %u message(s) echoed",
	       s.served, s.echoed);
	fs_close(&s);
	if (got == 1) {
		dt_hello_init(&ans, DT_F);
		snprintf(ans.text, sizeof(ans.text), "ok");
		ret = dt_ctl_send(c, &ans);
	}
	return ret;
}
