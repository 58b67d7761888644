/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_util.c - helpers of dattest-verbs: reporting, IA setup, memory,
 * bounded event waits, connection set-up and control messages.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vt.h"
#include "../lib/dat_names.h"

int vt_failures;
int vt_quiet;
int vt_scale = 1;

/* ---- reporting ------------------------------------------------------- */

/* the names: test/lib/dat_names.h */
const char *vt_rc(DAT_RETURN rc)
{
	return dat_name_rc(rc);
}

const char *vt_ev(DAT_EVENT_NUMBER n)
{
	return dat_name_event(n);
}

const char *vt_dto(DAT_DTO_COMPLETION_STATUS s)
{
	return dat_name_dto(s);
}

const char *vt_state(DAT_EP_STATE s)
{
	return dat_name_ep_state(s);
}

void vt_fail(const char *fmt, ...)
{
	va_list ap;

	vt_failures++;
	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* The test's watchdog (vt_run): SIGALRM once the test made no progress
 * for its alarm_secs x TEST_TIMEOUT_SCALE.  Each note re-arms it
 * (vt_progress), so that a test that is only slow, on a busy machine,
 * runs on, and one that hangs ends as before (issue 34). */
static unsigned run_alarm_secs;
static pid_t run_pid;
static void run_alarm(int sig);

void vt_progress(void)
{
	struct sigaction sa;

	/* only the watchdog of vt_run, in its own process: not a bound of
	 * one call (rmr.c) nor a forked child's (faults.c) */
	if (run_alarm_secs && getpid() == run_pid &&
	    !sigaction(SIGALRM, NULL, &sa) && sa.sa_handler == run_alarm)
		alarm(run_alarm_secs * vt_scale);
}

void vt_note(const char *fmt, ...)
{
	va_list ap;

	vt_progress();
	if (vt_quiet)
		return;
	printf("  ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void vt_die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\nFAILED: cannot go on (%d earlier failure(s))\n", vt_failures);
	fflush(stdout);
	exit(1);
}

int vt_expect(const char *what, DAT_RETURN got, DAT_RETURN want)
{
	if (got == want) {
		vt_note("ok %s: %s", what, vt_rc(got));
		return 1;
	}
	vt_fail("%s: got %s, want %s", what, vt_rc(got), vt_rc(want));
	return 0;
}

int vt_expect_type(const char *what, DAT_RETURN got, DAT_RETURN want_type)
{
	if (DAT_GET_TYPE(got) == want_type && (want_type == DAT_SUCCESS) ==
	    (got == DAT_SUCCESS)) {
		vt_note("ok %s: %s", what, vt_rc(got));
		return 1;
	}
	vt_fail("%s: got %s, want type %s", what, vt_rc(got),
		vt_rc(want_type | DAT_CLASS_ERROR));
	return 0;
}

void vt_must(const char *what, DAT_RETURN got)
{
	if (got != DAT_SUCCESS)
		vt_die("%s: got %s, want DAT_SUCCESS", what, vt_rc(got));
}

int vt_expect_u64(const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return 1;
	vt_fail("%s: got %llu (0x%llx), want %llu (0x%llx)", what,
		(unsigned long long)got, (unsigned long long)got,
		(unsigned long long)want, (unsigned long long)want);
	return 0;
}

int vt_expect_ptr(const char *what, const void *got, const void *want)
{
	if (got == want)
		return 1;
	vt_fail("%s: got %p, want %p", what, got, want);
	return 0;
}

int vt_expect_true(const char *what, int cond)
{
	if (cond)
		return 1;
	vt_fail("%s", what);
	return 0;
}

/* ---- time -------------------------------------------------------------- */

uint64_t vt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

DAT_TIMEOUT vt_secs(unsigned n)
{
	return (DAT_TIMEOUT)n * 1000000u * (unsigned)vt_scale;
}

DAT_TIMEOUT vt_msecs(unsigned n)
{
	return (DAT_TIMEOUT)n * 1000u * (unsigned)vt_scale;
}

void vt_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- IA ---------------------------------------------------------------- */

static void evd(struct vt *v, DAT_COUNT qlen, DAT_EVD_FLAGS flags,
		DAT_EVD_HANDLE *h, const char *what)
{
	vt_must(what, dat_evd_create(v->ia, qlen, DAT_HANDLE_NULL, flags, h));
}

void vt_open(struct vt *v, const char *name)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	memset(v, 0, sizeof(*v));
	v->name = name;
	rc = dat_ia_open((DAT_NAME_PTR)name, 16, &async, &v->ia);
	if (rc != DAT_SUCCESS)
		vt_die("dat_ia_open(%s): %s", name, vt_rc(rc));
	vt_must("dat_ia_query",
		dat_ia_query(v->ia, &v->async_evd, DAT_IA_FIELD_ALL,
			     &v->ia_attr, DAT_PROVIDER_FIELD_ALL,
			     &v->prov_attr));
	vt_must("dat_pz_create", dat_pz_create(v->ia, &v->pz));
	evd(v, 64, DAT_EVD_DTO_FLAG, &v->req_evd, "request EVD");
	evd(v, 64, DAT_EVD_DTO_FLAG, &v->rcv_evd, "receive EVD");
	evd(v, 16, DAT_EVD_CONNECTION_FLAG, &v->conn_evd, "connection EVD");
	evd(v, 16, DAT_EVD_CR_FLAG, &v->cr_evd, "CR EVD");
	vt_ctl_init(v);
}

