/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_legacy.c - a "legacy consumer": the call sequence of Open MPI's
 * btl/udapl (reference-notes.md section 9), written the way it uses DAT
 * 1.2: list the providers, open with a NULL async EVD, a PZ, query
 * DAT_IA_ALL, one DTO|RMR_BIND EVD and one CR|CONNECTION EVD without CNO,
 * PSP_any with DAT_PSP_CONSUMER_FLAG, EP attributes from a probe EP's
 * defaults, connect with private data, accept, eager sends and RDMA
 * writes with footers (plus a "guarantee" write with a NULL cookie),
 * dat_lmr_sync_rdma_write before reading the footers, and all progress by
 * non-blocking dat_evd_dequeue on the DTO, connection and async EVDs.
 * Both sides run the same progress engine.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define LG_EAGER 4096
#define LG_RECVS 24
#define LG_SENDS 16		/* eager messages each way */
#define LG_FRAGS 8		/* RDMA-written fragments each way */
#define LG_POOL (1 << 20)
#define LG_RECV_AT 0
#define LG_SEND_AT (128 << 10)
#define LG_RDMA_AT (256 << 10)	/* fragments written by the peer */
#define LG_FLAG_AT (LG_RDMA_AT + (64 << 10))
#define LG_SRC_AT (384 << 10)	/* fragments we write */
#define LG_FOOTER(j) (0xF00D0000u + (j))
#define LG_MAGIC "ompi-btl"

struct lg_pdata {
	char magic[8];
	uint32_t port;
	uint32_t pad;
};

struct lg {
	const struct vt_opts *o;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, dto, conn;
	DAT_PZ_HANDLE pz;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	DAT_IA_ATTR attr;
	DAT_EP_ATTR ep_attr;
	unsigned char *pool;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	struct vt_msg peer;		/* the peer's RDMA region */
	int connected, disconnected, got_hello, sent_rdma;
	int recvd, sends_done, writes_done, null_done, frags_seen;
	int sent_done, got_done, done_done;
	int flushed;			/* unused receives, at disconnect */
};

static DAT_LMR_TRIPLET lg_iov(struct lg *g, size_t off, size_t len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = g->lctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(g->pool + off);
	t.segment_length = len;
	return t;
}

static void lg_providers(const char *name)
{
	DAT_PROVIDER_INFO info[64], *list[64];
	DAT_COUNT n = 0, i, found = 0;

	for (i = 0; i < 64; i++)
		list[i] = &info[i];
	vt_must("dat_registry_list_providers",
		dat_registry_list_providers(64, &n, list));
	for (i = 0; i < n; i++)
		if (!strcmp(info[i].ia_name, name))
			found++;
	vt_note("%d providers listed", n);
	vt_expect_true("our IA is in the provider list", found > 0);
}

