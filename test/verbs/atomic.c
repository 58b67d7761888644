/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The atomic extension (dat_ib_extensions.h) on rxe, part of
 * dattest-verbs (test/verbs/atomic.bats):
 *
 *   atomic-count    server + N clients (-n, default 2): every client adds
 *		     1 to one remote counter 10,000 times
 *		     (DATTEST_ATOMIC_ADDS=<n> changes it, the same for the
 *		     server and its clients), pipelined; the counter ends at
 *		     exactly N * 10,000 and each client's original values
 *		     rise strictly; then compare-and-swap hit and miss on a
 *		     slot of its own return the right original values.
 *		     DATTEST_ATOMIC_OFFSET=<bytes> (a multiple of 8) puts
 *		     the counter and the slots that far into the server's
 *		     LMR (a provider that translates addresses into
 *		     offsets, test/ofi/atomic.bats); the values are
 *		     checked at the server.
 *   atomic-noaccess server + client: a target registered without
 *		     DAT_IB_MEM_PRIV_REMOTE_ATOMIC gives
 *		     DAT_DTO_ERR_REMOTE_ACCESS and the connection breaks.
 *   atomic-errors   local: every error that comes before anything is
 *		     posted, on an unconnected EP.
 *   atomic-absent   local, with DAPL_CMA_DISABLE=atomic: the provider
 *		     attributes say FALSE and both calls
 *		     DAT_MODEL_NOT_SUPPORTED.
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include <dat/dat_ib_extensions.h>

#define ERR(t, s) ((DAT_RETURN)(DAT_CLASS_ERROR | (t) | (s)))
#define ATOMIC_ADDS atomic_adds()
#define WINDOW 16
#define CAS_SWAP 0xABC0u
#define AREA 64 /* counter at 0, client k's CAS slot at 8 * (k + 1) */

/* each client's fetch-and-adds: DATTEST_ATOMIC_ADDS, else 10,000 */
static int atomic_adds(void)
{
	static int n;
	const char *s;

	if (!n) {
		s = getenv("DATTEST_ATOMIC_ADDS");
		n = s ? atoi(s) : 10000;
		if (n < 1 || n > 10000000)
			vt_die("DATTEST_ATOMIC_ADDS=%s: want 1..10000000", s);
	}
	return n;
}

static const char *attr_value(const struct vt *v, const char *name)
{
	DAT_COUNT i;

	for (i = 0; i < v->prov_attr.num_provider_specific_attr; i++)
		if (!strcmp(v->prov_attr.provider_specific_attr[i].name, name))
			return v->prov_attr.provider_specific_attr[i].value;
	return "(missing)";
}

static void expect_attr(const struct vt *v, const char *name, const char *want)
{
	const char *got = attr_value(v, name);

	if (strcmp(got, want))
		vt_fail("provider attribute %s=%s, want %s", name, got, want);
	else
		vt_note("ok provider attribute %s=%s", name, got);
}

/* One atomic completion: DAT_IB_DTO_EVENT with the DTO data. */
static int expect_atomic_done(const char *what, struct vt *v, DAT_EP_HANDLE ep,
			      uint64_t cookie, DAT_DTO_COMPLETION_STATUS st)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc = vt_wait(v->req_evd, vt_secs(15), &ev);

	d = &ev.event_data.dto_completion_event_data;
	if (rc != DAT_SUCCESS) {
		vt_fail("%s: dat_evd_wait: %s", what, vt_rc(rc));
		return 0;
	}
	if (ev.event_number != DAT_IB_DTO_EVENT || d->ep_handle != ep ||
	    d->user_cookie.as_64 != cookie || d->status != st ||
	    d->transfered_length != (st == DAT_DTO_SUCCESS ? 8u : 0u)) {
		vt_fail("%s: event 0x%x ep %p cookie 0x%llx status %s length "
			"%llu; want DAT_IB_DTO_EVENT %p 0x%llx %s %u",
			what, ev.event_number, d->ep_handle,
			(unsigned long long)d->user_cookie.as_64,
			vt_dto(d->status),
			(unsigned long long)d->transfered_length, ep,
			(unsigned long long)cookie, vt_dto(st),
			st == DAT_DTO_SUCCESS ? 8 : 0);
		return 0;
	}
	return 1;
}

