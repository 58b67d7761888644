/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_dto.c - data transfer: send/recv from 1 B to 1 MiB, RDMA write and
 * read (single and multi-segment) with the sync calls, multi-segment
 * send/recv up to the advertised segment count, shared LMRs
 * (DAT_MEM_TYPE_LMR), the completion flags, and flushing of outstanding
 * DTOs on disconnect.  Every byte is checked.
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define PRIV_LOCAL (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define ANY_LEN ((DAT_VLEN)-1)

static DAT_LMR_TRIPLET one_iov;

static DAT_RETURN post_send1(DAT_EP_HANDLE ep, const struct vt_mem *m,
			     DAT_VLEN off, DAT_VLEN len, uint64_t cookie,
			     DAT_COMPLETION_FLAGS flags)
{
	one_iov = vt_iov(m, off, len);
	return dat_ep_post_send(ep, 1, &one_iov, vt_cookie(cookie), flags);
}

static DAT_RETURN post_recv1(DAT_EP_HANDLE ep, const struct vt_mem *m,
			     DAT_VLEN off, DAT_VLEN len, uint64_t cookie)
{
	one_iov = vt_iov(m, off, len);
	return dat_ep_post_recv(ep, 1, &one_iov, vt_cookie(cookie),
				DAT_COMPLETION_DEFAULT_FLAG);
}

/* server: psp_any, one CR, an EP with attributes a, the receives posted
 * by pre() before the accept */
static DAT_EP_HANDLE serve(struct vt *v, const DAT_EP_ATTR *a,
			   DAT_PSP_HANDLE *psp,
			   void (*pre)(struct vt *, DAT_EP_HANDLE, void *),
			   void *arg)
{
	DAT_CONN_QUAL qual = 0;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;

	*psp = vt_psp(v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(v, &ev);
	ep = vt_ep(v, a);
	if (pre)
		pre(v, ep, arg);
	vt_accept(v, cr, ep, NULL, 0);
	return ep;
}

static void serve_end(struct vt *v, DAT_EP_HANDLE ep, DAT_PSP_HANDLE psp)
{
	vt_wait_disconnected(v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
}

static void client_end(struct vt *v, DAT_EP_HANDLE ep)
{
	vt_disconnect(v, ep);
	vt_ep_free(ep);
}

/* ---- send/recv, 1 B to 1 MiB, echoed ---------------------------------- */

static const DAT_VLEN sr_sizes[] = { 1, 4096, 65536, 1 << 20 };
#define SR_N (sizeof(sr_sizes) / sizeof(sr_sizes[0]))
#define SR_MAX (1 << 20)
#define SENTINEL 0xEE

static void sr_post_recv(DAT_EP_HANDLE ep, struct vt_mem *m, size_t i,
			 uint64_t base)
{
	memset(m->buf, SENTINEL, sr_sizes[i] + 64);
	vt_must("dat_ep_post_recv", post_recv1(ep, m, 0, SR_MAX, base + i));
}

static void sr_check(const char *who, struct vt_mem *m, size_t i)
{
	char what[80];

	snprintf(what, sizeof(what), "%s: %llu-byte message", who,
		 (unsigned long long)sr_sizes[i]);
	vt_check(what, m->buf, sr_sizes[i], 10 + i);
	if (m->buf[sr_sizes[i]] != SENTINEL)
		vt_fail("%s: byte after the message overwritten", what);
}

static void sr_pre(struct vt *v, DAT_EP_HANDLE ep, void *arg)
{
	(void)v;
	sr_post_recv(ep, arg, 0, 0x100);
}

static int sendrecv_server(const struct vt_opts *o)
{
	struct vt_mem rbuf, sbuf;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;
	size_t i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &rbuf, SR_MAX + 64, PRIV_LOCAL);
	vt_mem_alloc(&v, &sbuf, SR_MAX, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	ep = serve(&v, &a, &psp, sr_pre, &rbuf);
	for (i = 0; i < SR_N; i++) {
		vt_expect_dto("receive", v.rcv_evd, ep, 0x100 + i,
			      DAT_DTO_SUCCESS, sr_sizes[i]);
		sr_check("server", &rbuf, i);
		memcpy(sbuf.buf, rbuf.buf, sr_sizes[i]);
		if (i + 1 < SR_N)
			sr_post_recv(ep, &rbuf, i + 1, 0x100);
		vt_must("dat_ep_post_send(echo)",
			post_send1(ep, &sbuf, 0, sr_sizes[i], 0x200 + i,
				   DAT_COMPLETION_DEFAULT_FLAG));
		vt_expect_dto("echo send", v.req_evd, ep, 0x200 + i,
			      DAT_DTO_SUCCESS, sr_sizes[i]);
	}
	serve_end(&v, ep, psp);
	vt_mem_free(&rbuf);
	vt_mem_free(&sbuf);
	vt_close(&v);
	return 0;
}

static int sendrecv_client(const struct vt_opts *o)
{
	struct vt_mem rbuf, sbuf;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;
	uint64_t t0;
	size_t i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &rbuf, SR_MAX + 64, PRIV_LOCAL);
	vt_mem_alloc(&v, &sbuf, SR_MAX, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	sr_post_recv(ep, &rbuf, 0, 0x300);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	for (i = 0; i < SR_N; i++) {
		t0 = vt_now_us();
		vt_fill(sbuf.buf, sr_sizes[i], 10 + i);
		vt_must("dat_ep_post_send",
			post_send1(ep, &sbuf, 0, sr_sizes[i], 0x400 + i,
				   DAT_COMPLETION_DEFAULT_FLAG));
		vt_expect_dto("send", v.req_evd, ep, 0x400 + i,
			      DAT_DTO_SUCCESS, sr_sizes[i]);
		vt_expect_dto("echo receive", v.rcv_evd, ep, 0x300 + i,
			      DAT_DTO_SUCCESS, sr_sizes[i]);
		sr_check("client (echo)", &rbuf, i);
		vt_note("%llu bytes there and back in %.1f ms",
			(unsigned long long)sr_sizes[i],
			(vt_now_us() - t0) / 1e3);
		if (i + 1 < SR_N)
			sr_post_recv(ep, &rbuf, i + 1, 0x300);
	}
	client_end(&v, ep);
	vt_mem_free(&rbuf);
	vt_mem_free(&sbuf);
	vt_close(&v);
	return 0;
}

/* ---- rounds of echo-then-disconnect, 1 MiB ------------------------------ */

/*
 * Each round a new connection: the client sends 1 MiB, the server echoes
 * it, the client disconnects as soon as its echo arrived.  The server's
 * echo must complete as sent: the peer received it before it
 * disconnected (on verbs its ack precedes the DREQ; over libfabric the
 * sender's completion may come after the peer's disconnect).
 */
#define ECHO_ROUNDS 20
#define ECHO_LEN (1 << 20)

static int echo_rounds(const struct vt_opts *o)
{
	return o->count > 0 ? o->count : ECHO_ROUNDS;
}

static int echo_server(const struct vt_opts *o)
{
	struct vt_mem rbuf, sbuf;
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	DAT_CR_HANDLE cr;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	struct vt v;
	int r, n = echo_rounds(o);

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &rbuf, ECHO_LEN, PRIV_LOCAL);
	vt_mem_alloc(&v, &sbuf, ECHO_LEN, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	for (r = 0; r < n; r++) {
		cr = vt_wait_cr(&v, &ev);
		ep = vt_ep(&v, &a);
		vt_must("dat_ep_post_recv",
			post_recv1(ep, &rbuf, 0, ECHO_LEN, 0x100 + r));
		vt_accept(&v, cr, ep, NULL, 0);
		vt_expect_dto("receive", v.rcv_evd, ep, 0x100 + r,
			      DAT_DTO_SUCCESS, ECHO_LEN);
		vt_check("server: round's message", rbuf.buf, ECHO_LEN, 20 + r);
		memcpy(sbuf.buf, rbuf.buf, ECHO_LEN);
		vt_must("dat_ep_post_send(echo)",
			post_send1(ep, &sbuf, 0, ECHO_LEN, 0x200 + r,
				   DAT_COMPLETION_DEFAULT_FLAG));
		vt_expect_dto("echo send (the client received it)", v.req_evd,
			      ep, 0x200 + r, DAT_DTO_SUCCESS, ECHO_LEN);
		vt_wait_disconnected(&v, ep);
		vt_ep_free(ep);
	}
	vt_note("%d rounds", n);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&rbuf);
	vt_mem_free(&sbuf);
	vt_close(&v);
	return 0;
}

static int echo_client(const struct vt_opts *o)
{
	struct vt_mem rbuf, sbuf;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;
	int r, n = echo_rounds(o);

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &rbuf, ECHO_LEN, PRIV_LOCAL);
	vt_mem_alloc(&v, &sbuf, ECHO_LEN, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	for (r = 0; r < n; r++) {
		ep = vt_ep(&v, &a);
		vt_must("dat_ep_post_recv",
			post_recv1(ep, &rbuf, 0, ECHO_LEN, 0x300 + r));
		vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
		vt_fill(sbuf.buf, ECHO_LEN, 20 + r);
		vt_must("dat_ep_post_send",
			post_send1(ep, &sbuf, 0, ECHO_LEN, 0x400 + r,
				   DAT_COMPLETION_DEFAULT_FLAG));
		vt_expect_dto("send", v.req_evd, ep, 0x400 + r,
			      DAT_DTO_SUCCESS, ECHO_LEN);
		vt_expect_dto("echo receive", v.rcv_evd, ep, 0x300 + r,
			      DAT_DTO_SUCCESS, ECHO_LEN);
		vt_check("client: echo", rbuf.buf, ECHO_LEN, 20 + r);
		/* at once: the server's send may not have completed yet */
		client_end(&v, ep);
	}
	vt_mem_free(&rbuf);
	vt_mem_free(&sbuf);
	vt_close(&v);
	return 0;
}

/* ---- RDMA write and read, the sync calls -------------------------------- */

#define RD_TGT (256 << 10)
#define K64 (64 << 10)

static void one_ctl(struct vt *v, DAT_EP_HANDLE ep, void *arg)
{
	(void)arg;
	vt_ctl_post(v, ep);
}

static void send_target(struct vt *v, DAT_EP_HANDLE ep, const char *tag,
			const struct vt_mem *m, DAT_VLEN off, DAT_VLEN len,
			DAT_RMR_CONTEXT rctx)
{
	struct vt_msg msg;

	vt_msg_init(&msg, tag);
	msg.addr = (uintptr_t)(m->buf + off);
	msg.len = len;
	msg.rmr_context = rctx;
	vt_ctl_send(v, ep, &msg, DAT_COMPLETION_DEFAULT_FLAG);
}

static void sync_write(struct vt *v, struct vt_mem *m, DAT_VLEN off,
		       DAT_VLEN len)
{
	DAT_LMR_TRIPLET t = vt_iov(m, off, len);

	vt_expect("dat_lmr_sync_rdma_write", dat_lmr_sync_rdma_write(v->ia,
								      &t, 1),
		  DAT_SUCCESS);
}

static void sync_read(struct vt *v, struct vt_mem *m, DAT_VLEN off,
		      DAT_VLEN len)
{
	DAT_LMR_TRIPLET t = vt_iov(m, off, len);

	vt_expect("dat_lmr_sync_rdma_read", dat_lmr_sync_rdma_read(v->ia,
								    &t, 1),
		  DAT_SUCCESS);
}

/* the 3-segment write: lengths, and where the segments come from */
#define W3_A 1000
#define W3_B 30000
#define W3_C 4096
#define W3_LEN (W3_A + W3_B + W3_C)

static int rdma_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, RD_TGT, DAT_MEM_PRIV_ALL_FLAG);
	vt_ep_attr(&v, &a);
	ep = serve(&v, &a, &psp, one_ctl, NULL);
	send_target(&v, ep, "target", &tgt, 0, RD_TGT, tgt.rctx);
	vt_ctl_recv(&v, ep, &m, "written", 0);
	vt_ctl_post(&v, ep);
	sync_write(&v, &tgt, 0, RD_TGT);
	vt_check("RDMA write, 1 segment of 64 KiB", tgt.buf, K64, 21);
	vt_check("RDMA write, 3 segments", tgt.buf + 2 * K64, W3_LEN, 22);

	vt_fill(tgt.buf, K64, 23);
	vt_fill(tgt.buf + K64, K64, 24);
	sync_read(&v, &tgt, 0, 2 * K64);
	vt_msg_init(&m, "filled");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&v, ep, &m, "read-done", 0);
	serve_end(&v, ep, psp);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