static void lg_open(struct lg *g)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_COUNT qlen;
	DAT_EVD_PARAM p;
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	void *pool;

	lg_providers(g->o->ia_name);
	vt_must("dat_ia_open(async NULL)",
		dat_ia_open((DAT_NAME_PTR)g->o->ia_name, 32, &async, &g->ia));
	vt_expect_true("dat_ia_open returned an async EVD", async != NULL);
	vt_must("dat_pz_create", dat_pz_create(g->ia, &g->pz));
	vt_must("dat_ia_query(DAT_IA_ALL, no provider attributes)",
		dat_ia_query(g->ia, &g->async, DAT_IA_ALL, &g->attr, 0, NULL));
	vt_expect_ptr("queried async EVD", g->async, async);
	vt_addr_is("ia_address_ptr", g->attr.ia_address_ptr,
		   strcmp(g->o->role, "server") ? VT_CLIENT_ADDR :
						  VT_SERVER_ADDR);
	qlen = g->attr.max_evd_qlen < 64 ? g->attr.max_evd_qlen : 64;
	vt_must("dat_evd_create(DTO|RMR_BIND)",
		dat_evd_create(g->ia, qlen, DAT_HANDLE_NULL,
			       DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG,
			       &g->dto));
	vt_must("dat_evd_create(CR|CONNECTION)",
		dat_evd_create(g->ia, qlen, DAT_HANDLE_NULL,
			       DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG,
			       &g->conn));
	/* qlen tuning, as the BTL does when it adds EPs */
	vt_expect("dat_evd_resize", dat_evd_resize(g->dto, 2 * qlen),
		  DAT_SUCCESS);
	vt_must("dat_evd_query",
		dat_evd_query(g->dto, DAT_EVD_FIELD_EVD_QLEN, &p));
	vt_expect_true("DTO EVD qlen after resize", p.evd_qlen >= 2 * qlen);

	if (posix_memalign(&pool, DAT_OPTIMAL_ALIGNMENT, LG_POOL))
		vt_die("out of memory");
	memset(pool, 0, LG_POOL);
	g->pool = pool;
	r.for_va = pool;
	vt_must("dat_lmr_create(VIRTUAL, DAT_MEM_PRIV_ALL_FLAG)",
		dat_lmr_create(g->ia, DAT_MEM_TYPE_VIRTUAL, r, LG_POOL, g->pz,
			       DAT_MEM_PRIV_ALL_FLAG, &g->lmr, &g->lctx,
			       &g->rctx, &rlen, &raddr));
}

/* EP attributes: the provider's defaults (from a probe EP), adjusted */
static void lg_ep_attr(struct lg *g)
{
	DAT_EP_HANDLE probe;
	DAT_EP_PARAM p;

	vt_must("dat_ep_create(probe, NULL attributes)",
		dat_ep_create(g->ia, g->pz, g->dto, g->dto, g->conn, NULL,
			      &probe));
	vt_must("dat_ep_query(probe)",
		dat_ep_query(probe, DAT_EP_FIELD_ALL, &p));
	vt_note("default EP: max_message_size %llu max_recv_dtos %d max_request_dtos %d max_recv_iov %d max_request_iov %d",
		(unsigned long long)p.ep_attr.max_message_size,
		p.ep_attr.max_recv_dtos, p.ep_attr.max_request_dtos,
		p.ep_attr.max_recv_iov, p.ep_attr.max_request_iov);
	vt_expect("dat_ep_free(probe)", dat_ep_free(probe), DAT_SUCCESS);
	g->ep_attr = p.ep_attr;
	if (g->ep_attr.max_recv_dtos < 2 * LG_RECVS)
		g->ep_attr.max_recv_dtos = 2 * LG_RECVS;
	if (g->ep_attr.max_request_dtos < 2 * (LG_SENDS + LG_FRAGS))
		g->ep_attr.max_request_dtos = 2 * (LG_SENDS + LG_FRAGS);
	if (g->ep_attr.max_message_size < LG_EAGER)
		g->ep_attr.max_message_size = LG_EAGER;
	if (g->ep_attr.max_rdma_size < LG_EAGER)
		g->ep_attr.max_rdma_size = LG_EAGER;
}

