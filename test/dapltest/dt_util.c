/*
 * dt_util.c - dapltest helpers: error texts, bounded waits, registered
 * buffers, data patterns, connection set-up and the result lines.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt.h"
#include "../lib/dat_names.h"
#include <dat/dat_ib_extensions.h>

int dt_scale = 1;
int dt_debug;

/* the names: test/lib/dat_names.h */
const char *dt_rc(DAT_RETURN rc)
{
	return dat_name_rc(rc);
}

const char *dt_ev(DAT_EVENT_NUMBER n)
{
	return dat_name_event(n);
}

const char *dt_dto(DAT_DTO_COMPLETION_STATUS s)
{
	return dat_name_dto(s);
}

const char *dt_op_name(uint32_t type)
{
	switch (type) {
	case DT_SR:
		return "SR";
	case DT_RR:
		return "RR";
	case DT_RW:
		return "RW";
	}
	return "?";
}

static void vout(FILE *f, const char *pfx, const char *fmt, va_list ap)
{
	flockfile(f);
	fputs(pfx, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	funlockfile(f);
	fflush(f);
}

void dt_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(stdout, "", fmt, ap);
	va_end(ap);
}

void dt_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!dt_debug)
		return;
	va_start(ap, fmt);
	vout(stdout, "# ", fmt, ap);
	va_end(ap);
}

void dt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(stderr, "dapltest: ", fmt, ap);
	va_end(ap);
}

uint64_t dt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

DAT_TIMEOUT dt_secs(unsigned n)
{
	return (DAT_TIMEOUT)n * 1000000u * (unsigned)dt_scale;
}

void dt_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- waits --------------------------------------------------------------- */

static DAT_RETURN poll_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT t, DAT_EVENT *ev)
{
	uint64_t end = dt_now_us() + t;
	unsigned spins = 0;
	DAT_RETURN rc;

	for (;;) {
		rc = dat_evd_dequeue(evd, ev);
		if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			return rc;
		if ((++spins & 1023) == 0 && dt_now_us() >= end)
			return DAT_TIMEOUT_EXPIRED;
	}
}

static DAT_RETURN cno_wait(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno,
			   DAT_TIMEOUT t, DAT_EVENT *ev)
{
	uint64_t end = dt_now_us() + t;
	DAT_EVD_HANDLE fired;
	DAT_RETURN rc;
	uint64_t now;

	for (;;) {
		rc = dat_evd_dequeue(evd, ev);
		if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			return rc;
		now = dt_now_us();
		if (now >= end)
			return DAT_TIMEOUT_EXPIRED;
		/* another EVD of the CNO may fire first: then dequeue again */
		/* a timeout is DAT_QUEUE_EMPTY (dat_cno_wait(3DAT)) */
		rc = dat_cno_wait(cno, end - now, &fired);
		if (rc != DAT_SUCCESS &&
		    DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY &&
		    DAT_GET_TYPE(rc) != DAT_TIMEOUT_EXPIRED)
			return rc;
	}
}

DAT_RETURN dt_wait(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno, int poll,
		   DAT_TIMEOUT t, DAT_EVENT *ev)
{
	DAT_COUNT nmore;

	memset(ev, 0, sizeof(*ev));
	if (cno)
		return cno_wait(evd, cno, t, ev);
	if (poll)
		return poll_wait(evd, t, ev);
	return dat_evd_wait(evd, t, 1, ev, &nmore);
}

int dt_wait_dto(const char *what, DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno,
		int poll, uint64_t cookie, DAT_VLEN *len)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;

	rc = dt_wait(evd, cno, poll, dt_secs(20), &ev);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: waiting for its completion: %s%s", what, dt_rc(rc),
		       DAT_GET_TYPE(rc) == DAT_TIMEOUT_EXPIRED ?
		       " (peer gone?)" : "");
		return -1;
	}
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT) {
		dt_err("%s: event %s, want DAT_DTO_COMPLETION_EVENT", what,
		       dt_ev(ev.event_number));
		return -1;
	}
	if (d->status != DAT_DTO_SUCCESS) {
		dt_err("%s: completion status %s%s", what, dt_dto(d->status),
		       d->status == DAT_DTO_ERR_FLUSHED ?
		       " (connection lost: peer gone?)" : "");
		return -1;
	}
	if (d->user_cookie.as_64 != cookie) {
		dt_err("%s: completion cookie 0x%llx, want 0x%llx", what,
		       (unsigned long long)d->user_cookie.as_64,
		       (unsigned long long)cookie);
		return -1;
	}
	if (len)
		*len = d->transfered_length;
	return 0;
}