static void free_evd(DAT_EVD_HANDLE *h, const char *what)
{
	if (*h != DAT_HANDLE_NULL)
		vt_expect(what, dat_evd_free(*h), DAT_SUCCESS);
	*h = DAT_HANDLE_NULL;
}

/* Everything a test created must be gone: a graceful close proves it. */
void vt_close(struct vt *v)
{
	if (v->ctl) {
		vt_mem_free(v->ctl);
		free(v->ctl);
		v->ctl = NULL;
	}
	free_evd(&v->req_evd, "dat_evd_free(request)");
	free_evd(&v->rcv_evd, "dat_evd_free(receive)");
	free_evd(&v->conn_evd, "dat_evd_free(connection)");
	free_evd(&v->cr_evd, "dat_evd_free(CR)");
	vt_expect("dat_pz_free", dat_pz_free(v->pz), DAT_SUCCESS);
	vt_expect("dat_ia_close(GRACEFUL)",
		  dat_ia_close(v->ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
}

static DAT_COUNT cmin(DAT_COUNT a, DAT_COUNT b)
{
	return a < b ? a : b;
}

void vt_ep_attr(const struct vt *v, DAT_EP_ATTR *a)
{
	const DAT_IA_ATTR *ia = &v->ia_attr;
	DAT_VLEN msg = 2u << 20;

	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	a->max_message_size = ia->max_message_size < msg ?
		ia->max_message_size : msg;
	a->max_rdma_size = ia->max_rdma_size < msg ? ia->max_rdma_size : msg;
	a->qos = DAT_QOS_BEST_EFFORT;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->max_recv_dtos = 32;
	a->max_request_dtos = 32;
	a->max_recv_iov = cmin(4, ia->max_iov_segments_per_dto);
	a->max_request_iov = cmin(4, ia->max_iov_segments_per_dto);
	a->max_rdma_read_in = cmin(4, ia->max_rdma_read_per_ep_in);
	a->max_rdma_read_out = cmin(4, ia->max_rdma_read_per_ep_out);
	a->srq_soft_hw = DAT_HW_DEFAULT;
	a->max_rdma_read_iov = cmin(4, ia->max_iov_segments_per_rdma_read);
	a->max_rdma_write_iov = cmin(4, ia->max_iov_segments_per_rdma_write);
}

DAT_EP_HANDLE vt_ep(struct vt *v, const DAT_EP_ATTR *a)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;

	vt_must("dat_ep_create",
		dat_ep_create(v->ia, v->pz, v->rcv_evd, v->req_evd,
			      v->conn_evd, a, &ep));
	return ep;
}

void vt_ep_free(DAT_EP_HANDLE ep)
{
	vt_expect("dat_ep_free", dat_ep_free(ep), DAT_SUCCESS);
}

DAT_EP_STATE vt_ep_state(DAT_EP_HANDLE ep)
{
	DAT_EP_STATE st = (DAT_EP_STATE)-1;
	DAT_BOOLEAN ri, qi;
	DAT_RETURN rc = dat_ep_get_status(ep, &st, &ri, &qi);

	if (rc != DAT_SUCCESS)
		vt_fail("dat_ep_get_status: %s", vt_rc(rc));
	return st;
}

void vt_expect_state(const char *what, DAT_EP_HANDLE ep, DAT_EP_STATE want)
{
	DAT_EP_STATE st = vt_ep_state(ep);

	if (st == want)
		vt_note("ok %s: %s", what, vt_state(st));
	else
		vt_fail("%s: EP state %s, want %s", what, vt_state(st),
			vt_state(want));
}

void vt_sockaddr(struct sockaddr_in *sin, const char *addr)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
		vt_die("bad IPv4 address '%s'", addr);
}