static DAT_RETURN fadd(DAT_EP_HANDLE ep, uint64_t add, struct vt_mem *l,
		       DAT_VLEN off, uint64_t cookie, DAT_RMR_TRIPLET *r)
{
	DAT_LMR_TRIPLET t = vt_iov(l, off, 8);

	return dat_ib_post_fetch_and_add(ep, add, &t, vt_cookie(cookie), r,
					 DAT_COMPLETION_DEFAULT_FLAG);
}

/* ---- atomic-count ------------------------------------------------------- */

static int count_server(const struct vt_opts *o)
{
	int n = o->count > 0 ? o->count : 2, k, done = 0;
	DAT_EP_HANDLE ep[8];
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	struct vt_mem area;
	uint64_t *cnt;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	struct vt v;

	const char *e = getenv("DATTEST_ATOMIC_OFFSET");
	size_t off = e ? strtoul(e, NULL, 0) & ~(size_t)7 : 0;

	if (n > 7)
		vt_die("at most 7 clients");
	if (off)
		vt_note("ok counter and slots at offset %zu of the LMR", off);
	vt_open(&v, o->ia_name);
	expect_attr(&v, DAT_IB_ATTR_FETCH_AND_ADD, "TRUE");
	expect_attr(&v, DAT_IB_ATTR_CMP_AND_SWAP, "TRUE");
	vt_mem_alloc(&v, &area, AREA + off,
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
			 DAT_MEM_PRIV_REMOTE_READ_FLAG |
			 DAT_IB_MEM_PRIV_REMOTE_ATOMIC);
	cnt = (uint64_t *)(area.buf + off);
	vt_ep_attr(&v, &a);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	/*
	 * Every client is connected before any learns where the counter is:
	 * otherwise a quick first client could add, disconnect and put its
	 * DISCONNECTED on conn_evd while the server still waits there for
	 * the next client's ESTABLISHED (and the adds would not overlap).
	 */
	for (k = 0; k < n; k++) {
		DAT_CR_HANDLE cr = vt_wait_cr(&v, &ev);

		ep[k] = vt_ep(&v, &a);
		vt_ctl_post(&v, ep[k]);
		vt_accept(&v, cr, ep[k], NULL, 0);
	}
	for (k = 0; k < n; k++) {
		struct vt_msg m;

		vt_msg_init(&m, "counter");
		m.addr = (uintptr_t)(area.buf + off);
		m.len = AREA;
		m.rmr_context = area.rctx;
		m.arg = (uint32_t)k;
		vt_ctl_send(&v, ep[k], &m, DAT_COMPLETION_DEFAULT_FLAG);
	}
	/* the clients' "done", in any order */
	while (done < n) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d =
		    &ev.event_data.dto_completion_event_data;

		if (vt_wait(v.rcv_evd, vt_secs(90), &ev) != DAT_SUCCESS ||
		    ev.event_number != DAT_DTO_COMPLETION_EVENT ||
		    d->status != DAT_DTO_SUCCESS)
			vt_die("no 'done' from client %d", done);
		done++;
	}
	if (vt_expect_u64("the counter after every client's adds", cnt[0],
			  (uint64_t)n * ATOMIC_ADDS))
		vt_note("ok the counter after every client's adds: %llu",
			(unsigned long long)cnt[0]);
	for (k = 0; k < n; k++) {
		char what[64];

		snprintf(what, sizeof(what), "client %d's CAS slot", k);
		vt_expect_u64(what, cnt[k + 1], CAS_SWAP + k);
	}
	for (k = 0; k < n; k++) {
		DAT_EVENT e;

		if (vt_expect_event("disconnected", v.conn_evd,
				    DAT_CONNECTION_EVENT_DISCONNECTED, &e) != 1)
			break;
	}
	for (k = 0; k < n; k++)
		vt_ep_free(ep[k]);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&area);
	vt_close(&v);
	return 0;
}