static void lg_new_ep(struct lg *g)
{
	DAT_LMR_TRIPLET iov;
	int i;

	vt_must("dat_ep_create",
		dat_ep_create(g->ia, g->pz, g->dto, g->dto, g->conn,
			      &g->ep_attr, &g->ep));
	for (i = 0; i < LG_RECVS; i++) {
		iov = lg_iov(g, LG_RECV_AT + i * LG_EAGER, LG_EAGER);
		vt_must("dat_ep_post_recv(eager)",
			dat_ep_post_recv(g->ep, 1, &iov, vt_cookie(0x1000 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
}

/* eager message k: a header, then pattern 100 + seq */
static void lg_send(struct lg *g, int k, const char *tag, uint32_t seq)
{
	struct vt_msg m;
	DAT_LMR_TRIPLET iov;

	vt_msg_init(&m, tag);
	m.seed = seq;
	m.addr = (uintptr_t)(g->pool + LG_RDMA_AT);
	m.rmr_context = g->rctx;
	memcpy(g->pool + LG_SEND_AT + k * LG_EAGER, &m, sizeof(m));
	vt_fill(g->pool + LG_SEND_AT + k * LG_EAGER + sizeof(m),
		LG_EAGER - sizeof(m), 100 + seq);
	iov = lg_iov(g, LG_SEND_AT + k * LG_EAGER, LG_EAGER);
	vt_must("dat_ep_post_send(eager)",
		dat_ep_post_send(g->ep, 1, &iov, vt_cookie(0x2000 + k),
				 DAT_COMPLETION_DEFAULT_FLAG));
}

static void lg_rdma(struct lg *g)
{
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE nul;
	uint32_t footer;
	int j;

	for (j = 0; j < LG_FRAGS; j++) {
		unsigned char *f = g->pool + LG_SRC_AT + j * LG_EAGER;

		vt_fill(f, LG_EAGER - 8, 200 + j);
		footer = LG_FOOTER(j);
		memset(f + LG_EAGER - 8, 0, 8);
		memcpy(f + LG_EAGER - 4, &footer, 4);
		iov = lg_iov(g, LG_SRC_AT + j * LG_EAGER, LG_EAGER);
		r = vt_riov(&g->peer, j * LG_EAGER, LG_EAGER);
		vt_must("dat_ep_post_rdma_write(fragment)",
			dat_ep_post_rdma_write(g->ep, 1, &iov,
					       vt_cookie(0x3000 + j), &r,
					       DAT_COMPLETION_DEFAULT_FLAG));
	}
	/* the "guarantee" write, with a NULL cookie */
	iov = lg_iov(g, LG_SRC_AT + LG_FRAGS * LG_EAGER, 8);
	r = vt_riov(&g->peer, LG_FLAG_AT - LG_RDMA_AT, 8);
	nul.as_ptr = NULL;
	vt_must("dat_ep_post_rdma_write(NULL cookie)",
		dat_ep_post_rdma_write(g->ep, 1, &iov, nul, &r,
				       DAT_COMPLETION_DEFAULT_FLAG));
	g->sent_rdma = 1;
}

static void lg_on_recv(struct lg *g, const DAT_DTO_COMPLETION_EVENT_DATA *d)
{
	uint64_t slot = d->user_cookie.as_64 - 0x1000;
	unsigned char *b = g->pool + LG_RECV_AT + slot * LG_EAGER;
	struct vt_msg m;

	if (slot >= LG_RECVS || d->transfered_length != LG_EAGER) {
		vt_fail("eager receive: cookie 0x%llx length %llu",
			(unsigned long long)d->user_cookie.as_64,
			(unsigned long long)d->transfered_length);
		return;
	}
	memcpy(&m, b, sizeof(m));
	if (!vt_check_at("eager payload", b + sizeof(m), LG_EAGER - sizeof(m),
			 100 + m.seed, 0))
		return;
	if (!strcmp(m.tag, "hello")) {
		g->peer = m;
		g->got_hello = 1;
	} else if (!strcmp(m.tag, "done")) {
		g->got_done = 1;
	} else {
		g->recvd++;
	}
}

static void lg_on_dto(struct lg *g, const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	uint64_t c = d->user_cookie.as_64;

	/* once both sides are done, the disconnect flushes the receives
	 * that were never used: expected, counted */
	if (ev->event_number == DAT_DTO_COMPLETION_EVENT &&
	    d->status == DAT_DTO_ERR_FLUSHED && d->ep_handle == g->ep &&
	    c >= 0x1000 && c < 0x1000 + LG_RECVS && g->got_done) {
		g->flushed++;
		return;
	}
	if (ev->event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS || d->ep_handle != g->ep) {
		vt_fail("DTO EVD: event %s status %s cookie 0x%llx",
			vt_ev(ev->event_number), vt_dto(d->status),
			(unsigned long long)c);
		return;
	}
	if (c == 0)
		g->null_done++;
	else if (c >= 0x1000 && c < 0x2000)
		lg_on_recv(g, d);
	else if (c >= 0x2000 && c < 0x3000)
		c - 0x2000 == LG_SENDS + 1 ? g->done_done++ : g->sends_done++;
	else if (c >= 0x3000 && c < 0x3000 + LG_FRAGS)
		g->writes_done++;
	else
		vt_fail("DTO EVD: unknown cookie 0x%llx",
			(unsigned long long)c);
}

/* Open MPI polls the footer of the next fragment after a sync */
static int lg_poll_frag(struct lg *g)
{
	unsigned char *f = g->pool + LG_RDMA_AT + g->frags_seen * LG_EAGER;
	DAT_LMR_TRIPLET t;
	uint32_t footer;
	char what[48];

	if (g->frags_seen >= LG_FRAGS)
		return 0;
	t = lg_iov(g, LG_RDMA_AT + g->frags_seen * LG_EAGER, LG_EAGER);
	vt_must("dat_lmr_sync_rdma_write", dat_lmr_sync_rdma_write(g->ia, &t,
								    1));
	memcpy(&footer, f + LG_EAGER - 4, 4);
	if (footer != LG_FOOTER(g->frags_seen))
		return 0;
	snprintf(what, sizeof(what), "RDMA fragment %d", g->frags_seen);
	vt_check(what, f, LG_EAGER - 8, 200 + g->frags_seen);
	g->frags_seen++;
	return 1;
}

static void lg_on_conn(struct lg *g, const DAT_EVENT *ev)
{
	const DAT_CR_ARRIVAL_EVENT_DATA *cra =
		&ev->event_data.cr_arrival_event_data;
	DAT_CR_PARAM crp;

	switch (ev->event_number) {
	case DAT_CONNECTION_REQUEST_EVENT:
		vt_must("dat_cr_query",
			dat_cr_query(cra->cr_handle, DAT_CR_FIELD_ALL, &crp));
		if (crp.private_data_size < (DAT_COUNT)sizeof(struct lg_pdata) ||
		    memcmp(crp.private_data, LG_MAGIC, 8))
			vt_fail("CR private data: size %d, no '%s'",
				crp.private_data_size, LG_MAGIC);
		lg_new_ep(g);
		vt_must("dat_cr_accept(cr, ep, 0, NULL)",
			dat_cr_accept(cra->cr_handle, g->ep, 0, NULL));
		break;
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		g->connected = 1;
		lg_send(g, 0, "hello", 0);
		break;
	case DAT_CONNECTION_EVENT_DISCONNECTED:
		g->disconnected = 1;
		break;
	default:
		vt_die("connection EVD: unexpected %s", vt_ev(ev->event_number));
	}
}

static int lg_finished(const struct lg *g)
{
	return g->got_hello && g->sent_rdma && g->recvd == LG_SENDS &&
	       g->sends_done == LG_SENDS + 1 && g->writes_done == LG_FRAGS &&
	       g->null_done == 1 && g->frags_seen == LG_FRAGS;
}

/* one round of non-blocking progress; returns whether anything happened */
static int lg_progress(struct lg *g)
{
	DAT_EVENT ev;
	int k, any = 0;

	if (dat_evd_dequeue(g->dto, &ev) == DAT_SUCCESS) {
		lg_on_dto(g, &ev);
		any = 1;
	}
	if (dat_evd_dequeue(g->conn, &ev) == DAT_SUCCESS) {
		lg_on_conn(g, &ev);
		any = 1;
	}
	if (dat_evd_dequeue(g->async, &ev) == DAT_SUCCESS)
		vt_die("async EVD: %s", vt_ev(ev.event_number));
	if (g->connected && g->got_hello && !g->sent_rdma) {
		for (k = 1; k <= LG_SENDS; k++)
			lg_send(g, k, "eager", k);
		lg_rdma(g);
		any = 1;
	}
	any |= lg_poll_frag(g);
	if (lg_finished(g) && !g->sent_done) {
		lg_send(g, LG_SENDS + 1, "done", LG_SENDS + 1);
		g->sent_done = 1;
	}
	return any;
}

/* progress until cond holds, bounded */
static int lg_run(struct lg *g, int (*cond)(const struct lg *),
		  const char *what)
{
	uint64_t end = vt_now_us() + vt_secs(30);

	while (!cond(g)) {
		if (vt_now_us() > end) {
			vt_fail("%s: not reached in time (hello %d recvd %d sends %d writes %d null %d frags %d done %d/%d)",
				what, g->got_hello, g->recvd, g->sends_done,
				g->writes_done, g->null_done, g->frags_seen,
				g->got_done, g->done_done);
			return 0;
		}
		if (!lg_progress(g))
			sched_yield();
	}
	vt_note("ok %s", what);
	return 1;
}

static int lg_all_done(const struct lg *g)
{
	return g->sent_done && g->got_done && g->done_done;
}

static int lg_is_connected(const struct lg *g)
{
	return g->connected;
}

static int lg_is_disconnected(const struct lg *g)
{
	return g->disconnected;
}

static void lg_teardown(struct lg *g)
{
	vt_note("%d unused receives flushed at the disconnect", g->flushed);
	vt_expect("dat_ep_free", dat_ep_free(g->ep), DAT_SUCCESS);
	if (g->psp)
		vt_expect("dat_psp_free", dat_psp_free(g->psp), DAT_SUCCESS);
	vt_expect("dat_lmr_free", dat_lmr_free(g->lmr), DAT_SUCCESS);
	vt_expect("dat_evd_free(DTO)", dat_evd_free(g->dto), DAT_SUCCESS);
	vt_expect("dat_evd_free(CR|CONNECTION)", dat_evd_free(g->conn),
		  DAT_SUCCESS);
	vt_expect("dat_pz_free", dat_pz_free(g->pz), DAT_SUCCESS);
	vt_expect("dat_ia_close", dat_ia_close(g->ia, DAT_CLOSE_GRACEFUL_FLAG),
		  DAT_SUCCESS);
	free(g->pool);
}

static int legacy_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL port = 0;
	struct lg g;

	memset(&g, 0, sizeof(g));
	g.o = o;
	lg_open(&g);
	lg_ep_attr(&g);
	vt_must("dat_psp_create_any(DAT_PSP_CONSUMER_FLAG)",
		dat_psp_create_any(g.ia, &port, g.conn, DAT_PSP_CONSUMER_FLAG,
				   &g.psp));
	vt_listening(port);
	if (lg_run(&g, lg_is_connected, "connection accepted") &&
	    lg_run(&g, lg_all_done, "eager sends and RDMA writes"))
		lg_run(&g, lg_is_disconnected, "client disconnected");
	lg_teardown(&g);
	return 0;
}

static int legacy_client(const struct vt_opts *o)
{
	struct lg_pdata pd;
	struct sockaddr_in sin;
	struct lg g;

	memset(&g, 0, sizeof(g));
	g.o = o;
	lg_open(&g);
	lg_ep_attr(&g);
	lg_new_ep(&g);
	memset(&pd, 0, sizeof(pd));
	memcpy(pd.magic, LG_MAGIC, 8);
	pd.port = 1;
	vt_sockaddr(&sin, o->addr);
	vt_must("dat_ep_connect",
		dat_ep_connect(g.ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
			       vt_secs(20), sizeof(pd), &pd,
			       DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	if (lg_run(&g, lg_is_connected, "connected") &&
	    lg_run(&g, lg_all_done, "eager sends and RDMA writes")) {
		vt_expect("dat_ep_disconnect",
			  dat_ep_disconnect(g.ep, DAT_CLOSE_GRACEFUL_FLAG),
			  DAT_SUCCESS);
		lg_run(&g, lg_is_disconnected, "disconnected");
	}
	lg_teardown(&g);
	return 0;
}

const struct vt_test vt_legacy_tests[] = {
	{ "legacy", legacy_server, legacy_client },
	{ NULL, NULL, NULL }
};