int vt_addr_is(const char *what, const DAT_SOCK_ADDR *sa, const char *addr)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	char got[INET_ADDRSTRLEN] = "?";

	if (!sa) {
		vt_fail("%s: NULL address, want %s", what, addr);
		return 0;
	}
	if (sa->sa_family != AF_INET) {
		vt_fail("%s: family %d, want AF_INET %s", what, sa->sa_family,
			addr);
		return 0;
	}
	inet_ntop(AF_INET, &sin->sin_addr, got, sizeof(got));
	if (strcmp(got, addr)) {
		vt_fail("%s: %s, want %s", what, got, addr);
		return 0;
	}
	vt_note("ok %s: %s", what, got);
	return 1;
}

/* ---- memory ------------------------------------------------------------ */

void vt_mem_alloc(struct vt *v, struct vt_mem *m, DAT_VLEN len,
		  DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION r;
	void *p;

	memset(m, 0, sizeof(*m));
	if (posix_memalign(&p, 4096, len ? len : 1))
		vt_die("out of memory (%llu bytes)", (unsigned long long)len);
	memset(p, 0, len);
	m->buf = p;
	m->len = len;
	r.for_va = p;
	vt_must("dat_lmr_create(VIRTUAL)",
		dat_lmr_create(v->ia, DAT_MEM_TYPE_VIRTUAL, r, len, v->pz,
			       priv, &m->lmr, &m->lctx, &m->rctx,
			       &m->reg_len, &m->reg_addr));
	vt_expect_true("registered region covers the buffer",
		       m->reg_addr <= (DAT_VADDR)(uintptr_t)p &&
		       m->reg_addr + m->reg_len >= (uintptr_t)p + len);
}

void vt_mem_free(struct vt_mem *m)
{
	if (m->lmr)
		vt_expect("dat_lmr_free", dat_lmr_free(m->lmr), DAT_SUCCESS);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

DAT_LMR_TRIPLET vt_iov(const struct vt_mem *m, DAT_VLEN off, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = m->lctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(m->buf + off);
	t.segment_length = len;
	return t;
}

DAT_RMR_TRIPLET vt_riov(const struct vt_msg *msg, DAT_VLEN off, DAT_VLEN len)
{
	DAT_RMR_TRIPLET t;

	t.rmr_context = msg->rmr_context;
	t.pad = 0;
	t.target_address = msg->addr + off;
	t.segment_length = len;
	return t;
}

/* The pattern byte at position i of a stream with seed s. */
static unsigned char pat(uint32_t s, size_t i)
{
	return (unsigned char)(s * 151u + i * 7u + (i >> 9) * 13u + (s >> 8));
}

void vt_fill_at(void *buf, size_t len, uint32_t seed, size_t start)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, start + i);
}

void vt_fill(void *buf, size_t len, uint32_t seed)
{
	vt_fill_at(buf, len, seed, 0);
}

int vt_check_at(const char *what, const void *buf, size_t len, uint32_t seed,
		size_t start)
{
	const unsigned char *p = buf;
	size_t i, bad = 0, first = 0;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, start + i) && !bad++)
			first = i;
	if (!bad) {
		vt_note("ok %s: %zu bytes match", what, len);
		return 1;
	}
	vt_fail("%s: %zu of %zu bytes differ, first at %zu (0x%02x, want 0x%02x)",
		what, bad, len, first, p[first], pat(seed, start + first));
	return 0;
}

