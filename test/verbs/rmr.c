/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rmr.c - dattest-rmr: memory windows (issue 6) between a server on
 * rxe0-cma, which owns the memory and binds the windows, and a client on
 * rxe1-cma, which reads and writes through them with RDMA.
 *
 * dattest-rmr TEST server|client [-i IA] [-a ADDR] [-q QUAL] [-n ROUNDS]
 *
 *   rw      the bind checks (outside the LMR, privileges, PZs, flags, EP
 *           state), a bind, RDMA read and write through it, the LMR
 *           pinned while bound, an unbind; a write with the old context
 *           then fails at the server: DAT_DTO_ERR_REMOTE_ACCESS and a
 *           BROKEN connection at the client; a bind on the DISCONNECTED
 *           EP is flushed
 *   rebind  a rebind elsewhere: the new context works, the previous one
 *           fails as above
 *   free    dat_rmr_free of a bound window: its context fails as above
 *   priv    a read-only window: a read works, a write fails as above
 *   bindfail a bind the device refuses after the call returned: its
 *           completion says DAT_RMR_OPERATION_FAILED, the connection is
 *           BROKEN and the EP DISCONNECTED
 *   lifetime an RMR outlives the EP it was bound through (issue 18: a
 *           window belongs to its PZ): bound through EP A, A's connection
 *           broken by a write through a stale context, A freed, the
 *           client reconnects with EP B, the same RMR is bound through B
 *           and written through, everything freed.  Each of those calls
 *           must return within BOUND_SECS x TEST_TIMEOUT_SCALE (a
 *           watchdog ends the process otherwise; rxe's type 2 windows
 *           once held A's QP and dat_ep_free waited ~50 s in
 *           ibv_destroy_qp)
 *   fence   ROUNDS (default 1000) rounds of: the server binds and at once
 *           sends the new context; the client writes through it as soon
 *           as it arrives.  No failure, and the server's IA counts one
 *           automatic fence per round (dat_ia_query vendor attribute
 *           DAPL_RMR_FENCES)
 *
 * Every wait is bounded and scaled by TEST_TIMEOUT_SCALE; every byte is
 * checked.  Prints PASS and exits 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <signal.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include "vt.h"

#define PRIV_LOCAL                                                             \
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define PRIV_REMOTE                                                            \
	(DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
#define PRIV_ALL (PRIV_LOCAL | PRIV_REMOTE)
#define E(t, s) ((DAT_RETURN)(DAT_CLASS_ERROR | (t) | (s)))
#define ANY_LEN ((DAT_VLEN)-1)

#define OWN_LEN 12288		/* the server's memory */
#define WIN_OFF 1024		/* the first window */
#define WIN2_OFF 5120		/* where a rebind moves it */
#define WIN_LEN 1024
#define SENTINEL 0xEE
#define CTL_RECVS 4

/* ---- helpers -------------------------------------------------------------- */

static DAT_RMR_COOKIE rck(uint64_t v)
{
	DAT_RMR_COOKIE c;

	c.as_64 = v;
	return c;
}

/* One RMR bind completion on evd: its RMR, cookie and status. */
static int expect_bind(const char *what, DAT_EVD_HANDLE evd,
		       DAT_RMR_HANDLE rmr, uint64_t cookie,
		       DAT_DTO_COMPLETION_STATUS status)
{
	const DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	int ok = 1;

	if (!vt_expect_event(what, evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev))
		return 0;
	d = &ev.event_data.rmr_completion_event_data;
	ok &= vt_expect_ptr("bind event's rmr_handle", d->rmr_handle, rmr);
	ok &= vt_expect_u64("bind event's cookie", d->user_cookie.as_64,
			    cookie);
	if (d->status != status) {
		vt_fail("%s: status %s, want %s", what, vt_dto(d->status),
			vt_dto(status));
		ok = 0;
	}
	return ok;
}

static DAT_RMR_CONTEXT bind_wait(struct vt *v, DAT_RMR_HANDLE rmr,
				 const struct vt_mem *m, DAT_VLEN off,
				 DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv,
				 DAT_EP_HANDLE ep, uint64_t cookie)
{
	DAT_LMR_TRIPLET t = vt_iov(m, off, len);
	DAT_RMR_CONTEXT ctx = 0;

	vt_must("dat_rmr_bind",
		dat_rmr_bind(rmr, &t, priv, ep, rck(cookie),
			     DAT_COMPLETION_DEFAULT_FLAG, &ctx));
	expect_bind("bind completion", v->req_evd, rmr, cookie,
		    DAT_DTO_SUCCESS);
	return ctx;
}

/* dat_rmr_query: the window's binding as expected */
static void expect_query(DAT_RMR_HANDLE rmr, const struct vt *v,
			 const struct vt_mem *m, DAT_VLEN off, DAT_VLEN len,
			 DAT_MEM_PRIV_FLAGS priv, DAT_RMR_CONTEXT ctx)
{
	DAT_RMR_PARAM p;

	memset(&p, 0x5a, sizeof(p));
	vt_must("dat_rmr_query", dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p));
	vt_expect_ptr("rmr_query ia_handle", p.ia_handle, v->ia);
	vt_expect_ptr("rmr_query pz_handle", p.pz_handle, v->pz);
	vt_expect_u64("rmr_query segment_length",
		      p.lmr_triplet.segment_length, len);
	if (len) {
		vt_expect_u64("rmr_query lmr_context",
			      p.lmr_triplet.lmr_context, m->lctx);
		vt_expect_u64("rmr_query virtual_address",
			      p.lmr_triplet.virtual_address,
			      (uintptr_t)(m->buf + off));
	}
	vt_expect_u64("rmr_query mem_priv", p.mem_priv, priv);
	vt_expect_u64("rmr_query rmr_context", p.rmr_context, ctx);
	vt_note("ok dat_rmr_query: length %llu context 0x%x",
		(unsigned long long)len, ctx);
}

static uint64_t fences(const struct vt *v)
{
	DAT_IA_ATTR a;
	DAT_COUNT i;

	vt_must("dat_ia_query",
		dat_ia_query(v->ia, NULL, DAT_IA_FIELD_ALL, &a, 0, NULL));
	for (i = 0; i < a.num_vendor_attr; i++)
		if (a.vendor_attr && a.vendor_attr[i].name &&
		    !strcmp(a.vendor_attr[i].name, "DAPL_RMR_FENCES"))
			return strtoull(a.vendor_attr[i].value, NULL, 10);
	vt_fail("dat_ia_query: no vendor attribute DAPL_RMR_FENCES");
	return UINT64_MAX;
}