/* ATOMIC_ADDS fetch-and-adds of 1, WINDOW at a time; the originals of one
 * EP come back in order and must rise strictly. */
static void count_adds(struct vt *v, DAT_EP_HANDLE ep, struct vt_mem *res,
		       DAT_RMR_TRIPLET *r)
{
	uint64_t *orig = (uint64_t *)res->buf, last = 0;
	int posted = 0, done = 0, bad = 0;

	while (done < ATOMIC_ADDS) {
		while (posted < ATOMIC_ADDS && posted - done < WINDOW) {
			if (fadd(ep, 1, res, 8 * (posted % WINDOW), posted,
				 r) != DAT_SUCCESS)
				vt_die("fetch_and_add %d refused", posted);
			posted++;
		}
		if (!expect_atomic_done("fetch_and_add", v, ep, done,
					DAT_DTO_SUCCESS))
			vt_die("fetch_and_add %d did not complete", done);
		if ((done && orig[done % WINDOW] <= last) ||
		    orig[done % WINDOW] >= 7ull * ATOMIC_ADDS) {
			if (!bad++)
				vt_fail("fetch_and_add %d: original %llu after "
					"%llu",
					done,
					(unsigned long long)orig[done % WINDOW],
					(unsigned long long)last);
		}
		last = orig[done % WINDOW];
		done++;
	}
	vt_expect_true("every fetch_and_add completed, originals rising",
		       done == ATOMIC_ADDS && !bad);
}

static void count_cas(struct vt *v, DAT_EP_HANDLE ep, struct vt_mem *res,
		      const struct vt_msg *m)
{
	DAT_RMR_TRIPLET r = vt_riov(m, 8 * (m->arg + 1), 8);
	DAT_LMR_TRIPLET t = vt_iov(res, 0, 8);
	uint64_t *orig = (uint64_t *)res->buf;
	uint64_t want = CAS_SWAP + m->arg;

	/* hit: 0 -> want, the original is 0 */
	orig[0] = 0xdead;
	vt_expect("dat_ib_post_cmp_and_swap(hit)",
		  dat_ib_post_cmp_and_swap(ep, 0, want, &t, vt_cookie(0xC1), &r,
					   DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	expect_atomic_done("cmp_and_swap (hit)", v, ep, 0xC1, DAT_DTO_SUCCESS);
	vt_expect_u64("cmp_and_swap hit: original", orig[0], 0);
	/* miss: the compare value is not there, nothing changes */
	orig[0] = 0xdead;
	vt_expect("dat_ib_post_cmp_and_swap(miss)",
		  dat_ib_post_cmp_and_swap(ep, 5, 7, &t, vt_cookie(0xC2), &r,
					   DAT_COMPLETION_DEFAULT_FLAG),
		  DAT_SUCCESS);
	expect_atomic_done("cmp_and_swap (miss)", v, ep, 0xC2, DAT_DTO_SUCCESS);
	vt_expect_u64("cmp_and_swap miss: original", orig[0], want);
	/* and the slot still holds the swapped value (add 0 reads it) */
	orig[0] = 0xdead;
	vt_expect("dat_ib_post_fetch_and_add(0)", fadd(ep, 0, res, 0, 0xC3, &r),
		  DAT_SUCCESS);
	expect_atomic_done("fetch_and_add(0)", v, ep, 0xC3, DAT_DTO_SUCCESS);
	vt_expect_u64("slot after the miss", orig[0], want);
}

static int count_client(const struct vt_opts *o)
{
	struct vt_mem res;
	DAT_RMR_TRIPLET r;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &res, 8 * WINDOW,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &m, "counter", 0);
	r = vt_riov(&m, 0, 8);
	count_adds(&v, ep, &res, &r);
	count_cas(&v, ep, &res, &m);
	vt_msg_init(&m, "done");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&res);
	vt_close(&v);
	return 0;
}