int vt_check(const char *what, const void *buf, size_t len, uint32_t seed)
{
	return vt_check_at(what, buf, len, seed, 0);
}

DAT_DTO_COOKIE vt_cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* ---- events ------------------------------------------------------------ */

DAT_RETURN vt_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT t, DAT_EVENT *ev)
{
	DAT_COUNT nmore = 0;

	memset(ev, 0, sizeof(*ev));
	return dat_evd_wait(evd, t, 1, ev, &nmore);
}

int vt_expect_event(const char *what, DAT_EVD_HANDLE evd,
		    DAT_EVENT_NUMBER want, DAT_EVENT *ev)
{
	DAT_RETURN rc = vt_wait(evd, vt_secs(15), ev);

	if (rc != DAT_SUCCESS) {
		vt_fail("%s: dat_evd_wait: %s, want event %s", what, vt_rc(rc),
			vt_ev(want));
		return 0;
	}
	if (ev->event_number != want) {
		vt_fail("%s: event %s, want %s", what, vt_ev(ev->event_number),
			vt_ev(want));
		return 0;
	}
	vt_expect_ptr("event's evd_handle", ev->evd_handle, evd);
	vt_note("ok %s: %s", what, vt_ev(want));
	return 1;
}

DAT_RETURN vt_poll(DAT_EVD_HANDLE evd, DAT_TIMEOUT t, DAT_EVENT *ev)
{
	uint64_t end = vt_now_us() + t;
	DAT_RETURN rc;

	for (;;) {
		memset(ev, 0, sizeof(*ev));
		rc = dat_evd_dequeue(evd, ev);
		if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			return rc;
		if (vt_now_us() >= end)
			return DAT_TIMEOUT_EXPIRED;
		vt_sleep_ms(1);
	}
}

int vt_check_dto(const char *what, const DAT_EVENT *ev, DAT_EP_HANDLE ep,
		 uint64_t cookie, DAT_DTO_COMPLETION_STATUS status,
		 DAT_VLEN len)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	int ok = 1;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT) {
		vt_fail("%s: event %s, want DAT_DTO_COMPLETION_EVENT", what,
			vt_ev(ev->event_number));
		return 0;
	}
	if (d->ep_handle != ep) {
		vt_fail("%s: ep_handle %p, want %p", what, d->ep_handle, ep);
		ok = 0;
	}
	if (d->user_cookie.as_64 != cookie) {
		vt_fail("%s: cookie 0x%llx, want 0x%llx", what,
			(unsigned long long)d->user_cookie.as_64,
			(unsigned long long)cookie);
		ok = 0;
	}
	if (d->status != status) {
		vt_fail("%s: status %s, want %s", what, vt_dto(d->status),
			vt_dto(status));
		ok = 0;
	}
	if (len != (DAT_VLEN)-1 && d->transfered_length != len) {
		vt_fail("%s: transfered_length %llu, want %llu", what,
			(unsigned long long)d->transfered_length,
			(unsigned long long)len);
		ok = 0;
	}
	if (ok)
		vt_note("ok %s: %s cookie 0x%llx length %llu", what,
			vt_dto(d->status), (unsigned long long)cookie,
			(unsigned long long)d->transfered_length);
	return ok;
}

int vt_expect_dto(const char *what, DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep,
		  uint64_t cookie, DAT_DTO_COMPLETION_STATUS status,
		  DAT_VLEN len)
{
	DAT_EVENT ev;
	DAT_RETURN rc = vt_wait(evd, vt_secs(15), &ev);

	if (rc != DAT_SUCCESS) {
		vt_fail("%s: dat_evd_wait: %s, want a DTO completion", what,
			vt_rc(rc));
		return 0;
	}
	return vt_check_dto(what, &ev, ep, cookie, status, len);
}

int vt_expect_dto_poll(const char *what, DAT_EVD_HANDLE evd,
		       DAT_EP_HANDLE ep, uint64_t cookie,
		       DAT_DTO_COMPLETION_STATUS status, DAT_VLEN len)
{
	DAT_EVENT ev;
	DAT_RETURN rc = vt_poll(evd, vt_secs(15), &ev);

	if (rc != DAT_SUCCESS) {
		vt_fail("%s: dat_evd_dequeue: %s, want a DTO completion", what,
			vt_rc(rc));
		return 0;
	}
	return vt_check_dto(what, &ev, ep, cookie, status, len);
}