/* ---- memory -------------------------------------------------------------- */

DAT_RETURN dt_mem_alloc(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, struct dt_mem *m,
			DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_RETURN rc;
	void *p;

	memset(m, 0, sizeof(*m));
	if (posix_memalign(&p, 4096, len ? len : 1))
		return DAT_INSUFFICIENT_RESOURCES;
	memset(p, 0, len ? len : 1);
	r.for_va = p;
	rc = dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, len, pz, priv,
			    &m->lmr, &m->lctx, &m->rctx, &rlen, &raddr);
	if (rc != DAT_SUCCESS) {
		free(p);
		m->lmr = DAT_HANDLE_NULL;
		return rc;
	}
	m->buf = p;
	m->len = len;
	return DAT_SUCCESS;
}

void dt_mem_free(struct dt_mem *m)
{
	DAT_RETURN rc;

	if (m->lmr) {
		rc = dat_lmr_free(m->lmr);
		if (rc != DAT_SUCCESS)
			dt_err("dat_lmr_free: %s", dt_rc(rc));
	}
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

DAT_LMR_TRIPLET dt_iov(const struct dt_mem *m, DAT_VLEN off, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = m->lctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(m->buf + off);
	t.segment_length = len;
	return t;
}

DAT_DTO_COOKIE dt_cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

static unsigned char pat(uint32_t s, size_t i)
{
	return (unsigned char)(s * 151u + i * 7u + (i >> 8) * 13u + (s >> 8));
}

void dt_fill(void *buf, size_t len, uint32_t seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

int dt_check(const char *what, const void *buf, size_t len, uint32_t seed)
{
	const unsigned char *p = buf;
	size_t i, bad = 0, first = 0;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, i) && !bad++)
			first = i;
	if (!bad)
		return 1;
	dt_err("%s: data mismatch: %zu of %zu bytes differ, first at %zu (0x%02x, want 0x%02x)",
	       what, bad, len, first, p[first], pat(seed, first));
	return 0;
}

/* ---- IA, EPs, connections ------------------------------------------------ */

static DAT_COUNT cmin(DAT_COUNT a, DAT_COUNT b)
{
	return a < b ? a : b;
}

void dt_ep_attr(const DAT_IA_ATTR *ia, DAT_EP_ATTR *a, int recvs, int reqs,
		int iov)
{
	DAT_VLEN msg = 8u << 20;

	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	a->max_message_size = ia->max_message_size < msg ?
		ia->max_message_size : msg;
	a->max_rdma_size = ia->max_rdma_size < msg ? ia->max_rdma_size : msg;
	a->qos = dt_qos;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->max_recv_dtos = cmin(recvs, ia->max_dto_per_ep);
	a->max_request_dtos = cmin(reqs, ia->max_dto_per_ep);
	a->max_recv_iov = cmin(iov, ia->max_iov_segments_per_dto);
	a->max_request_iov = cmin(iov, ia->max_iov_segments_per_dto);
	a->max_rdma_read_in = cmin(4, ia->max_rdma_read_per_ep_in);
	a->max_rdma_read_out = cmin(4, ia->max_rdma_read_per_ep_out);
	a->srq_soft_hw = DAT_HW_DEFAULT;
	a->max_rdma_read_iov = cmin(iov, ia->max_iov_segments_per_rdma_read);
	a->max_rdma_write_iov = cmin(iov, ia->max_iov_segments_per_rdma_write);
}

int dt_sockaddr(struct sockaddr_in *sin, const char *host, unsigned port)
{
	struct addrinfo hints, *res;
	int e;

	(void)port;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	e = getaddrinfo(host, NULL, &hints, &res);
	if (e) {
		dt_err("server '%s': %s", host, gai_strerror(e));
		return -1;
	}
	memcpy(sin, res->ai_addr, sizeof(*sin));
	sin->sin_port = 0;
	freeaddrinfo(res);
	return 0;
}

DAT_RETURN dt_ia_open(const char *name, DAT_IA_HANDLE *ia,
		      DAT_EVD_HANDLE *async)
{
	DAT_RETURN rc;

	*async = DAT_HANDLE_NULL;
	rc = dat_ia_open((const DAT_NAME_PTR)name, 16, async, ia);
	if (rc != DAT_SUCCESS)
		dt_err("cannot open IA '%s': %s%s", name, dt_rc(rc),
		       DAT_GET_TYPE(rc) == DAT_PROVIDER_NOT_FOUND ?
		       " (no such name in dat.conf, or its provider failed to load)" :
		       "");
	else
		dt_qos_settle(*ia, name);
	return rc;
}