/* ---- atomic-noaccess ----------------------------------------------------- */

/* Waits for the end of a broken connection: BROKEN or DISCONNECTED. */
static void expect_conn_end(struct vt *v, const char *who)
{
	DAT_EVENT ev;
	DAT_RETURN rc = vt_wait(v->conn_evd, vt_secs(30), &ev);

	if (rc != DAT_SUCCESS)
		vt_fail("%s: no end of the connection: %s", who, vt_rc(rc));
	else if (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
		 ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
		vt_fail("%s: event %s, want BROKEN or DISCONNECTED", who,
			vt_ev(ev.event_number));
	else
		vt_note("ok %s: %s", who, vt_ev(ev.event_number));
}

static int noaccess_server(const struct vt_opts *o)
{
	struct vt_mem tgt;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	/* remote read and write, but no remote atomic */
	vt_mem_alloc(&v, &tgt, AREA, DAT_MEM_PRIV_ALL_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_serve_one(&v, &a, 0, &psp);
	vt_msg_init(&m, "target");
	m.addr = (uintptr_t)tgt.buf;
	m.len = AREA;
	m.rmr_context = tgt.rctx;
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	expect_conn_end(&v, "server");
	vt_expect_u64("the target is untouched", *(uint64_t *)tgt.buf, 0);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

static int noaccess_client(const struct vt_opts *o)
{
	struct vt_mem res;
	DAT_RMR_TRIPLET r;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &res, 8, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &m, "target", 0);
	r = vt_riov(&m, 0, 8);
	vt_expect("dat_ib_post_fetch_and_add(no atomic privilege)",
		  fadd(ep, 1, &res, 0, 0xA1, &r), DAT_SUCCESS);
	expect_atomic_done("fetch_and_add without the privilege", &v, ep, 0xA1,
			   DAT_DTO_ERR_REMOTE_ACCESS);
	expect_conn_end(&v, "client");
	vt_ep_free(ep);
	vt_mem_free(&res);
	vt_close(&v);
	return 0;
}

/* ---- atomic-errors, atomic-absent (local) -------------------------------- */

static int errors_local(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET t, t4;
	DAT_RMR_TRIPLET r = {0}, rbad;
	DAT_DTO_COOKIE ck = vt_cookie(1);
	struct vt_mem l, other;
	DAT_PZ_HANDLE pz2;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	expect_attr(&v, DAT_IB_ATTR_FETCH_AND_ADD, "TRUE");
	expect_attr(&v, DAT_IB_ATTR_CMP_AND_SWAP, "TRUE");
	vt_mem_alloc(&v, &l, 64, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	t = vt_iov(&l, 0, 8);
	t4 = vt_iov(&l, 0, 4);
	r.rmr_context = 0x1234;
	r.target_address = 0x10000;
	r.segment_length = 8;
	rbad = r;
	rbad.target_address = 0x10004;

	/* the handle: libdat's check, then the provider's type check */
	vt_expect("fetch_and_add(NULL)",
		  dat_ib_post_fetch_and_add(NULL, 1, &t, ck, &r, 0),
		  ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1));
	vt_expect("fetch_and_add(IA handle)",
		  dat_ib_post_fetch_and_add(v.ia, 1, &t, ck, &r, 0),
		  ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	vt_expect("cmp_and_swap(PZ handle)",
		  dat_ib_post_cmp_and_swap(v.pz, 1, 2, &t, ck, &r, 0),
		  ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	vt_expect("extension op 99", dat_extension_op(ep, 99),
		  ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	/* remote address not 8-byte aligned: the remote_iov's ARG */
	vt_expect("fetch_and_add(remote address 4 mod 8)",
		  dat_ib_post_fetch_and_add(ep, 1, &t, ck, &rbad, 0),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	vt_expect("cmp_and_swap(remote address 4 mod 8)",
		  dat_ib_post_cmp_and_swap(ep, 1, 2, &t, ck, &rbad, 0),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	vt_expect("fetch_and_add(remote_iov NULL)",
		  dat_ib_post_fetch_and_add(ep, 1, &t, ck, NULL, 0),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	/* local buffer shorter than 8 bytes */
	vt_expect("fetch_and_add(local 4 bytes)",
		  dat_ib_post_fetch_and_add(ep, 1, &t4, ck, &r, 0),
		  ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE));
	vt_expect("cmp_and_swap(local 4 bytes)",
		  dat_ib_post_cmp_and_swap(ep, 1, 2, &t4, ck, &r, 0),
		  ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE));
	vt_expect("fetch_and_add(local_iov NULL)",
		  dat_ib_post_fetch_and_add(ep, 1, NULL, ck, &r, 0),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	vt_expect("cmp_and_swap(local_iov NULL)",
		  dat_ib_post_cmp_and_swap(ep, 1, 2, NULL, ck, &r, 0),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	/* a local segment outside its LMR, an LMR of another PZ */
	t = vt_iov(&l, 60, 8);
	vt_expect("fetch_and_add(local outside its LMR)",
		  dat_ib_post_fetch_and_add(ep, 1, &t, ck, &r, 0),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	vt_must("dat_pz_create", dat_pz_create(v.ia, &pz2));
	{
		DAT_PZ_HANDLE keep = v.pz;

		v.pz = pz2;
		vt_mem_alloc(&v, &other, 64, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
		v.pz = keep;
	}
	t = vt_iov(&other, 0, 8);
	vt_expect("fetch_and_add(LMR of another PZ)",
		  dat_ib_post_fetch_and_add(ep, 1, &t, ck, &r, 0),
		  ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE));
	t = vt_iov(&l, 0, 8);
	/* completion flags: the flags argument's ARG */
	vt_expect("fetch_and_add(flags 0x4000)",
		  dat_ib_post_fetch_and_add(ep, 1, &t, ck, &r, 0x4000),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	vt_expect("cmp_and_swap(flags 0x4000)",
		  dat_ib_post_cmp_and_swap(ep, 1, 2, &t, ck, &r, 0x4000),
		  ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	/* everything right but the EP is not connected */
	vt_expect("fetch_and_add(UNCONNECTED EP)",
		  dat_ib_post_fetch_and_add(ep, 1, &t, ck, &r, 0),
		  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	vt_expect_empty("request EVD", v.req_evd);
	vt_ep_free(ep);
	vt_mem_free(&other);
	vt_expect("dat_pz_free", dat_pz_free(pz2), DAT_SUCCESS);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

static int absent_local(const struct vt_opts *o)
{
	DAT_DTO_COOKIE ck = vt_cookie(1);
	DAT_RMR_TRIPLET r = {0};
	DAT_LMR_TRIPLET t;
	struct vt_mem l;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	expect_attr(&v, DAT_IB_ATTR_FETCH_AND_ADD, "FALSE");
	expect_attr(&v, DAT_IB_ATTR_CMP_AND_SWAP, "FALSE");
	vt_mem_alloc(&v, &l, 64, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	t = vt_iov(&l, 0, 8);
	r.target_address = 0x10000;
	r.segment_length = 8;
	vt_expect("fetch_and_add without device atomics",
		  dat_ib_post_fetch_and_add(ep, 1, &t, ck, &r, 0),
		  ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	vt_expect("cmp_and_swap without device atomics",
		  dat_ib_post_cmp_and_swap(ep, 1, 2, &t, ck, &r, 0),
		  ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_atomic_tests[] = {
    {"atomic-count", count_server, count_client},
    {"atomic-noaccess", noaccess_server, noaccess_client},
    {"atomic-errors", errors_local, NULL},
    {"atomic-absent", absent_local, NULL},
    {NULL, NULL, NULL},
};