static void msg_win(struct vt_msg *msg, const char *tag,
		    const struct vt_mem *m, DAT_VLEN off, DAT_RMR_CONTEXT ctx)
{
	vt_msg_init(msg, tag);
	msg->addr = (uintptr_t)(m->buf + off);
	msg->len = WIN_LEN;
	msg->rmr_context = ctx;
}

/* ---- the owner (server) ------------------------------------------------- */

struct owner {
	struct vt v;
	struct vt_mem mem;
	DAT_RMR_HANDLE rmr;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	DAT_EP_ATTR a;
};

static void owner_open(struct owner *s, const struct vt_opts *o)
{
	vt_open(&s->v, o->ia_name);
	vt_expect_true("dat_ia_query: max_rmrs > 0",
		       s->v.ia_attr.max_rmrs > 0);
	vt_mem_alloc(&s->v, &s->mem, OWN_LEN, PRIV_ALL);
	memset(s->mem.buf, SENTINEL, OWN_LEN);
	s->rmr = DAT_HANDLE_NULL;
	vt_must("dat_rmr_create", dat_rmr_create(s->v.pz, &s->rmr));
	vt_ep_attr(&s->v, &s->a);
}

static void owner_accept(struct owner *s)
{
	s->ep = vt_serve_one(&s->v, &s->a, CTL_RECVS, &s->psp);
}

/* The client's access failed: its side breaks the connection; this side
 * sees it end (DISCONNECTED when the peer's DREQ comes first, BROKEN
 * when its own QP went to error first). */
static void owner_conn_end(struct owner *s)
{
	DAT_EVENT ev;

	if (vt_wait(s->v.conn_evd, vt_secs(30), &ev) != DAT_SUCCESS) {
		vt_fail("no connection event after the peer's failed access");
		return;
	}
	if (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
	    ev.event_number == DAT_CONNECTION_EVENT_BROKEN)
		vt_note("ok connection end: %s", vt_ev(ev.event_number));
	else
		vt_fail("connection end: %s", vt_ev(ev.event_number));
	vt_expect_state("EP after the connection ended", s->ep,
			DAT_EP_STATE_DISCONNECTED);
}

static void owner_close(struct owner *s)
{
	if (s->rmr)
		vt_expect("dat_rmr_free", dat_rmr_free(s->rmr), DAT_SUCCESS);
	vt_ep_free(s->ep);
	vt_expect("dat_psp_free", dat_psp_free(s->psp), DAT_SUCCESS);
	vt_mem_free(&s->mem);
	vt_close(&s->v);
}

static void check_win(const char *what, const struct vt_mem *m, DAT_VLEN off,
		      uint32_t seed)
{
	vt_check(what, m->buf + off, WIN_LEN, seed);
}

static void check_sentinels(const struct vt_mem *m, DAT_VLEN off)
{
	vt_expect_u64("byte before the window", m->buf[off - 1], SENTINEL);
	vt_expect_u64("byte after the window", m->buf[off + WIN_LEN],
		      SENTINEL);
}

/* ---- the initiator (client) ------------------------------------------- */

struct peer {
	struct vt v;
	struct vt_mem mem;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	uint64_t cookie;
};

static void peer_open(struct peer *c, const struct vt_opts *o)
{
	vt_open(&c->v, o->ia_name);
	vt_mem_alloc(&c->v, &c->mem, 2 * WIN_LEN, PRIV_LOCAL);
	vt_ep_attr(&c->v, &c->a);
	c->ep = vt_client_one(&c->v, o, &c->a, CTL_RECVS);
	c->cookie = 0x7000;
}

static void peer_close(struct peer *c)
{
	vt_ep_free(c->ep);
	vt_mem_free(&c->mem);
	vt_close(&c->v);
}

static void peer_recv(struct peer *c, struct vt_msg *m, const char *tag)
{
	vt_ctl_recv(&c->v, c->ep, m, tag, 0);
	vt_ctl_post(&c->v, c->ep);
}