/* the connection event after a connect/accept, bounded */
static int established(DAT_EP_HANDLE ep, DAT_EVD_HANDLE conn_evd,
		       const char *what)
{
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN rc;

	rc = dat_evd_wait(conn_evd, dt_secs(30), 1, &ev, &nmore);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: no connection event: %s", what, dt_rc(rc));
		return -1;
	}
	if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED) {
		dt_err("%s: %s%s", what, dt_ev(ev.event_number),
		       ev.event_number == DAT_CONNECTION_EVENT_NON_PEER_REJECTED ?
		       " (nobody listens there: is the server running?)" :
		       ev.event_number == DAT_CONNECTION_EVENT_UNREACHABLE ||
		       ev.event_number == DAT_CONNECTION_EVENT_TIMED_OUT ?
		       " (server unreachable)" : "");
		return -1;
	}
	if (ev.event_data.connect_event_data.ep_handle != ep) {
		dt_err("%s: ESTABLISHED for EP %p, want %p", what,
		       ev.event_data.connect_event_data.ep_handle, ep);
		return -1;
	}
	return 0;
}

int dt_connect(DAT_EP_HANDLE ep, DAT_EVD_HANDLE conn_evd,
	       const struct sockaddr_in *sin, DAT_CONN_QUAL qual,
	       const void *pdata, DAT_COUNT plen, const char *what)
{
	DAT_RETURN rc;

	rc = dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)sin, qual, dt_secs(20),
			    plen, (DAT_PVOID)pdata, dt_qos,
			    DAT_CONNECT_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS) {
		dt_err("%s: dat_ep_connect: %s", what, dt_rc(rc));
		return -1;
	}
	return established(ep, conn_evd, what);
}

int dt_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep, DAT_EVD_HANDLE conn_evd,
	      const void *pdata, DAT_COUNT plen)
{
	DAT_RETURN rc;

	rc = dat_cr_accept(cr, ep, plen, (DAT_PVOID)pdata);
	if (rc != DAT_SUCCESS) {
		dt_err("dat_cr_accept: %s", dt_rc(rc));
		return -1;
	}
	return established(ep, conn_evd, "accept");
}

void dt_disconnect(DAT_EP_HANDLE ep, DAT_EVD_HANDLE conn_evd)
{
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN rc;

	if (dat_ep_get_status(ep, &st, &ri, &qi) != DAT_SUCCESS ||
	    st != DAT_EP_STATE_CONNECTED)
		return;
	rc = dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG);
	if (rc != DAT_SUCCESS) {
		dt_dbg("dat_ep_disconnect: %s", dt_rc(rc));
		return;
	}
	rc = dat_evd_wait(conn_evd, dt_secs(20), 1, &ev, &nmore);
	if (rc != DAT_SUCCESS)
		dt_err("disconnect: no DISCONNECTED event: %s", dt_rc(rc));
}

/* ---- results ------------------------------------------------------------- */

void dt_result(struct dt_results *r, const char *name, int result,
	       const char *why)
{
	static const char *const word[] = { "PASS", "FAIL", "UNSUPP" };

	r->n++;
	if (result == DT_PASS)
		r->passed++;
	else if (result == DT_FAIL)
		r->failed++;
	else
		r->unsupp++;
	if (r->tap) {
		printf("%s %u - %s%s%s%s\n", result == DT_FAIL ? "not ok" : "ok",
		       r->n, name, result == DT_UNSUPP ? " # SKIP " : "",
		       why && *why ? (result == DT_UNSUPP ? "" : ": ") : "",
		       why ? why : "");
	} else {
		printf("%-34s Result: %s%s%s\n", name, word[result],
		       why && *why ? "  " : "", why ? why : "");
	}
	fflush(stdout);
}

int dt_summary(struct dt_results *r)
{
	if (r->tap)
		printf("1..%u\n", r->n);
	printf("%s%u passed, %u failed", r->tap ? "# " : "", r->passed,
	       r->failed);
	if (r->unsupp)
		printf(", %u unsupported", r->unsupp);
	printf("\n");
	fflush(stdout);
	return r->failed ? DT_EXIT_FAIL : DT_EXIT_OK;
}