void vt_expect_empty(const char *what, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;
	DAT_RETURN rc = dat_evd_dequeue(evd, &ev);

	if (DAT_GET_TYPE(rc) == DAT_QUEUE_EMPTY) {
		vt_note("ok %s: %s", what, vt_rc(rc));
		return;
	}
	if (rc == DAT_SUCCESS)
		vt_fail("%s: unexpected event %s (cookie 0x%llx)", what,
			vt_ev(ev.event_number),
			(unsigned long long)ev.event_data
				.dto_completion_event_data.user_cookie.as_64);
	else
		vt_fail("%s: dat_evd_dequeue %s, want DAT_QUEUE_EMPTY", what,
			vt_rc(rc));
}

/* ---- connections ------------------------------------------------------- */

void vt_listening(DAT_CONN_QUAL qual)
{
	printf("listening %llu\n", (unsigned long long)qual);
	fflush(stdout);
}

DAT_PSP_HANDLE vt_psp(struct vt *v, DAT_CONN_QUAL *qual)
{
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;

	if (*qual == 0)
		vt_must("dat_psp_create_any",
			dat_psp_create_any(v->ia, qual, v->cr_evd,
					   DAT_PSP_CONSUMER_FLAG, &psp));
	else
		vt_must("dat_psp_create",
			dat_psp_create(v->ia, *qual, v->cr_evd,
				       DAT_PSP_CONSUMER_FLAG, &psp));
	return psp;
}

DAT_CR_HANDLE vt_wait_cr(struct vt *v, DAT_EVENT *ev)
{
	if (!vt_expect_event("connection request", v->cr_evd,
			     DAT_CONNECTION_REQUEST_EVENT, ev))
		vt_die("no connection request");
	return ev->event_data.cr_arrival_event_data.cr_handle;
}

static void expect_established(struct vt *v, DAT_EP_HANDLE ep,
			       DAT_EVENT *ev)
{
	if (!vt_expect_event("connection established", v->conn_evd,
			     DAT_CONNECTION_EVENT_ESTABLISHED, ev))
		vt_die("no connection");
	vt_expect_ptr("ESTABLISHED event's ep_handle",
		      ev->event_data.connect_event_data.ep_handle, ep);
}

void vt_accept(struct vt *v, DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
	       const void *pdata, DAT_COUNT plen)
{
	DAT_EVENT ev;

	vt_must("dat_cr_accept",
		dat_cr_accept(cr, ep, plen, (DAT_PVOID)pdata));
	expect_established(v, ep, &ev);
}

void vt_connect(struct vt *v, DAT_EP_HANDLE ep, const char *addr,
		DAT_CONN_QUAL qual, const void *pdata, DAT_COUNT plen)
{
	struct sockaddr_in sin;
	DAT_EVENT ev;

	vt_sockaddr(&sin, addr);
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, qual,
			       vt_secs(20), plen, (DAT_PVOID)pdata,
			       DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	expect_established(v, ep, &ev);
}