static void peer_tell(struct peer *c, const char *tag)
{
	struct vt_msg m;

	vt_msg_init(&m, tag);
	vt_ctl_send(&c->v, c->ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
}

/* An RDMA read or write of WIN_LEN at off of the window in m (rmr_context
 * ctx instead of m's when nonzero); returns the completion status. */
static int peer_rdma(struct peer *c, const struct vt_msg *m,
		     DAT_RMR_CONTEXT ctx, uint64_t addr, int read,
		     DAT_DTO_COMPLETION_STATUS want)
{
	DAT_LMR_TRIPLET l = vt_iov(&c->mem, 0, WIN_LEN);
	DAT_RMR_TRIPLET r = vt_riov(m, 0, WIN_LEN);
	uint64_t ck = c->cookie++;
	char what[96];

	if (ctx)
		r.rmr_context = ctx;
	if (addr)
		r.target_address = addr;
	if (read)
		vt_must("dat_ep_post_rdma_read",
			dat_ep_post_rdma_read(c->ep, 1, &l, vt_cookie(ck), &r,
					      DAT_COMPLETION_DEFAULT_FLAG));
	else
		vt_must("dat_ep_post_rdma_write",
			dat_ep_post_rdma_write(c->ep, 1, &l, vt_cookie(ck),
					       &r, DAT_COMPLETION_DEFAULT_FLAG));
	snprintf(what, sizeof(what), "RDMA %s through context 0x%x",
		 read ? "read" : "write", r.rmr_context);
	return vt_expect_dto(what, c->v.req_evd, c->ep, ck, want,
			     want == DAT_DTO_SUCCESS ? WIN_LEN : ANY_LEN);
}

/* The access through a dead context failed: the connection is BROKEN. */
static void peer_broken(struct peer *c)
{
	DAT_EVENT ev;

	if (vt_expect_event("connection broken by the failed access",
			    c->v.conn_evd, DAT_CONNECTION_EVENT_BROKEN, &ev))
		vt_expect_ptr("BROKEN event's ep_handle",
			      ev.event_data.connect_event_data.ep_handle,
			      c->ep);
	vt_expect_state("EP after the failed access", c->ep,
			DAT_EP_STATE_DISCONNECTED);
}

/* Writes seed through a window whose context is dead. */
static void peer_write_dead(struct peer *c, const struct vt_msg *m,
			    DAT_RMR_CONTEXT ctx, uint64_t addr, uint32_t seed)
{
	vt_fill(c->mem.buf, WIN_LEN, seed);
	peer_rdma(c, m, ctx, addr, 0, DAT_DTO_ERR_REMOTE_ACCESS);
	peer_broken(c);
}

/* ---- rw ------------------------------------------------------------------ */

/* Binds that must be refused before anything is posted. */
static void bad_binds(struct owner *s, DAT_EP_HANDLE ep)
{
	struct vt *v = &s->v;
	struct vt_mem ro, wo;
	DAT_PZ_HANDLE pz2 = DAT_HANDLE_NULL;
	DAT_RMR_HANDLE r2 = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET t;
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_COOKIE ck = rck(0xBAD);
	DAT_RETURN inval2 = E(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	t = vt_iov(&s->mem, OWN_LEN - 8, 16);
	vt_expect("bind past the end of the LMR",
		  dat_rmr_bind(s->rmr, &t, PRIV_REMOTE, ep, ck, 0, &ctx),
		  inval2);
	t = vt_iov(&s->mem, 0, 16);
	t.virtual_address -= 8;
	vt_expect("bind before the start of the LMR",
		  dat_rmr_bind(s->rmr, &t, PRIV_REMOTE, ep, ck, 0, &ctx),
		  inval2);
	t = vt_iov(&s->mem, 0, 16);
	t.lmr_context ^= 0x5a5a0000;
	vt_expect("bind on an unknown lmr_context",
		  dat_rmr_bind(s->rmr, &t, PRIV_REMOTE, ep, ck, 0, &ctx),
		  inval2);
	t = vt_iov(&s->mem, WIN_OFF, WIN_LEN);
	vt_expect("bind with SOLICITED_WAIT",
		  dat_rmr_bind(s->rmr, &t, PRIV_REMOTE, ep, ck,
			       DAT_COMPLETION_SOLICITED_WAIT_FLAG, &ctx),
		  E(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	vt_expect("bind UNSIGNALLED on an EP without it",
		  dat_rmr_bind(s->rmr, &t, PRIV_REMOTE, ep, ck,
			       DAT_COMPLETION_UNSIGNALLED_FLAG, &ctx),
		  E(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	vt_expect("bind with an unknown privilege bit",
		  dat_rmr_bind(s->rmr, &t, 0x100, ep, ck, 0, &ctx),
		  E(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));

	/* Remote read needs local read, remote write local write. */
	vt_mem_alloc(v, &ro, 4096, DAT_MEM_PRIV_LOCAL_READ_FLAG);
	vt_mem_alloc(v, &wo, 4096, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	t = vt_iov(&ro, 0, 64);
	vt_expect("remote write window on an LMR without local write",
		  dat_rmr_bind(s->rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, ep,
			       ck, 0, &ctx),
		  E(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE));
	t = vt_iov(&wo, 0, 64);
	vt_expect("remote read window on an LMR without local read",
		  dat_rmr_bind(s->rmr, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG, ep,
			       ck, 0, &ctx),
		  E(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE));
	vt_mem_free(&ro);
	vt_mem_free(&wo);

	/* LMR, RMR and EP share one PZ. */
	vt_must("dat_pz_create", dat_pz_create(v->ia, &pz2));
	vt_must("dat_rmr_create(pz2)", dat_rmr_create(pz2, &r2));
	t = vt_iov(&s->mem, WIN_OFF, WIN_LEN);
	vt_expect("bind of an RMR of another PZ than the EP's",
		  dat_rmr_bind(r2, &t, PRIV_REMOTE, ep, ck, 0, &ctx),
		  E(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE));
	vt_expect("dat_pz_free while an RMR uses it", dat_pz_free(pz2),
		  E(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE));
	vt_expect("dat_rmr_free(pz2)", dat_rmr_free(r2), DAT_SUCCESS);
	vt_expect("dat_rmr_free again", dat_rmr_free(r2),
		  E(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	vt_expect("dat_pz_free(pz2)", dat_pz_free(pz2), DAT_SUCCESS);
	vt_expect_empty("no completion for a refused bind", v->req_evd);
}

static int rw_server(const struct vt_opts *o)
{
	struct owner s;
	struct vt_msg m;
	DAT_LMR_TRIPLET t;
	DAT_RMR_CONTEXT ctx, ctx2 = 0x1234;
	DAT_EP_HANDLE e0;

	owner_open(&s, o);
	expect_query(s.rmr, &s.v, &s.mem, 0, 0, 0, 0);
	/* Only CONNECTED and DISCONNECTED EPs take a bind. */
	e0 = vt_ep(&s.v, &s.a);
	t = vt_iov(&s.mem, WIN_OFF, WIN_LEN);
	vt_expect("bind on an unconnected EP",
		  dat_rmr_bind(s.rmr, &t, PRIV_REMOTE, e0, rck(1), 0, &ctx),
		  E(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	vt_ep_free(e0);

	owner_accept(&s);
	bad_binds(&s, s.ep);
	t = vt_iov(&s.mem, 0, 0);
	vt_expect("unbind of a window never bound",
		  dat_rmr_bind(s.rmr, &t, 0, s.ep, rck(0xB0), 0, &ctx2),
		  DAT_SUCCESS);
	expect_bind("its completion", s.v.req_evd, s.rmr, 0xB0,
		    DAT_DTO_SUCCESS);
	ctx = bind_wait(&s.v, s.rmr, &s.mem, WIN_OFF, WIN_LEN, PRIV_ALL, s.ep,
			0xB1);
	expect_query(s.rmr, &s.v, &s.mem, WIN_OFF, WIN_LEN, PRIV_REMOTE, ctx);
	/* A suppressed rebind (with a barrier fence): no event, so the next
	 * one on the request EVD is the send's (vt_ctl_send checks it). */
	t = vt_iov(&s.mem, WIN_OFF, WIN_LEN);
	vt_expect("rebind, SUPPRESS | BARRIER_FENCE",
		  dat_rmr_bind(s.rmr, &t, PRIV_REMOTE, s.ep, rck(0xB4),
			       DAT_COMPLETION_SUPPRESS_FLAG |
				   DAT_COMPLETION_BARRIER_FENCE_FLAG,
			       &ctx2),
		  DAT_SUCCESS);
	if (ctx2 == ctx)
		vt_fail("rebind kept the context 0x%x", ctx);
	ctx = ctx2;
	vt_expect("dat_lmr_free of an LMR with a window bound",
		  dat_lmr_free(s.mem.lmr),
		  E(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));
	vt_fill(s.mem.buf + WIN_OFF, WIN_LEN, 5);
	msg_win(&m, "win", &s.mem, WIN_OFF, ctx);
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&s.v, s.ep, &m, "written", 0);
	check_win("the client's write through the window", &s.mem, WIN_OFF, 6);
	check_sentinels(&s.mem, WIN_OFF);

	/* Unbind (segment_length 0): the context dies. */
	t = vt_iov(&s.mem, 0, 0);
	vt_expect("dat_rmr_bind(length 0): unbind",
		  dat_rmr_bind(s.rmr, &t, 0, s.ep, rck(0xB2), 0, &ctx2),
		  DAT_SUCCESS);
	expect_bind("unbind completion", s.v.req_evd, s.rmr, 0xB2,
		    DAT_DTO_SUCCESS);
	expect_query(s.rmr, &s.v, &s.mem, 0, 0, 0, 0);
	vt_msg_init(&m, "unbound");
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	owner_conn_end(&s);
	check_win("window after the write through the unbound context",
		  &s.mem, WIN_OFF, 6);

	/* DISCONNECTED: a bind is flushed at once, the window unchanged. */
	t = vt_iov(&s.mem, WIN_OFF, WIN_LEN);
	vt_expect("bind on the DISCONNECTED EP",
		  dat_rmr_bind(s.rmr, &t, PRIV_REMOTE, s.ep, rck(0xB3), 0,
			       &ctx2),
		  DAT_SUCCESS);
	expect_bind("bind on the DISCONNECTED EP completes",
		    s.v.req_evd, s.rmr, 0xB3, DAT_DTO_ERR_FLUSHED);
	expect_query(s.rmr, &s.v, &s.mem, 0, 0, 0, 0);
	owner_close(&s);
	return 0;
}

static int rw_client(const struct vt_opts *o)
{
	struct peer c;
	struct vt_msg win, m;

	peer_open(&c, o);
	peer_recv(&c, &win, "win");
	peer_rdma(&c, &win, 0, 0, 1, DAT_DTO_SUCCESS);
	vt_check("RDMA read through the window", c.mem.buf, WIN_LEN, 5);
	vt_fill(c.mem.buf, WIN_LEN, 6);
	peer_rdma(&c, &win, 0, 0, 0, DAT_DTO_SUCCESS);
	memset(c.mem.buf, 0, WIN_LEN);
	peer_rdma(&c, &win, 0, 0, 1, DAT_DTO_SUCCESS);
	vt_check("read back what was written", c.mem.buf, WIN_LEN, 6);
	peer_tell(&c, "written");
	peer_recv(&c, &m, "unbound");
	peer_write_dead(&c, &win, 0, 0, 9);
	peer_close(&c);
	return 0;
}

/* ---- rebind ---------------------------------------------------------------- */

static int rebind_server(const struct vt_opts *o)
{
	struct owner s;
	struct vt_msg m;
	DAT_RMR_CONTEXT c1, c2;

	owner_open(&s, o);
	owner_accept(&s);
	c1 = bind_wait(&s.v, s.rmr, &s.mem, WIN_OFF, WIN_LEN, PRIV_REMOTE,
		       s.ep, 0xC1);
	vt_fill(s.mem.buf + WIN_OFF, WIN_LEN, 5);
	msg_win(&m, "win", &s.mem, WIN_OFF, c1);
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&s.v, s.ep, &m, "written", 0);
	vt_ctl_post(&s.v, s.ep);
	check_win("write through the first binding", &s.mem, WIN_OFF, 6);

	c2 = bind_wait(&s.v, s.rmr, &s.mem, WIN2_OFF, WIN_LEN, PRIV_REMOTE,
		       s.ep, 0xC2);
	if (c2 == c1)
		vt_fail("rebind kept the context 0x%x", c1);
	expect_query(s.rmr, &s.v, &s.mem, WIN2_OFF, WIN_LEN, PRIV_REMOTE, c2);
	vt_fill(s.mem.buf + WIN2_OFF, WIN_LEN, 7);
	msg_win(&m, "win2", &s.mem, WIN2_OFF, c2);
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	owner_conn_end(&s);
	check_win("the new binding, written through the new context",
		  &s.mem, WIN2_OFF, 8);
	check_win("the old range, after a write through the old context",
		  &s.mem, WIN_OFF, 6);
	check_sentinels(&s.mem, WIN_OFF);
	check_sentinels(&s.mem, WIN2_OFF);
	owner_close(&s);
	return 0;
}

static int rebind_client(const struct vt_opts *o)
{
	struct peer c;
	struct vt_msg w1, w2;

	peer_open(&c, o);
	peer_recv(&c, &w1, "win");
	vt_fill(c.mem.buf, WIN_LEN, 6);
	peer_rdma(&c, &w1, 0, 0, 0, DAT_DTO_SUCCESS);
	peer_tell(&c, "written");
	peer_recv(&c, &w2, "win2");
	if (w2.rmr_context == w1.rmr_context)
		vt_fail("the rebind's context equals the old one");
	peer_rdma(&c, &w2, 0, 0, 1, DAT_DTO_SUCCESS);
	vt_check("RDMA read through the rebound window", c.mem.buf, WIN_LEN,
		 7);
	vt_fill(c.mem.buf, WIN_LEN, 8);
	peer_rdma(&c, &w2, 0, 0, 0, DAT_DTO_SUCCESS);
	/* The previous context, at its old range. */
	peer_write_dead(&c, &w1, 0, 0, 9);
	peer_close(&c);
	return 0;
}

/* ---- free --------------------------------------------------------------------- */

static int free_server(const struct vt_opts *o)
{
	struct owner s;
	struct vt_msg m;
	DAT_RMR_CONTEXT c1;

	owner_open(&s, o);
	owner_accept(&s);
	c1 = bind_wait(&s.v, s.rmr, &s.mem, WIN_OFF, WIN_LEN, PRIV_REMOTE,
		       s.ep, 0xF1);
	msg_win(&m, "win", &s.mem, WIN_OFF, c1);
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&s.v, s.ep, &m, "written", 0);
	check_win("write through the window", &s.mem, WIN_OFF, 6);
	vt_expect("dat_rmr_free of a bound window", dat_rmr_free(s.rmr),
		  DAT_SUCCESS);
	vt_expect("dat_rmr_query of the freed RMR",
		  dat_rmr_query(s.rmr, DAT_RMR_FIELD_ALL, &(DAT_RMR_PARAM){0}),
		  E(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	s.rmr = DAT_HANDLE_NULL;
	vt_msg_init(&m, "freed");
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	owner_conn_end(&s);
	check_win("window after a write through the freed context", &s.mem,
		  WIN_OFF, 6);
	owner_close(&s); /* the LMR is free to go */
	return 0;
}

static int free_client(const struct vt_opts *o)
{
	struct peer c;
	struct vt_msg win, m;

	peer_open(&c, o);
	peer_recv(&c, &win, "win");
	vt_fill(c.mem.buf, WIN_LEN, 6);
	peer_rdma(&c, &win, 0, 0, 0, DAT_DTO_SUCCESS);
	peer_tell(&c, "written");
	peer_recv(&c, &m, "freed");
	peer_write_dead(&c, &win, 0, 0, 9);
	peer_close(&c);
	return 0;
}

/* ---- priv --------------------------------------------------------------------- */

static int priv_server(const struct vt_opts *o)
{
	struct owner s;
	struct vt_msg m;
	DAT_RMR_CONTEXT c1;

	owner_open(&s, o);
	owner_accept(&s);
	c1 = bind_wait(&s.v, s.rmr, &s.mem, WIN_OFF, WIN_LEN,
		       DAT_MEM_PRIV_REMOTE_READ_FLAG, s.ep, 0xD1);
	expect_query(s.rmr, &s.v, &s.mem, WIN_OFF, WIN_LEN,
		     DAT_MEM_PRIV_REMOTE_READ_FLAG, c1);
	vt_fill(s.mem.buf + WIN_OFF, WIN_LEN, 5);
	msg_win(&m, "win", &s.mem, WIN_OFF, c1);
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	owner_conn_end(&s);
	check_win("read-only window after a write", &s.mem, WIN_OFF, 5);
	owner_close(&s);
	return 0;
}

static int priv_client(const struct vt_opts *o)
{
	struct peer c;
	struct vt_msg win;

	peer_open(&c, o);
	peer_recv(&c, &win, "win");
	peer_rdma(&c, &win, 0, 0, 1, DAT_DTO_SUCCESS);
	vt_check("RDMA read through a read-only window", c.mem.buf, WIN_LEN,
		 5);
	peer_write_dead(&c, &win, 0, 0, 9);
	peer_close(&c);
	return 0;
}

/* ---- bindfail ------------------------------------------------------------------ */

/*
 * A bind the device refuses after dat_rmr_bind returned: read-only memory
 * is registered without write access and so without IBV_ACCESS_MW_BIND
 * (mr.c), which the DAT privilege rule cannot see (remote read needs only
 * local read).  The bind completes with DAT_RMR_OPERATION_FAILED and
 * breaks the connection: BROKEN, EP DISCONNECTED.
 */
static int bindfail_server(const struct vt_opts *o)
{
	DAT_REGION_DESCRIPTION reg;
	DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL;
	DAT_LMR_CONTEXT lctx;
	DAT_LMR_TRIPLET t;
	DAT_RMR_CONTEXT ctx;
	struct owner s;
	DAT_EVENT ev;
	void *ro;

	owner_open(&s, o);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		vt_die("mmap");
	reg.for_va = ro;
	vt_must("dat_lmr_create(read-only memory)",
		dat_lmr_create(s.v.ia, DAT_MEM_TYPE_VIRTUAL, reg, 4096, s.v.pz,
			       DAT_MEM_PRIV_LOCAL_READ_FLAG, &lmr, &lctx, NULL,
			       NULL, NULL));
	owner_accept(&s);
	t.lmr_context = lctx;
	t.pad = 0;
	t.virtual_address = (uintptr_t)ro;
	t.segment_length = 256;
	vt_expect("dat_rmr_bind (the device will refuse it)",
		  dat_rmr_bind(s.rmr, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG, s.ep,
			       rck(0xE1), 0, &ctx),
		  DAT_SUCCESS);
	expect_bind("the failed bind's completion", s.v.req_evd, s.rmr, 0xE1,
		    DAT_RMR_OPERATION_FAILED);
	if (vt_expect_event("connection broken by the failed bind",
			    s.v.conn_evd, DAT_CONNECTION_EVENT_BROKEN, &ev))
		vt_expect_ptr("BROKEN event's ep_handle",
			      ev.event_data.connect_event_data.ep_handle,
			      s.ep);
	vt_expect_state("EP after the failed bind", s.ep,
			DAT_EP_STATE_DISCONNECTED);
	vt_expect("dat_rmr_free", dat_rmr_free(s.rmr), DAT_SUCCESS);
	s.rmr = DAT_HANDLE_NULL;
	vt_expect("dat_lmr_free(read-only memory)", dat_lmr_free(lmr),
		  DAT_SUCCESS);
	munmap(ro, 4096);
	owner_close(&s);
	return 0;
}

static int bindfail_client(const struct vt_opts *o)
{
	struct peer c;
	DAT_EVENT ev;

	peer_open(&c, o);
	if (vt_wait(c.v.conn_evd, vt_secs(30), &ev) != DAT_SUCCESS)
		vt_fail("no connection event after the peer's failed bind");
	else if (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
		 ev.event_number == DAT_CONNECTION_EVENT_BROKEN)
		vt_note("ok connection end: %s", vt_ev(ev.event_number));
	else
		vt_fail("connection end: %s", vt_ev(ev.event_number));
	peer_close(&c);
	return 0;
}

/* ---- fence ---------------------------------------------------------------------- */

/* Quiet waits for the loop: one event, checked, no output unless wrong. */
static int q_event(DAT_EVD_HANDLE evd, DAT_EVENT *ev, const char *what,
		   int round)
{
	DAT_RETURN rc = vt_wait(evd, vt_secs(15), ev);

	if (rc != DAT_SUCCESS) {
		vt_fail("round %d: %s: %s", round, what, vt_rc(rc));
		return 0;
	}
	return 1;
}

static int q_dto_ok(const DAT_EVENT *ev, uint64_t cookie, const char *what,
		    int round)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &ev->event_data.dto_completion_event_data;

	if (ev->event_number == DAT_DTO_COMPLETION_EVENT &&
	    d->user_cookie.as_64 == cookie && d->status == DAT_DTO_SUCCESS)
		return 1;
	vt_fail("round %d: %s: event %s cookie 0x%llx status %s", round, what,
		vt_ev(ev->event_number),
		(unsigned long long)d->user_cookie.as_64, vt_dto(d->status));
	return 0;
}

/* Waits for a control message and posts the receive again. */
static int q_recv(struct vt *v, DAT_EP_HANDLE ep, struct vt_msg *m, int round)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (!q_event(v->rcv_evd, &ev, "control receive", round))
		return 0;
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS ||
	    (d->user_cookie.as_64 & ~0xfffffULL) != VT_CTL_COOKIE) {
		vt_fail("round %d: control receive: event %s status %s", round,
			vt_ev(ev.event_number), vt_dto(d->status));
		return 0;
	}
	memcpy(m, v->ctl->buf +
		      VT_CTL_SLOT * ((d->user_cookie.as_64 & 0xfffff) + 1),
	       sizeof(*m));
	vt_ctl_post(v, ep);
	return 1;
}

/* Posts a control send (slot 0 of the control area); no wait. */
static DAT_RETURN q_send(struct vt *v, DAT_EP_HANDLE ep,
			 const struct vt_msg *m, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = vt_iov(v->ctl, 0, sizeof(*m));

	memcpy(v->ctl->buf, m, sizeof(*m));
	return dat_ep_post_send(ep, 1, &iov, vt_cookie(cookie),
				DAT_COMPLETION_DEFAULT_FLAG);
}

static int fence_rounds(const struct vt_opts *o)
{
	return o->count > 0 ? o->count : 1000;
}

/* One round at the owner: bind, at once send the context, then the bind
 * completion must come before the send's (the fence), and the peer's
 * write through the new context must be in memory when its ack comes. */
static int fence_round(struct owner *s, int i, DAT_RMR_CONTEXT *prev)
{
	DAT_LMR_TRIPLET t = vt_iov(&s->mem, WIN_OFF, 64);
	const DAT_RMR_BIND_COMPLETION_EVENT_DATA *b;
	DAT_RMR_CONTEXT ctx = 0;
	struct vt_msg m;
	DAT_EVENT ev;
	uint64_t got;
	DAT_RETURN rc;

	rc = dat_rmr_bind(s->rmr, &t, PRIV_REMOTE, s->ep, rck(0xF000 + i), 0,
			  &ctx);
	if (rc != DAT_SUCCESS) {
		vt_fail("round %d: dat_rmr_bind: %s", i, vt_rc(rc));
		return 0;
	}
	if (ctx == *prev)
		vt_fail("round %d: context 0x%x did not change", i, ctx);
	*prev = ctx;
	msg_win(&m, "ctx", &s->mem, WIN_OFF, ctx);
	m.seed = (uint32_t)i;
	rc = q_send(&s->v, s->ep, &m, 0x5E00000 + i);
	if (rc != DAT_SUCCESS) {
		vt_fail("round %d: dat_ep_post_send: %s", i, vt_rc(rc));
		return 0;
	}
	if (!q_event(s->v.req_evd, &ev, "bind completion", i))
		return 0;
	b = &ev.event_data.rmr_completion_event_data;
	if (ev.event_number != DAT_RMR_BIND_COMPLETION_EVENT ||
	    b->rmr_handle != s->rmr || b->user_cookie.as_64 != 0xF000u + i ||
	    b->status != DAT_DTO_SUCCESS) {
		vt_fail("round %d: first completion: event %s status %s", i,
			vt_ev(ev.event_number), vt_dto(b->status));
		return 0;
	}
	if (!q_event(s->v.req_evd, &ev, "send completion", i) ||
	    !q_dto_ok(&ev, 0x5E00000 + i, "send completion", i))
		return 0;
	if (!q_recv(&s->v, s->ep, &m, i))
		return 0;
	memcpy(&got, s->mem.buf + WIN_OFF, sizeof(got));
	if (strncmp(m.tag, "wrote", sizeof(m.tag)) || m.seed != (uint32_t)i ||
	    got != 0xF00D0000ull + i) {
		vt_fail("round %d: ack '%.16s' seed %u, memory 0x%llx", i,
			m.tag, m.seed, (unsigned long long)got);
		return 0;
	}
	return 1;
}

static int fence_server(const struct vt_opts *o)
{
	int i, n = fence_rounds(o), ok = 0;
	struct owner s;
	DAT_RMR_CONTEXT prev = 0;
	uint64_t f0, f1;
	struct vt_msg m;

	owner_open(&s, o);
	f0 = fences(&s.v);
	vt_expect_u64("DAPL_RMR_FENCES at the start", f0, 0);
	owner_accept(&s);
	for (i = 0; i < n; i++) {
		if (!fence_round(&s, i, &prev))
			break;
		ok++;
	}
	f1 = fences(&s.v);
	vt_note("fence: %d of %d rounds without a failure; DAPL_RMR_FENCES %llu",
		ok, n, (unsigned long long)f1);
	vt_expect_u64("rounds without a failure", ok, n);
	vt_expect_u64("automatic fences applied (DAPL_RMR_FENCES)", f1 - f0,
		      n);
	vt_msg_init(&m, "done");
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_wait_disconnected(&s.v, s.ep);
	owner_close(&s);
	return 0;
}

static int fence_client(const struct vt_opts *o)
{
	int i, n = fence_rounds(o), ok = 0;
	struct vt_msg m, ack;
	struct peer c;
	DAT_LMR_TRIPLET l;
	DAT_RMR_TRIPLET r;
	DAT_EVENT ev;
	uint64_t v;

	peer_open(&c, o);
	l = vt_iov(&c.mem, 0, sizeof(v));
	for (i = 0; i < n; i++) {
		if (!q_recv(&c.v, c.ep, &m, i))
			break;
		if (m.seed != (uint32_t)i) {
			vt_fail("round %d: context of round %u", i, m.seed);
			break;
		}
		/* Straight through the context that just arrived. */
		v = 0xF00D0000ull + i;
		memcpy(c.mem.buf, &v, sizeof(v));
		r = vt_riov(&m, 0, sizeof(v));
		if (dat_ep_post_rdma_write(c.ep, 1, &l, vt_cookie(0x3000 + i),
					   &r, DAT_COMPLETION_DEFAULT_FLAG) !=
		    DAT_SUCCESS) {
			vt_fail("round %d: dat_ep_post_rdma_write", i);
			break;
		}
		if (!q_event(c.v.req_evd, &ev, "RDMA write", i) ||
		    !q_dto_ok(&ev, 0x3000 + i, "RDMA write", i))
			break;
		vt_msg_init(&ack, "wrote");
		ack.seed = (uint32_t)i;
		if (q_send(&c.v, c.ep, &ack, 0xAC00000 + i) != DAT_SUCCESS ||
		    !q_event(c.v.req_evd, &ev, "ack send", i) ||
		    !q_dto_ok(&ev, 0xAC00000 + i, "ack send", i))
			break;
		ok++;
	}
	vt_note("fence: %d of %d rounds written", ok, n);
	vt_expect_u64("rounds written through a fresh context", ok, n);
	if (ok == n) {
		peer_recv(&c, &m, "done");
		vt_disconnect(&c.v, c.ep);
	}
	peer_close(&c);
	return 0;
}

/* ---- lifetime ---------------------------------------------------------- */

/* A generous bound for calls that take well under a second, even under
 * TCG; below the ~55 s that rxe's ibv_destroy_qp waited for a type 2
 * window's QP reference (a kernel timeout, not scaled by a slow guest:
 * 10 x 4 under TCG still catches it). */
#define BOUND_SECS 10

static const char *bound_what;
static char bound_msg[160];

static void bound_alarm(int sig)
{
	size_t n = strlen(bound_msg);

	(void)sig;
	if (write(1, bound_msg, n) < 0)
		_exit(3);
	_exit(3);
}

/* A watchdog around one call: the process ends (exit 3, FAIL line) if
 * the call does not return within BOUND_SECS x TEST_TIMEOUT_SCALE.  The
 * whole test's alarm (vt_run) is put back afterwards. */
struct bound {
	struct sigaction old;
	unsigned rest;
	uint64_t t0;
};

static void bound_begin(struct bound *b, const char *what)
{
	struct sigaction sa;
	unsigned secs = BOUND_SECS * (unsigned)vt_scale;

	bound_what = what;
	snprintf(bound_msg, sizeof(bound_msg),
		 "FAIL %s did not return within %u s\n", what, secs);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bound_alarm;
	sigaction(SIGALRM, &sa, &b->old);
	b->rest = alarm(secs);
	b->t0 = vt_now_us();
}

static void bound_end(struct bound *b)
{
	unsigned used = (unsigned)((vt_now_us() - b->t0) / 1000000);

	alarm(0);
	sigaction(SIGALRM, &b->old, NULL);
	if (b->rest)
		alarm(b->rest > used + 1 ? b->rest - used : 1);
	vt_note("ok %s returned", bound_what);
}

#define BOUNDED(what, call)                                                    \
	({                                                                     \
		struct bound b_;                                               \
		DAT_RETURN r_;                                                 \
		bound_begin(&b_, what);                                        \
		r_ = (call);                                                   \
		bound_end(&b_);                                                \
		r_;                                                            \
	})

/* After an EP was freed: its flushed receives may still be queued on
 * the receive EVD; nothing else may be. */
static void drain_flushed(struct vt *v, DAT_EP_HANDLE old)
{
	DAT_EVENT ev;
	int n = 0;

	while (dat_evd_dequeue(v->rcv_evd, &ev) == DAT_SUCCESS) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d =
		    &ev.event_data.dto_completion_event_data;

		if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
		    d->ep_handle != old || d->status != DAT_DTO_ERR_FLUSHED)
			vt_fail("receive EVD after the EP's free: %s %s",
				vt_ev(ev.event_number), vt_dto(d->status));
		n++;
	}
	vt_note("ok %d flushed receive(s) of the freed EP", n);
}

/* One connection on psp's CR EVD, accepted by a fresh EP. */
static DAT_EP_HANDLE owner_accept_again(struct owner *s)
{
	DAT_EVENT ev;
	DAT_CR_HANDLE cr = vt_wait_cr(&s->v, &ev);
	DAT_EP_HANDLE ep = vt_ep(&s->v, &s->a);
	int i;

	for (i = 0; i < CTL_RECVS; i++)
		vt_ctl_post(&s->v, ep);
	BOUNDED("dat_cr_accept (EP B)", (vt_accept(&s->v, cr, ep, NULL, 0),
					  DAT_SUCCESS));
	return ep;
}

static int lifetime_server(const struct vt_opts *o)
{
	const char *type = getenv("DAPL_CMA_MW_TYPE");
	struct owner s;
	struct vt_msg m;
	DAT_RMR_PARAM p;
	DAT_RMR_CONTEXT c1, c2, c3;
	DAT_EP_HANDLE a, b;
	DAT_EVENT ev;

	vt_note("window type: %s", type && *type ? type : "the provider's");
	owner_open(&s, o);
	owner_accept(&s);
	a = s.ep;
	c1 = bind_wait(&s.v, s.rmr, &s.mem, WIN_OFF, WIN_LEN, PRIV_REMOTE, a,
		       0xD1);
	vt_fill(s.mem.buf + WIN_OFF, WIN_LEN, 5);
	msg_win(&m, "win", &s.mem, WIN_OFF, c1);
	vt_ctl_send(&s.v, a, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&s.v, a, &m, "written", 0);
	check_win("write through EP A's binding", &s.mem, WIN_OFF, 6);

	/* A rebind through A makes c1 stale; the client writes through it
	 * and A's connection breaks, with the window still bound through
	 * A. */
	c2 = bind_wait(&s.v, s.rmr, &s.mem, WIN2_OFF, WIN_LEN, PRIV_REMOTE, a,
		       0xD2);
	if (c2 == c1)
		vt_fail("rebind kept the context 0x%x", c1);
	vt_fill(s.mem.buf + WIN2_OFF, WIN_LEN, 7);
	msg_win(&m, "win2", &s.mem, WIN2_OFF, c2);
	vt_ctl_send(&s.v, a, &m, DAT_COMPLETION_DEFAULT_FLAG);
	owner_conn_end(&s);
	check_win("the old range after the write through the stale context",
		  &s.mem, WIN_OFF, 6);
	check_win("the bound range after the write through the stale context",
		  &s.mem, WIN2_OFF, 7);

	vt_expect("dat_ep_free(A) with the RMR bound through it",
		  BOUNDED("dat_ep_free(A)", dat_ep_free(a)), DAT_SUCCESS);
	s.ep = DAT_HANDLE_NULL;
	drain_flushed(&s.v, a);
	/* The RMR is still an RMR of the PZ: bound as before, or (where the
	 * window was tied to A's QP) unbound with its context revoked. */
	vt_must("dat_rmr_query after A's free",
		dat_rmr_query(s.rmr, DAT_RMR_FIELD_ALL, &p));
	vt_expect_ptr("rmr_query pz_handle", p.pz_handle, s.v.pz);
	if (p.rmr_context == c2 &&
	    p.lmr_triplet.segment_length == WIN_LEN)
		vt_note("ok the RMR kept its binding (context 0x%x)", c2);
	else if (!p.rmr_context && !p.lmr_triplet.segment_length &&
		 !p.mem_priv)
		vt_note("ok the RMR is unbound, its context revoked");
	else
		vt_fail("RMR after A's free: context 0x%x length %llu",
			p.rmr_context,
			(unsigned long long)p.lmr_triplet.segment_length);

	b = owner_accept_again(&s);
	s.ep = b;
	c3 = BOUNDED("dat_rmr_bind through B",
		     ({
			     DAT_LMR_TRIPLET t = vt_iov(&s.mem, WIN_OFF, WIN_LEN);
			     DAT_RMR_CONTEXT ctx = 0;
			     vt_must("dat_rmr_bind through B",
				     dat_rmr_bind(s.rmr, &t, PRIV_REMOTE, b,
						  rck(0xD3),
						  DAT_COMPLETION_DEFAULT_FLAG,
						  &ctx));
			     (DAT_RETURN)ctx;
		     }));
	expect_bind("bind through B completes", s.v.req_evd, s.rmr, 0xD3,
		    DAT_DTO_SUCCESS);
	if (c3 == c2 || c3 == c1)
		vt_fail("rebind through B kept an old context 0x%x", c3);
	expect_query(s.rmr, &s.v, &s.mem, WIN_OFF, WIN_LEN, PRIV_REMOTE, c3);
	msg_win(&m, "win3", &s.mem, WIN_OFF, c3);
	vt_ctl_send(&s.v, b, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&s.v, b, &m, "written3", 0);
	check_win("write through B's binding", &s.mem, WIN_OFF, 8);
	check_sentinels(&s.mem, WIN_OFF);
	check_sentinels(&s.mem, WIN2_OFF);
	vt_msg_init(&m, "done");
	vt_ctl_send(&s.v, b, &m, DAT_COMPLETION_DEFAULT_FLAG);
	if (vt_wait(s.v.conn_evd, vt_secs(30), &ev) != DAT_SUCCESS ||
	    ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
		vt_fail("B: no DISCONNECTED after the client's disconnect");

	vt_expect("dat_rmr_free",
		  BOUNDED("dat_rmr_free", dat_rmr_free(s.rmr)), DAT_SUCCESS);
	s.rmr = DAT_HANDLE_NULL;
	vt_expect("dat_ep_free(B)", BOUNDED("dat_ep_free(B)", dat_ep_free(b)),
		  DAT_SUCCESS);
	s.ep = DAT_HANDLE_NULL;
	vt_expect("dat_psp_free", BOUNDED("dat_psp_free", dat_psp_free(s.psp)),
		  DAT_SUCCESS);
	vt_mem_free(&s.mem);
	BOUNDED("dat_ia_close", (vt_close(&s.v), DAT_SUCCESS));
	return 0;
}

static int lifetime_client(const struct vt_opts *o)
{
	struct peer c;
	struct vt_msg win, win2, m;
	DAT_EP_HANDLE a;

	peer_open(&c, o);
	a = c.ep;
	peer_recv(&c, &win, "win");
	vt_fill(c.mem.buf, WIN_LEN, 6);
	peer_rdma(&c, &win, 0, 0, 0, DAT_DTO_SUCCESS);
	peer_tell(&c, "written");
	peer_recv(&c, &win2, "win2");
	/* the stale context, at the old range */
	peer_write_dead(&c, &win, 0, 0, 9);
	vt_expect("dat_ep_free(A)", BOUNDED("dat_ep_free(A)", dat_ep_free(a)),
		  DAT_SUCCESS);
	drain_flushed(&c.v, a);

	BOUNDED("dat_ep_connect (EP B)",
		(c.ep = vt_client_one(&c.v, o, &c.a, CTL_RECVS), DAT_SUCCESS));
	peer_recv(&c, &m, "win3");
	vt_fill(c.mem.buf, WIN_LEN, 8);
	peer_rdma(&c, &m, 0, 0, 0, DAT_DTO_SUCCESS);
	memset(c.mem.buf, 0, WIN_LEN);
	peer_rdma(&c, &m, 0, 0, 1, DAT_DTO_SUCCESS);
	vt_check("read back through B's binding", c.mem.buf, WIN_LEN, 8);
	peer_tell(&c, "written3");
	peer_recv(&c, &m, "done");
	vt_disconnect(&c.v, c.ep);
	vt_expect("dat_ep_free(B)", BOUNDED("dat_ep_free(B)", dat_ep_free(c.ep)),
		  DAT_SUCCESS);
	vt_mem_free(&c.mem);
	BOUNDED("dat_ia_close", (vt_close(&c.v), DAT_SUCCESS));
	return 0;
}

/* ---- main ---------------------------------------------------------------------- */

static const struct vt_test tests[] = {
	{ "rw", rw_server, rw_client },
	{ "rebind", rebind_server, rebind_client },
	{ "free", free_server, free_client },
	{ "priv", priv_server, priv_client },
	{ "bindfail", bindfail_server, bindfail_client },
	{ "fence", fence_server, fence_client },
	{ "lifetime", lifetime_server, lifetime_client },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	const struct vt_test *const tables[] = {tests};

	return vt_run(argc, argv, "dattest-rmr", tables, 1, 150, 0);
}