static void rdma_writes(struct vt *v, DAT_EP_HANDLE ep, const struct vt_msg *t,
			struct vt_mem *l1, struct vt_mem *l2)
{
	DAT_LMR_TRIPLET iov[3];
	DAT_RMR_TRIPLET r;

	vt_fill(l1->buf, K64, 21);
	iov[0] = vt_iov(l1, 0, K64);
	r = vt_riov(t, 0, K64);
	vt_expect("dat_ep_post_rdma_write(1 segment)",
		  dat_ep_post_rdma_write(ep, 1, iov, vt_cookie(0x31), &r,
					 DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("RDMA write", v->req_evd, ep, 0x31, DAT_DTO_SUCCESS, K64);

	/* one stream of pattern 22 from three places in two LMRs */
	vt_fill_at(l1->buf + K64, W3_A, 22, 0);
	vt_fill_at(l2->buf, W3_B, 22, W3_A);
	vt_fill_at(l1->buf + 100000, W3_C, 22, W3_A + W3_B);
	iov[0] = vt_iov(l1, K64, W3_A);
	iov[1] = vt_iov(l2, 0, W3_B);
	iov[2] = vt_iov(l1, 100000, W3_C);
	r = vt_riov(t, 2 * K64, W3_LEN);
	vt_expect("dat_ep_post_rdma_write(3 segments)",
		  dat_ep_post_rdma_write(ep, 3, iov, vt_cookie(0x32), &r,
					 DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("RDMA write (3 segments)", v->req_evd, ep, 0x32,
		      DAT_DTO_SUCCESS, W3_LEN);
}

static void rdma_reads(struct vt *v, DAT_EP_HANDLE ep, const struct vt_msg *t,
		       struct vt_mem *l1, struct vt_mem *l2)
{
	DAT_LMR_TRIPLET iov[2];
	DAT_RMR_TRIPLET r;

	memset(l1->buf, 0, l1->len);
	memset(l2->buf, 0, l2->len);
	iov[0] = vt_iov(l1, 0, K64);
	r = vt_riov(t, 0, K64);
	vt_expect("dat_ep_post_rdma_read(1 segment)",
		  dat_ep_post_rdma_read(ep, 1, iov, vt_cookie(0x33), &r,
					DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("RDMA read", v->req_evd, ep, 0x33, DAT_DTO_SUCCESS, K64);
	vt_check("RDMA read, 1 segment of 64 KiB", l1->buf, K64, 23);

	iov[0] = vt_iov(l2, 0, K64 / 2);
	iov[1] = vt_iov(l1, K64, K64 / 2);
	r = vt_riov(t, K64, K64);
	vt_expect("dat_ep_post_rdma_read(2 segments)",
		  dat_ep_post_rdma_read(ep, 2, iov, vt_cookie(0x34), &r,
					DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("RDMA read (2 segments)", v->req_evd, ep, 0x34,
		      DAT_DTO_SUCCESS, K64);
	vt_check_at("RDMA read, segment 1", l2->buf, K64 / 2, 24, 0);
	vt_check_at("RDMA read, segment 2", l1->buf + K64, K64 / 2, 24,
		    K64 / 2);
}

static int rdma_client(const struct vt_opts *o)
{
	struct vt_mem l1, l2;
	struct vt_msg t, m;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l1, 2 * K64, PRIV_LOCAL);
	vt_mem_alloc(&v, &l2, K64, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &t, "target", 0);
	vt_ctl_post(&v, ep);
	rdma_writes(&v, ep, &t, &l1, &l2);
	vt_msg_init(&m, "written");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&v, ep, &m, "filled", 0);
	rdma_reads(&v, ep, &t, &l1, &l2);
	vt_msg_init(&m, "read-done");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	client_end(&v, ep);
	vt_mem_free(&l1);
	vt_mem_free(&l2);
	vt_close(&v);
	return 0;
}

/* ---- multi-segment send/recv, up to the advertised segment count ------- */

static int ms_n(const struct vt *v)
{
	int n = v->ia_attr.max_iov_segments_per_dto;

	return n > 32 ? 32 : n;
}

/* segment k of a layout: length, and where it lives (two LMRs, spaced) */
static DAT_VLEN ms_len(int n, int k, int reversed)
{
	return 300 + 17 * (reversed ? n - 1 - k : k);
}

static DAT_VLEN ms_total(int n)
{
	DAT_VLEN t = 0;
	int k;

	for (k = 0; k < n; k++)
		t += ms_len(n, k, 0);
	return t;
}

static void ms_iov(DAT_LMR_TRIPLET *iov, int n, int reversed,
		   struct vt_mem *m0, struct vt_mem *m1)
{
	int k;

	for (k = 0; k < n; k++)
		iov[k] = vt_iov(k & 1 ? m1 : m0, 1024 * k,
				ms_len(n, k, reversed));
}

static void ms_fill(DAT_LMR_TRIPLET *iov, int n, uint32_t seed)
{
	size_t at = 0;
	int k;

	for (k = 0; k < n; k++) {
		vt_fill_at((void *)(uintptr_t)iov[k].virtual_address,
			   iov[k].segment_length, seed, at);
		at += iov[k].segment_length;
	}
}

static void ms_check(const char *who, DAT_LMR_TRIPLET *iov, int n,
		     uint32_t seed)
{
	size_t at = 0;
	char what[80];
	int k, bad = vt_failures;

	for (k = 0; k < n; k++) {
		snprintf(what, sizeof(what), "%s segment %d", who, k);
		if (!vt_check_at(what, (void *)(uintptr_t)iov[k]
					.virtual_address,
				 iov[k].segment_length, seed, at))
			break;
		at += iov[k].segment_length;
	}
	if (bad == vt_failures)
		vt_note("ok %s: %d segments, %zu bytes", who, n, at);
}

static void ms_attr(const struct vt *v, DAT_EP_ATTR *a)
{
	vt_ep_attr(v, a);
	a->max_recv_iov = ms_n(v);
	a->max_request_iov = ms_n(v);
}

struct ms_bufs {
	struct vt_mem m0, m1;
	DAT_LMR_TRIPLET iov[32];
	int n;
};

static void ms_pre(struct vt *v, DAT_EP_HANDLE ep, void *arg)
{
	struct ms_bufs *b = arg;

	(void)v;
	vt_expect("dat_ep_post_recv(n segments)",
		  dat_ep_post_recv(ep, b->n, b->iov, vt_cookie(0x41),
				   DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
}

static void ms_alloc(struct vt *v, struct ms_bufs *b, int reversed)
{
	b->n = ms_n(v);
	vt_note("segments per DTO: %d (IA max_iov_segments_per_dto %d)", b->n,
		v->ia_attr.max_iov_segments_per_dto);
	vt_mem_alloc(v, &b->m0, 32 * 1024, PRIV_LOCAL);
	vt_mem_alloc(v, &b->m1, 32 * 1024, PRIV_LOCAL);
	ms_iov(b->iov, b->n, reversed, &b->m0, &b->m1);
}

static void ms_free(struct ms_bufs *b)
{
	vt_mem_free(&b->m0);
	vt_mem_free(&b->m1);
}

static int multiseg_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	struct ms_bufs b;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	ms_alloc(&v, &b, 0);
	ms_attr(&v, &a);
	ep = serve(&v, &a, &psp, ms_pre, &b);
	vt_expect_dto("n-segment receive", v.rcv_evd, ep, 0x41,
		      DAT_DTO_SUCCESS, ms_total(b.n));
	ms_check("server receive", b.iov, b.n, 31);
	/* send it back from the very segments it landed in */
	vt_expect("dat_ep_post_send(n segments)",
		  dat_ep_post_send(ep, b.n, b.iov, vt_cookie(0x42),
				   DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("n-segment send", v.req_evd, ep, 0x42, DAT_DTO_SUCCESS,
		      ms_total(b.n));
	serve_end(&v, ep, psp);
	ms_free(&b);
	vt_close(&v);
	return 0;
}

static int multiseg_client(const struct vt_opts *o)
{
	struct ms_bufs s, r;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	ms_alloc(&v, &s, 1);
	ms_alloc(&v, &r, 1);
	ms_attr(&v, &a);
	ep = vt_ep(&v, &a);
	ms_pre(&v, ep, &r);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	ms_fill(s.iov, s.n, 31);
	vt_expect("dat_ep_post_send(n segments)",
		  dat_ep_post_send(ep, s.n, s.iov, vt_cookie(0x43),
				   DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("n-segment send", v.req_evd, ep, 0x43, DAT_DTO_SUCCESS,
		      ms_total(s.n));
	vt_expect_dto("n-segment receive", v.rcv_evd, ep, 0x41,
		      DAT_DTO_SUCCESS, ms_total(r.n));
	ms_check("client receive", r.iov, r.n, 31);
	client_end(&v, ep);
	ms_free(&s);
	ms_free(&r);
	vt_close(&v);
	return 0;
}

/* ---- shared LMRs (DAT_MEM_TYPE_LMR) ----------------------------------- */

/* b shares a's registration; checks what dat_lmr_query says of it */
static void share(struct vt *v, struct vt_mem *a, struct vt_mem *b,
		  DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_PARAM p;

	*b = *a;
	b->buf = a->buf;
	r.for_lmr_handle = a->lmr;
	vt_must("dat_lmr_create(DAT_MEM_TYPE_LMR)",
		dat_lmr_create(v->ia, DAT_MEM_TYPE_LMR, r, a->len, v->pz,
			       priv, &b->lmr, &b->lctx,
			       &b->rctx, &b->reg_len, &b->reg_addr));
	vt_note("shared LMR: lmr_context 0x%x rmr_context 0x%x (original 0x%x 0x%x)",
		b->lctx, b->rctx, a->lctx, a->rctx);
	memset(&p, 0, sizeof(p));
	vt_must("dat_lmr_query(shared)",
		dat_lmr_query(b->lmr, DAT_LMR_FIELD_ALL, &p));
	vt_expect_ptr("lmr_param.ia_handle", p.ia_handle, v->ia);
	vt_expect_u64("lmr_param.mem_type", p.mem_type, DAT_MEM_TYPE_LMR);
	vt_expect_ptr("lmr_param.region_desc.for_lmr_handle",
		      p.region_desc.for_lmr_handle, a->lmr);
	vt_expect_u64("lmr_param.length", p.length, a->len);
	vt_expect_ptr("lmr_param.pz_handle", p.pz_handle, v->pz);
	vt_expect_u64("lmr_param.lmr_context", p.lmr_context, b->lctx);
	vt_expect_u64("lmr_param.rmr_context", p.rmr_context, b->rctx);
	vt_expect_u64("lmr_param.registered_address", p.registered_address,
		      a->reg_addr);
	vt_expect_u64("lmr_param.registered_size", p.registered_size,
		      a->reg_len);
}

/* frees a shared LMR (the buffer belongs to the original) */
static void unshare(struct vt_mem *b)
{
	vt_expect("dat_lmr_free(shared)", dat_lmr_free(b->lmr), DAT_SUCCESS);
	memset(b, 0, sizeof(*b));
}

struct sh_bufs {
	struct vt_mem a, b;
};

static void sh_pre(struct vt *v, DAT_EP_HANDLE ep, void *arg)
{
	struct sh_bufs *s = arg;

	vt_must("dat_ep_post_recv(shared LMR)",
		post_recv1(ep, &s->b, 0, 8192, 0x51));
	vt_ctl_post(v, ep);
}

static int shared_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	struct sh_bufs s;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &s.a, K64, DAT_MEM_PRIV_ALL_FLAG);
	share(&v, &s.a, &s.b, DAT_MEM_PRIV_ALL_FLAG);
	ep = serve(&v, NULL, &psp, sh_pre, &s);
	vt_expect_dto("receive into the shared LMR", v.rcv_evd, ep, 0x51,
		      DAT_DTO_SUCCESS, 8192);
	vt_check("received through the shared LMR", s.a.buf, 8192, 41);
	send_target(&v, ep, "target", &s.a, 16384, 16384, s.b.rctx);
	vt_ctl_recv(&v, ep, &m, "written", 0);
	sync_write(&v, &s.b, 16384, 16384);
	vt_check("RDMA-written through the shared LMR's rmr_context",
		 s.a.buf + 16384, 16384, 42);
	serve_end(&v, ep, psp);
	unshare(&s.b);
	vt_mem_free(&s.a);
	vt_close(&v);
	return 0;
}

static int shared_client(const struct vt_opts *o)
{
	struct vt_mem c, d;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	DAT_EP_HANDLE ep;
	struct vt_msg t, m;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &c, 32768, PRIV_LOCAL);
	share(&v, &c, &d, PRIV_LOCAL);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_fill(c.buf, 8192, 41);
	vt_must("dat_ep_post_send(shared LMR)",
		post_send1(ep, &d, 0, 8192, 0x52,
			   DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect_dto("send from the shared LMR", v.req_evd, ep, 0x52,
		      DAT_DTO_SUCCESS, 8192);
	vt_ctl_recv(&v, ep, &t, "target", 0);
	vt_fill(c.buf + 8192, 16384, 42);
	iov = vt_iov(&d, 8192, 16384);
	r = vt_riov(&t, 0, 16384);
	vt_expect("dat_ep_post_rdma_write(shared LMRs)",
		  dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(0x53), &r,
					 DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("RDMA write from the shared LMR", v.req_evd, ep, 0x53,
		      DAT_DTO_SUCCESS, 16384);
	vt_msg_init(&m, "written");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	client_end(&v, ep);
	unshare(&d);
	vt_mem_free(&c);
	vt_close(&v);
	return 0;
}

/*
 * shared-lmr-priv: a shared LMR asking for rights its original lacks is
 * refused (DAT_PRIVILEGES_VIOLATION), in the same PZ and in another; a
 * subset of the original's rights is granted, with an rmr_context only
 * where remote rights are asked for.
 */
#define PRIV_VIOLATION \
	((DAT_RETURN)(DAT_CLASS_ERROR | DAT_PRIVILEGES_VIOLATION))

static int shared_priv_local(const struct vt_opts *o)
{
	const DAT_MEM_PRIV_FLAGS rread =
		DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
		DAT_MEM_PRIV_REMOTE_READ_FLAG;
	static const struct {
		const char *what;
		DAT_MEM_PRIV_FLAGS orig, ask;
		int other_pz;
		DAT_RETURN want;
	} rows[] = {
		{ "remote write over a local-only LMR", PRIV_LOCAL,
		  PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 0,
		  PRIV_VIOLATION },
		{ "remote read over a local-only LMR, another PZ", PRIV_LOCAL,
		  PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_READ_FLAG, 1,
		  PRIV_VIOLATION },
		{ "remote write over a remote-read LMR", 0,
		  DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 0, PRIV_VIOLATION },
		{ "local write over a read-only LMR",
		  DAT_MEM_PRIV_LOCAL_READ_FLAG,
		  DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 0, PRIV_VIOLATION },
		{ "the same rights", PRIV_LOCAL, PRIV_LOCAL, 0, DAT_SUCCESS },
		{ "remote read of a remote-read LMR", 0, rread, 0,
		  DAT_SUCCESS },
		{ "a subset, another PZ", 0, DAT_MEM_PRIV_LOCAL_READ_FLAG, 1,
		  DAT_SUCCESS },
	};
	DAT_PZ_HANDLE pz2;
	struct vt v;
	size_t i;

	vt_open(&v, o->ia_name);
	vt_must("dat_pz_create(second PZ)", dat_pz_create(v.ia, &pz2));
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		DAT_MEM_PRIV_FLAGS orig = rows[i].orig ? rows[i].orig : rread;
		DAT_REGION_DESCRIPTION r;
		DAT_LMR_HANDLE lmr = NULL;
		DAT_LMR_CONTEXT lctx;
		DAT_RMR_CONTEXT rctx = 0xdeadbeef;
		DAT_VLEN len;
		DAT_VADDR addr;
		struct vt_mem a;
		DAT_RETURN rc;

		vt_mem_alloc(&v, &a, 8192, orig);
		r.for_lmr_handle = a.lmr;
		rc = dat_lmr_create(v.ia, DAT_MEM_TYPE_LMR, r, a.len,
				    rows[i].other_pz ? pz2 : v.pz, rows[i].ask,
				    &lmr, &lctx, &rctx, &len, &addr);
		if (vt_expect(rows[i].what, rc, rows[i].want) &&
		    rc == DAT_SUCCESS) {
			vt_expect_u64("rmr_context only with remote rights",
				      rctx != 0,
				      (rows[i].ask &
				       (DAT_MEM_PRIV_REMOTE_READ_FLAG |
					DAT_MEM_PRIV_REMOTE_WRITE_FLAG)) != 0);
			vt_expect("dat_lmr_free(shared)", dat_lmr_free(lmr),
				  DAT_SUCCESS);
		}
		vt_mem_free(&a);
	}
	vt_expect("dat_pz_free(second PZ)", dat_pz_free(pz2), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

/* ---- completion flags ------------------------------------------------- */

/*
 * The server's EP takes receives with SOLICITED_WAIT: its waiter wakes
 * only for solicited sends, so the unsolicited ones are polled for.
 */
static void fl_pre(struct vt *v, DAT_EP_HANDLE ep, void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 5; i++)
		vt_ctl_post(v, ep);
}

static int flags_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, 4096, DAT_MEM_PRIV_ALL_FLAG);
	vt_ep_attr(&v, &a);
	a.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	ep = serve(&v, &a, &psp, fl_pre, NULL);
	send_target(&v, ep, "target", &tgt, 0, 4096, tgt.rctx);
	vt_ctl_recv(&v, ep, &m, "S1-suppressed", 1);
	vt_ctl_recv(&v, ep, &m, "S2-default", 1);
	/* S3 is unsolicited, S4 solicited: a blocked waiter wakes for S4 */
	vt_ctl_recv(&v, ep, &m, "S3-unsolicited", 0);
	vt_ctl_recv(&v, ep, &m, "S4-solicited", 0);
	vt_ctl_recv(&v, ep, &m, "S5-fenced", 0);
	sync_write(&v, &tgt, 0, 4096);
	vt_check("target written before the fenced send", tgt.buf, 4096, 51);
	serve_end(&v, ep, psp);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

static void fl_msg(struct vt_mem *m, int k, const char *tag)
{
	struct vt_msg msg;

	vt_msg_init(&msg, tag);
	memcpy(m->buf + k * sizeof(msg), &msg, sizeof(msg));
}

static DAT_RETURN fl_send(DAT_EP_HANDLE ep, struct vt_mem *m, int k,
			  const char *tag, DAT_COMPLETION_FLAGS flags)
{
	fl_msg(m, k, tag);
	return post_send1(ep, m, k * sizeof(struct vt_msg),
			  sizeof(struct vt_msg), 0x60 + k, flags);
}

#define MSG sizeof(struct vt_msg)

static void fl_fence(struct vt *v, DAT_EP_HANDLE ep, const struct vt_msg *t,
		     struct vt_mem *msgs, struct vt_mem *l)
{
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r = vt_riov(t, 0, 4096);

	vt_fill(l->buf, 4096, 51);
	iov = vt_iov(l, 0, 4096);
	vt_must("dat_ep_post_rdma_write",
		dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(0x66), &r,
				       DAT_COMPLETION_DEFAULT_FLAG));
	iov = vt_iov(l, 4096, 4096);
	vt_must("dat_ep_post_rdma_read",
		dat_ep_post_rdma_read(ep, 1, &iov, vt_cookie(0x67), &r,
				      DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect("dat_ep_post_send(BARRIER_FENCE|SOLICITED_WAIT)",
		  fl_send(ep, msgs, 8, "S5-fenced",
			  DAT_COMPLETION_BARRIER_FENCE_FLAG |
			  DAT_COMPLETION_SOLICITED_WAIT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("RDMA write", v->req_evd, ep, 0x66, DAT_DTO_SUCCESS,
		      4096);
	vt_expect_dto("RDMA read", v->req_evd, ep, 0x67, DAT_DTO_SUCCESS,
		      4096);
	vt_expect_dto("fenced send", v->req_evd, ep, 0x68, DAT_DTO_SUCCESS,
		      MSG);
	vt_check("RDMA read back what the write wrote", l->buf + 4096, 4096,
		 51);
}

static int flags_client(const struct vt_opts *o)
{
	struct vt_mem msgs, l;
	DAT_EP_HANDLE ep;
	struct vt_msg t;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &msgs, 16 * MSG, PRIV_LOCAL);
	vt_mem_alloc(&v, &l, 8192, PRIV_LOCAL);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ep, &t, "target", 0);

	vt_expect("dat_ep_post_send(SUPPRESS)",
		  fl_send(ep, &msgs, 1, "S1-suppressed",
			  DAT_COMPLETION_SUPPRESS_FLAG),
		  DAT_SUCCESS);
	vt_expect("dat_ep_post_send(DEFAULT)",
		  fl_send(ep, &msgs, 2, "S2-default",
			  DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("the DEFAULT send (first event: SUPPRESS gives none)",
		      v.req_evd, ep, 0x62, DAT_DTO_SUCCESS, MSG);
	vt_expect_empty("no event for the suppressed send", v.req_evd);

	vt_expect_type("dat_ep_post_send(UNSIGNALLED) on a DEFAULT EP",
		       fl_send(ep, &msgs, 3, "never",
			       DAT_COMPLETION_UNSIGNALLED_FLAG),
		       DAT_INVALID_PARAMETER);

	vt_expect("dat_ep_post_send(unsolicited)",
		  fl_send(ep, &msgs, 4, "S3-unsolicited",
			  DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect("dat_ep_post_send(SOLICITED_WAIT)",
		  fl_send(ep, &msgs, 5, "S4-solicited",
			  DAT_COMPLETION_SOLICITED_WAIT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("unsolicited send", v.req_evd, ep, 0x64, DAT_DTO_SUCCESS,
		      MSG);
	vt_expect_dto("solicited send", v.req_evd, ep, 0x65, DAT_DTO_SUCCESS,
		      MSG);

	fl_fence(&v, ep, &t, &msgs, &l);
	vt_expect_empty("request EVD at the end", v.req_evd);
	client_end(&v, ep);
	vt_mem_free(&msgs);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

/* ---- disconnect with DTOs outstanding: flushed ------------------------ */

#define FL_SRV 8
#define FL_CLI 4

static void fill_recvs(struct vt *v, DAT_EP_HANDLE ep, void *arg)
{
	struct vt_mem *m = arg;
	int i;

	(void)v;
	for (i = 0; i < FL_SRV; i++)
		vt_must("dat_ep_post_recv",
			post_recv1(ep, m, 256 * i, 256, 0x700 + i));
}

static void expect_flushed(struct vt *v, DAT_EP_HANDLE ep, int n,
			   uint64_t base)
{
	DAT_EP_STATE st;
	DAT_BOOLEAN ri = DAT_FALSE, qi = DAT_FALSE;
	char what[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "outstanding receive %d", i);
		vt_expect_dto(what, v->rcv_evd, ep, base + i,
			      DAT_DTO_ERR_FLUSHED, ANY_LEN);
	}
	vt_expect_empty("receive EVD after the flush", v->rcv_evd);
	vt_must("dat_ep_get_status", dat_ep_get_status(ep, &st, &ri, &qi));
	vt_expect_u64("state after the flush", st, DAT_EP_STATE_DISCONNECTED);
	vt_expect_true("recv_idle after the flush", ri == DAT_TRUE);
	vt_expect_true("request_idle after the flush", qi == DAT_TRUE);
}

static int flush_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	DAT_EP_ATTR a;
	struct vt_mem m;
	DAT_EP_HANDLE ep;
	struct vt_msg msg;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 256 * FL_SRV, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	ep = serve(&v, &a, &psp, fill_recvs, &m);
	vt_msg_init(&msg, "ready");
	vt_ctl_send(&v, ep, &msg, DAT_COMPLETION_DEFAULT_FLAG);
	vt_wait_disconnected(&v, ep);
	expect_flushed(&v, ep, FL_SRV, 0x700);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

static int flush_client(const struct vt_opts *o)
{
	DAT_EP_ATTR a;
	struct vt_mem m;
	DAT_EP_HANDLE ep;
	struct vt_msg msg;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 256 * FL_CLI + 256, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	vt_ctl_post(&v, ep);
	for (i = 0; i < FL_CLI; i++)
		vt_must("dat_ep_post_recv",
			post_recv1(ep, &m, 256 * i, 256, 0x800 + i));
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	vt_ctl_recv(&v, ep, &msg, "ready", 0);
	vt_expect("dat_ep_disconnect(ABRUPT) with receives outstanding",
		  dat_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	vt_wait_disconnected(&v, ep);
	expect_flushed(&v, ep, FL_CLI, 0x800);

	/* a send posted to a DISCONNECTED EP is flushed at once */
	vt_expect("dat_ep_post_send(DISCONNECTED EP)",
		  post_send1(ep, &m, 256 * FL_CLI, 64, 0x900,
			     DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	vt_expect_dto("send posted after the disconnect", v.req_evd, ep, 0x900,
		      DAT_DTO_ERR_FLUSHED, ANY_LEN);
	vt_ep_free(ep);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

/*
 * The client frees its EP while connected, with receives outstanding:
 * dat_ep_free disconnects abruptly (no event on its own side, its
 * completions dropped); the server, as for dat_ep_disconnect(ABRUPT),
 * sees DISCONNECTED, not BROKEN, and every receive it posted completes
 * FLUSHED (flush_server).
 */
static int flush_free_client(const struct vt_opts *o)
{
	DAT_EP_ATTR a;
	struct vt_mem m;
	DAT_EP_HANDLE ep;
	struct vt_msg msg;
	struct vt v;
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 256 * FL_CLI, PRIV_LOCAL);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	vt_ctl_post(&v, ep);
	for (i = 0; i < FL_CLI; i++)
		vt_must("dat_ep_post_recv",
			post_recv1(ep, &m, 256 * i, 256, 0x800 + i));
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	vt_ctl_recv(&v, ep, &msg, "ready", 0);
	vt_expect("dat_ep_free(connected, receives outstanding)",
		  dat_ep_free(ep), DAT_SUCCESS);
	vt_expect_empty("connection EVD after dat_ep_free", v.conn_evd);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_dto_tests[] = {
	{ "sendrecv", sendrecv_server, sendrecv_client },
	{ "echo-rounds", echo_server, echo_client },
	{ "rdma", rdma_server, rdma_client },
	{ "multiseg", multiseg_server, multiseg_client },
	{ "shared-lmr", shared_server, shared_client },
	{ "shared-lmr-priv", shared_priv_local, NULL },
	{ "flags", flags_server, flags_client },
	{ "flush", flush_server, flush_client },
	{ "flush-epfree", flush_server, flush_free_client },
	{ NULL, NULL, NULL }
};