DAT_EP_HANDLE vt_connect_local(struct vt *l, struct vt *c,
			       DAT_EP_HANDLE ep_c, const char *addr,
			       DAT_CONN_QUAL qual, const char *tag)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep_l;
	struct vt_msg m;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	vt_ctl_post(c, ep_c);
	vt_sockaddr(&sin, addr);
	vt_must("dat_ep_connect",
		dat_ep_connect(ep_c, (DAT_IA_ADDRESS_PTR)&sin, qual, vt_secs(20),
			       0, NULL, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
	cr = vt_wait_cr(l, &ev);
	ep_l = vt_ep(l, NULL);
	vt_accept(l, cr, ep_l, NULL, 0);
	vt_expect_event("the connecting EP established", c->conn_evd,
			DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	vt_msg_init(&m, tag);
	vt_ctl_send(l, ep_l, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(c, ep_c, &m, tag, 0);
	return ep_l;
}

void vt_wait_disconnected(struct vt *v, DAT_EP_HANDLE ep)
{
	DAT_EVENT ev;

	if (vt_expect_event("disconnected", v->conn_evd,
			    DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
		vt_expect_ptr("DISCONNECTED event's ep_handle",
			      ev.event_data.connect_event_data.ep_handle, ep);
}

int vt_check_conn_end(const char *what, const DAT_EVENT *ev)
{
	if (ev->event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
	    ev->event_number != DAT_CONNECTION_EVENT_BROKEN) {
		vt_fail("%s: %s, want DISCONNECTED or BROKEN", what,
			vt_ev(ev->event_number));
		return 0;
	}
	vt_note("ok %s: %s", what, vt_ev(ev->event_number));
	return 1;
}

void vt_wait_conn_end(struct vt *v, const char *what)
{
	DAT_EVENT ev;

	if (vt_wait(v->conn_evd, vt_secs(30), &ev) != DAT_SUCCESS)
		vt_fail("%s: no connection event", what);
	else
		vt_check_conn_end(what, &ev);
}

void vt_disconnect(struct vt *v, DAT_EP_HANDLE ep)
{
	vt_expect("dat_ep_disconnect(GRACEFUL)",
		  dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	vt_wait_disconnected(v, ep);
}

DAT_EP_HANDLE vt_serve_one(struct vt *v, const DAT_EP_ATTR *a,
			   int ctl_recvs, DAT_PSP_HANDLE *psp)
{
	DAT_CONN_QUAL qual = 0;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	int i;

	*psp = vt_psp(v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(v, &ev);
	ep = vt_ep(v, a);
	for (i = 0; i < ctl_recvs; i++)
		vt_ctl_post(v, ep);
	vt_accept(v, cr, ep, NULL, 0);
	return ep;
}

DAT_EP_HANDLE vt_client_one(struct vt *v, const struct vt_opts *o,
			    const DAT_EP_ATTR *a, int ctl_recvs)
{
	DAT_EP_HANDLE ep = vt_ep(v, a);
	int i;

	for (i = 0; i < ctl_recvs; i++)
		vt_ctl_post(v, ep);
	vt_connect(v, ep, o->addr, o->qual, NULL, 0);
	return ep;
}

/* ---- control messages -------------------------------------------------- */

void vt_ctl_init(struct vt *v)
{
	v->ctl = calloc(1, sizeof(*v->ctl));
	if (!v->ctl)
		vt_die("out of memory");
	vt_mem_alloc(v, v->ctl, VT_CTL_SLOT * (VT_CTL_SLOTS + 1),
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
}

void vt_msg_init(struct vt_msg *m, const char *tag)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->tag, sizeof(m->tag), "%s", tag);
}

void vt_ctl_post(struct vt *v, DAT_EP_HANDLE ep)
{
	unsigned slot = v->ctl_next++ % VT_CTL_SLOTS;
	DAT_LMR_TRIPLET iov = vt_iov(v->ctl, VT_CTL_SLOT * (slot + 1),
				     VT_CTL_SLOT);

	vt_must("dat_ep_post_recv(control)",
		dat_ep_post_recv(ep, 1, &iov, vt_cookie(VT_CTL_COOKIE | slot),
				 DAT_COMPLETION_DEFAULT_FLAG));
}

void vt_ctl_send(struct vt *v, DAT_EP_HANDLE ep, const struct vt_msg *m,
		 DAT_COMPLETION_FLAGS flags)
{
	uint64_t cookie = VT_CTL_SCOOKIE | (v->ctl_seq++ & 0xfffff);
	DAT_LMR_TRIPLET iov = vt_iov(v->ctl, 0, sizeof(*m));
	char what[64];

	memcpy(v->ctl->buf, m, sizeof(*m));
	vt_must("dat_ep_post_send(control)",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(cookie), flags));
	snprintf(what, sizeof(what), "control send '%.16s'", m->tag);
	if (!vt_expect_dto(what, v->req_evd, ep, cookie, DAT_DTO_SUCCESS,
			   sizeof(*m)))
		vt_die("control send failed");
}

void vt_ctl_recv(struct vt *v, DAT_EP_HANDLE ep, struct vt_msg *m,
		 const char *want_tag, int poll)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;
	uint64_t slot;

	rc = poll ? vt_poll(v->rcv_evd, vt_secs(15), &ev) :
		    vt_wait(v->rcv_evd, vt_secs(15), &ev);
	if (rc != DAT_SUCCESS)
		vt_die("control receive '%s': %s", want_tag, vt_rc(rc));
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS || d->ep_handle != ep ||
	    (d->user_cookie.as_64 & ~0xfffffULL) != VT_CTL_COOKIE ||
	    d->transfered_length != sizeof(*m))
		vt_die("control receive '%s': event %s status %s ep %p (want %p) cookie 0x%llx length %llu",
		       want_tag, vt_ev(ev.event_number), vt_dto(d->status),
		       d->ep_handle, ep,
		       (unsigned long long)d->user_cookie.as_64,
		       (unsigned long long)d->transfered_length);
	slot = d->user_cookie.as_64 & 0xfffff;
	memcpy(m, v->ctl->buf + VT_CTL_SLOT * (slot + 1), sizeof(*m));
	if (want_tag && strncmp(m->tag, want_tag, sizeof(m->tag)))
		vt_die("control receive: tag '%.16s', want '%s'", m->tag,
		       want_tag);
	vt_note("ok control receive '%s'", m->tag);
}

/* ---- the main of a test program ---- */

static const char *run_prog;

static void run_usage(void)
{
	fprintf(stderr, "usage: %s TEST server|client|local "
			"[-i IA] [-a ADDR] [-q QUAL] [-n COUNT]\n",
		run_prog);
	exit(2);
}

static void run_alarm(int sig)
{
	static const char msg[] =
	    "FAIL the test made no progress within its time limit\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static const char *vt_env(const char *name, const char *def)
{
	const char *s = getenv(name);

	return s && *s ? s : def;
}

const char *vt_server_addr(void)
{
	return vt_env("DATTEST_SERVER_ADDR", "10.77.0.1");
}

const char *vt_client_addr(void)
{
	return vt_env("DATTEST_CLIENT_ADDR", "10.77.0.2");
}

const char *vt_role_ia(const char *role)
{
	return strcmp(role, "client") ?
		       vt_env("DATTEST_SERVER_IA", "rxe0-cma") :
		       vt_env("DATTEST_CLIENT_IA", "rxe1-cma");
}

static void run_parse(int argc, char **argv, struct vt_opts *o)
{
	int c;

	o->test = argv[1];
	o->role = argv[2];
	o->ia_name = vt_role_ia(o->role);
	o->addr = VT_SERVER_ADDR;
	optind = 3;
	while ((c = getopt(argc, argv, "i:a:q:n:")) != -1) {
		switch (c) {
		case 'i':
			o->ia_name = optarg;
			break;
		case 'a':
			o->addr = optarg;
			break;
		case 'q':
			o->qual = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			o->count = atoi(optarg);
			break;
		default:
			run_usage();
		}
	}
}

int vt_run(int argc, char **argv, const char *prog,
	   const struct vt_test *const *tables, unsigned ntables,
	   unsigned alarm_secs, int print_pid)
{
	const char *scale = getenv("TEST_TIMEOUT_SCALE");
	const struct vt_test *t = NULL, *p;
	vt_test_fn fn = NULL;
	struct vt_opts o;
	unsigned i;

	run_prog = prog;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		run_usage();
	memset(&o, 0, sizeof(o));
	run_parse(argc, argv, &o);
	if (scale && atoi(scale) > 0)
		vt_scale = atoi(scale);
	for (i = 0; i < ntables && !t; i++)
		for (p = tables[i]; p->name && !t; p++)
			if (!strcmp(p->name, o.test))
				t = p;
	if (t && !strcmp(o.role, "client"))
		fn = t->client;
	else if (t && (!strcmp(o.role, "server") || !strcmp(o.role, "local")))
		fn = t->server;
	if (!fn)
		run_usage();
	signal(SIGALRM, run_alarm);
	run_alarm_secs = alarm_secs;
	run_pid = getpid();
	alarm(alarm_secs * vt_scale);
	if (print_pid)
		printf("pid %d\n", (int)getpid());
	printf("%s %s on %s\n", o.test, o.role, o.ia_name);
	fn(&o);
	if (vt_failures) {
		printf("FAILED: %d check(s)\n", vt_failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
