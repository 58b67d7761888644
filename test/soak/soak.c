/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat-soak: a soak of a DAT provider (issue 18, item 6), run by
 * test/soak/run-soak.sh (make soak): a server process and a client
 * process, the client with THREADS threads, each of which until the time
 * is up: makes a connection (its own EVDs, LMRs and EP), runs a random
 * number of random operations on it, ends it in a random way (graceful
 * disconnect, abrupt disconnect, or dat_ep_free of the connected EP) and
 * frees everything it made.  The server accepts each connection on a
 * thread of its own, with its own EVDs, LMRs and RMR, and answers
 * requests until the connection ends.
 *
 *   dat-soak server -i IA [-s SECONDS]
 *   dat-soak client -i IA -a SERVER-ADDR -q QUAL [-s SECONDS] [-t THREADS]
 *                   [-S SEED]
 *
 * Operations (every byte that arrives is checked against the generator
 * that made it, on whichever side receives it):
 *   send     a message of 1 B .. 64 KiB; the server checks it
 *   write    an RDMA write into the server's area; the server checks it
 *   read     the server fills part of its area; the client RDMA reads it
 *   rebind   the server rebinds its RMR through this connection's EP to a
 *            random part of its area; the client writes through the new
 *            rmr_context (which must differ from the LMR's and from the
 *            window's previous one); the server checks it.  Both
 *            providers have windows (the libfabric one emulates them): a
 *            server without one is an error, not a skipped rebind.
 * Every message's 64-byte header carries a checksum of itself, checked on
 * arrival, so every byte received is checked: payloads and RDMA areas
 * against the generator, headers by their checksum ("bytes verified"
 * counts both).  Every request gets an answer within a bound
 * (TEST_TIMEOUT_SCALE); none is "lost", a wrong byte is "corrupt".
 *
 * At the end each process prints its operations by kind, the bytes it
 * verified and its errors by kind, then checks for leaks: the open file
 * descriptors are as many as after its IA was set up, and
 * dat_ia_close(GRACEFUL) succeeds (no DAT object left).  SOAK_FLIP_EVERY=N
 * (server) spoils one byte of every Nth area the server fills: the run
 * must then fail with "corrupt" errors (the soak's own check).  The client's
 * last connection tells the server to stop.  Exit 0 only without any
 * error; a crash is the exit status of a signal.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dat/udat.h>

#define PRIV_LOCAL                                                             \
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define PRIV_REMOTE                                                            \
	(DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

enum {
	MAXMSG = 64 * 1024,
	AREA = 256 * 1024,
	HDR = 64,
	SLOT = HDR + MAXMSG,
	RECVS = 4,
	MAX_THREADS = 16,
	MAX_OPS_PER_CONN = 24,
};

enum op {
	OP_HELLO = 1, OP_DATA, OP_CHECK, OP_FILL, OP_BIND, OP_BYE, OP_STOP,
	OP_ACK,
};

struct msg {
	uint32_t op;
	uint32_t seq;
	uint64_t off;
	uint64_t len;
	uint64_t addr;
	uint32_t seed;
	uint32_t ctx;
	uint32_t status; /* ACK: 0 good, else the number of wrong bytes */
	uint32_t rmr;	 /* HELLO: the server has windows */
	uint32_t sum;	 /* hdr_sum of the header with sum 0 */
	uint8_t pad[HDR - 52];
};

_Static_assert(sizeof(struct msg) == HDR, "header size");

/* ---- counters ------------------------------------------------------------ */

enum { K_CONNECT, K_SEND, K_WRITE, K_READ, K_REBIND,
       K_GRACEFUL, K_ABRUPT, K_FREE_CONNECTED, K_ACCEPT, K_FLUSHED_AT_END,
       K_NKINDS };
static const char *const kind_name[K_NKINDS] = {
	"connect", "send", "write", "read", "rebind",
	"disconnect-graceful", "disconnect-abrupt", "free-connected",
	"accept", "answer-flushed-at-end",
};
enum { E_CONNECT, E_LOST, E_CORRUPT, E_DTO, E_EVENT, E_CALL, E_LEAK,
       E_NERR };
static const char *const err_name[E_NERR] = {
	"connect", "lost", "corrupt", "dto-status", "unexpected-event",
	"call-failed", "leak",
};

static uint64_t ops[K_NKINDS], errs[E_NERR], bytes_verified;
/* open descriptors with no connection of ours open: at half time and at
 * the end (a leak per connection grows them; what a library opens once
 * and keeps, e.g. libfabric's cached sockets, is there by half time) */
static int fds_mid = -1, fds_end = -1;
static int scale = 1;
static uint64_t flip_every, fills;
static volatile int stopping;

static void count(uint64_t *c, uint64_t n) { __atomic_add_fetch(c, n, __ATOMIC_RELAXED); }

static void err(int kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void err(int kind, const char *fmt, ...)
{
	va_list ap;
	char line[256];

	count(&errs[kind], 1);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* the first few of each kind, then only the counts */
	if (__atomic_load_n(&errs[kind], __ATOMIC_RELAXED) <= 5) {
		printf("error %s: %s\n", err_name[kind], line);
		fflush(stdout);
	}
}

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

static DAT_TIMEOUT secs(unsigned n) { return (DAT_TIMEOUT)n * 1000000u * (DAT_TIMEOUT)scale; }

/* ---- the byte generator ------------------------------------------------ */

static uint64_t xs(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void gen(unsigned char *p, uint64_t len, uint32_t seed)
{
	uint64_t s = 0x9E3779B97F4A7C15ull ^ seed, i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			xs(&s);
		p[i] = (unsigned char)(s >> (8 * (i & 7)));
	}
}

/* The number of bytes that differ from what gen made. */
static uint64_t verify(const unsigned char *p, uint64_t len, uint32_t seed)
{
	uint64_t s = 0x9E3779B97F4A7C15ull ^ seed, i, bad = 0;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			xs(&s);
		bad += p[i] != (unsigned char)(s >> (8 * (i & 7)));
	}
	if (!bad)
		count(&bytes_verified, len);
	return bad;
}

/* FNV-1a of a header, its sum field taken as 0. */
static uint32_t hdr_sum(const struct msg *m)
{
	struct msg t = *m;
	const unsigned char *p = (const unsigned char *)&t;
	uint32_t h = 2166136261u;
	unsigned i;

	t.sum = 0;
	for (i = 0; i < sizeof(t); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* ---- DAT helpers ---------------------------------------------------------- */

struct mem {
	unsigned char *buf;
	DAT_VLEN len;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
};

struct ia {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE async_evd;
	DAT_IA_ATTR attr;
	const char *name;
};

static int call(const char *what, DAT_RETURN rc)
{
	if (rc == DAT_SUCCESS)
		return 1;
	err(E_CALL, "%s: 0x%x", what, (unsigned)rc);
	return 0;
}

static int mem_alloc(struct ia *a, struct mem *m, DAT_VLEN len,
		     DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN rl;
	DAT_VADDR ra;
	void *p;

	memset(m, 0, sizeof(*m));
	if (posix_memalign(&p, 4096, len))
		return 0;
	memset(p, 0, len);
	m->buf = p;
	m->len = len;
	r.for_va = p;
	if (!call("dat_lmr_create",
		  dat_lmr_create(a->ia, DAT_MEM_TYPE_VIRTUAL, r, len, a->pz,
				 priv, &m->lmr, &m->lctx, &m->rctx, &rl,
				 &ra))) {
		free(p);
		m->buf = NULL;
		return 0;
	}
	return 1;
}

static void mem_free(struct mem *m)
{
	if (m->lmr)
		call("dat_lmr_free", dat_lmr_free(m->lmr));
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

static DAT_LMR_TRIPLET iov(const struct mem *m, DAT_VLEN off, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = m->lctx;
	t.virtual_address = (uintptr_t)(m->buf + off);
	t.segment_length = len;
	return t;
}

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

static void ep_attr(const struct ia *a, DAT_EP_ATTR *e)
{
	memset(e, 0, sizeof(*e));
	e->service_type = DAT_SERVICE_TYPE_RC;
	e->max_message_size = SLOT;
	e->max_rdma_size = AREA;
	e->qos = DAT_QOS_BEST_EFFORT;
	e->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	e->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	e->max_recv_dtos = 2 * RECVS;
	e->max_request_dtos = 16;
	e->max_recv_iov = 1;
	e->max_request_iov = 1;
	e->max_rdma_read_in = a->attr.max_rdma_read_per_ep_in < 4 ?
		a->attr.max_rdma_read_per_ep_in : 4;
	e->max_rdma_read_out = a->attr.max_rdma_read_per_ep_out < 4 ?
		a->attr.max_rdma_read_per_ep_out : 4;
	e->srq_soft_hw = DAT_HW_DEFAULT;
	e->max_rdma_read_iov = 1;
	e->max_rdma_write_iov = 1;
}

static int ia_open(struct ia *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->async_evd = DAT_HANDLE_NULL;
	if (!call("dat_ia_open",
		  dat_ia_open((DAT_NAME_PTR)name, 16, &a->async_evd, &a->ia)))
		return 0;
	if (!call("dat_ia_query",
		  dat_ia_query(a->ia, &a->async_evd, DAT_IA_FIELD_ALL,
			       &a->attr, 0, NULL)) ||
	    !call("dat_pz_create", dat_pz_create(a->ia, &a->pz)))
		return 0;
	return 1;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

/* One connection's objects, on either side. */
struct conn {
	struct ia *a;
	DAT_EVD_HANDLE req, rcv, cev;
	DAT_EP_HANDLE ep;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT last_bind; /* client: the window's last context */
	struct mem rbuf, src, area;
	unsigned next_slot;
	uint32_t seq;
	uint64_t rnd;
	int server;
};

static int conn_make(struct conn *c, struct ia *a, int server)
{
	DAT_EP_ATTR e;
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->server = server;
	if (!call("dat_evd_create(request)",
		  dat_evd_create(a->ia, 32, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG |
				 DAT_EVD_RMR_BIND_FLAG, &c->req)) ||
	    !call("dat_evd_create(receive)",
		  dat_evd_create(a->ia, 32, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				 &c->rcv)) ||
	    !call("dat_evd_create(connection)",
		  dat_evd_create(a->ia, 8, DAT_HANDLE_NULL,
				 DAT_EVD_CONNECTION_FLAG, &c->cev)))
		return 0;
	if (!mem_alloc(a, &c->rbuf, RECVS * SLOT, PRIV_LOCAL) ||
	    !mem_alloc(a, &c->src, SLOT > AREA ? SLOT : AREA, PRIV_LOCAL))
		return 0;
	if (server) {
		DAT_RETURN rc;

		if (!mem_alloc(a, &c->area, AREA, PRIV_LOCAL | PRIV_REMOTE))
			return 0;
		rc = dat_rmr_create(a->pz, &c->rmr);
		if (rc != DAT_SUCCESS) {
			c->rmr = DAT_HANDLE_NULL;
			call("dat_rmr_create", rc);
			return 0;
		}
	}
	ep_attr(a, &e);
	if (!call("dat_ep_create",
		  dat_ep_create(a->ia, a->pz, c->rcv, c->req, c->cev, &e,
				&c->ep)))
		return 0;
	for (i = 0; i < RECVS; i++) {
		unsigned k = c->next_slot++ % RECVS;
		DAT_LMR_TRIPLET t = iov(&c->rbuf, (DAT_VLEN)k * SLOT, SLOT);

		if (!call("dat_ep_post_recv",
			  dat_ep_post_recv(c->ep, 1, &t, ck(0x5100 + k),
					   DAT_COMPLETION_DEFAULT_FLAG)))
			return 0;
	}
	return 1;
}

static void conn_free(struct conn *c)
{
	if (c->ep)
		call("dat_ep_free", dat_ep_free(c->ep));
	if (c->rmr)
		call("dat_rmr_free", dat_rmr_free(c->rmr));
	mem_free(&c->area);
	mem_free(&c->src);
	mem_free(&c->rbuf);
	if (c->req)
		call("dat_evd_free(request)", dat_evd_free(c->req));
	if (c->rcv)
		call("dat_evd_free(receive)", dat_evd_free(c->rcv));
	if (c->cev)
		call("dat_evd_free(connection)", dat_evd_free(c->cev));
	memset(c, 0, sizeof(*c));
}

/* One request completion (a send, an RDMA op or a bind) of cookie. */
static int req_done(struct conn *c, uint64_t cookie, const char *what)
{
	DAT_EVENT ev;
	DAT_RETURN rc = dat_evd_wait(c->req, secs(30), 1, &ev, NULL);
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &ev.event_data.dto_completion_event_data;

	if (rc != DAT_SUCCESS) {
		err(E_LOST, "%s: no completion (0x%x)", what, (unsigned)rc);
		return 0;
	}
	if (ev.event_number == DAT_RMR_BIND_COMPLETION_EVENT) {
		const DAT_RMR_BIND_COMPLETION_EVENT_DATA *b =
		    &ev.event_data.rmr_completion_event_data;

		if (b->status != DAT_DTO_SUCCESS || b->user_cookie.as_64 != cookie) {
			err(E_DTO, "%s: bind status %d", what, b->status);
			return 0;
		}
		return 1;
	}
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->user_cookie.as_64 != cookie) {
		err(E_EVENT, "%s: event 0x%x cookie 0x%llx", what,
		    ev.event_number, (unsigned long long)d->user_cookie.as_64);
		return 0;
	}
	if (d->status == DAT_DTO_ERR_FLUSHED && c->server) {
		/*
		 * The server's answer arrived, and the client ended the
		 * connection (abruptly, or by freeing its EP) as soon as it
		 * had it, before the transport's acknowledgement came back
		 * (rxe completes a receive before it sends the ACK): the
		 * send is flushed here.  Not an error: the client checked
		 * the answer, and a lost one is its "lost" error.
		 */
		count(&ops[K_FLUSHED_AT_END], 1);
		return 0;
	}
	if (d->status != DAT_DTO_SUCCESS) {
		err(E_DTO, "%s: status %d", what, d->status);
		return 0;
	}
	return 1;
}

/* Sends the header (and len bytes of src after it). */
static int send_msg(struct conn *c, struct msg *m, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t = iov(&c->src, 0, HDR + len);
	uint64_t cookie = 0x5E000000ull + (++c->seq);

	m->sum = 0;
	m->sum = hdr_sum(m);
	memcpy(c->src.buf, m, HDR);
	if (!call("dat_ep_post_send",
		  dat_ep_post_send(c->ep, 1, &t, ck(cookie),
				   DAT_COMPLETION_DEFAULT_FLAG)))
		return 0;
	return req_done(c, cookie, "send");
}

/* The next message: 1, 0 on an error, -1 when the connection ended (its
 * receives flushed) -- then *ended says how. */
static int recv_msg(struct conn *c, struct msg *m, unsigned char **payload,
		    DAT_VLEN *plen, unsigned wait_secs)
{
	DAT_EVENT ev;
	DAT_RETURN rc = dat_evd_wait(c->rcv, secs(wait_secs), 1, &ev, NULL);
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &ev.event_data.dto_completion_event_data;
	unsigned k;
	DAT_LMR_TRIPLET t;

	if (rc != DAT_SUCCESS)
		return -2; /* timed out */
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT) {
		err(E_EVENT, "receive: event 0x%x", ev.event_number);
		return 0;
	}
	if (d->status == DAT_DTO_ERR_FLUSHED)
		return -1;
	if (d->status != DAT_DTO_SUCCESS || d->transfered_length < HDR) {
		err(E_DTO, "receive: status %d length %llu", d->status,
		    (unsigned long long)d->transfered_length);
		return 0;
	}
	k = (unsigned)(d->user_cookie.as_64 - 0x5100);
	memcpy(m, c->rbuf.buf + (DAT_VLEN)k * SLOT, HDR);
	if (m->sum != hdr_sum(m)) {
		err(E_CORRUPT, "a message header (op %u) fails its checksum",
		    m->op);
		return 0;
	}
	count(&bytes_verified, HDR);
	if (payload)
		*payload = c->rbuf.buf + (DAT_VLEN)k * SLOT + HDR;
	if (plen)
		*plen = d->transfered_length - HDR;
	/* reposted at once: the payload stays until RECVS more arrive */
	k = c->next_slot++ % RECVS;
	t = iov(&c->rbuf, (DAT_VLEN)k * SLOT, SLOT);
	if (!call("dat_ep_post_recv",
		  dat_ep_post_recv(c->ep, 1, &t, ck(0x5100 + k),
				   DAT_COMPLETION_DEFAULT_FLAG)))
		return 0;
	return 1;
}

static int conn_event(struct conn *c, DAT_EVENT_NUMBER want, unsigned s)
{
	DAT_EVENT ev;
	DAT_RETURN rc = dat_evd_wait(c->cev, secs(s), 1, &ev, NULL);

	if (rc != DAT_SUCCESS) {
		err(E_LOST, "no connection event 0x%x (0x%x)", want,
		    (unsigned)rc);
		return 0;
	}
	if (ev.event_number != want) {
		err(E_EVENT, "connection event 0x%x, want 0x%x",
		    ev.event_number, want);
		return 0;
	}
	return 1;
}

/* ---- server -------------------------------------------------------------- */

struct handler {
	pthread_t t;
	struct conn c;
	int done;
	struct handler *next;
};

static int serve_one(struct conn *c)
{
	struct msg m, r;
	unsigned char *p;
	DAT_VLEN plen;
	int rc;

	memset(&r, 0, sizeof(r));
	r.op = OP_HELLO;
	r.addr = (uintptr_t)c->area.buf;
	r.ctx = c->area.rctx;
	r.len = AREA;
	r.rmr = c->rmr != DAT_HANDLE_NULL;
	if (!send_msg(c, &r, 0))
		return 0;
	for (;;) {
		rc = recv_msg(c, &m, &p, &plen, 120);
		if (rc == -1)
			return 0; /* the client ended it (abrupt or freed) */
		if (rc == -2) {
			err(E_LOST, "server: no request for 120 s");
			return 0;
		}
		if (rc == 0)
			return 0;
		memset(&r, 0, sizeof(r));
		r.op = OP_ACK;
		r.seq = m.seq;
		switch (m.op) {
		case OP_DATA:
			if (plen != m.len) {
				err(E_CORRUPT, "send of %llu bytes arrived as %llu",
				    (unsigned long long)m.len,
				    (unsigned long long)plen);
				r.status = 1;
			} else {
				r.status = (uint32_t)verify(p, plen, m.seed);
			}
			break;
		case OP_CHECK:
			if (m.off > AREA || m.len > AREA - m.off)
				r.status = 1;
			else
				r.status = (uint32_t)verify(c->area.buf + m.off,
							    m.len, m.seed);
			break;
		case OP_FILL:
			if (m.off <= AREA && m.len <= AREA - m.off) {
				gen(c->area.buf + m.off, m.len, m.seed);
				/* SOAK_FLIP_EVERY=N: every Nth fill gets one
				 * wrong byte, so that a run can show that the
				 * soak notices (it must fail) */
				if (flip_every &&
				    !(__atomic_add_fetch(&fills, 1,
							 __ATOMIC_RELAXED) %
				      flip_every))
					c->area.buf[m.off + m.len / 2] ^= 0x5a;
			}
			break;
		case OP_BIND: {
			DAT_LMR_TRIPLET t = iov(&c->area, m.off, m.len);
			DAT_RMR_CONTEXT ctx = 0;
			DAT_RMR_COOKIE rc2;

			rc2.as_64 = 0xB1000000ull + m.seq;
			if (!c->rmr || m.off > AREA || m.len > AREA - m.off ||
			    !call("dat_rmr_bind",
				  dat_rmr_bind(c->rmr, &t, PRIV_REMOTE, c->ep,
					       rc2, DAT_COMPLETION_DEFAULT_FLAG,
					       &ctx)) ||
			    !req_done(c, rc2.as_64, "bind"))
				r.status = 1;
			r.ctx = ctx;
			r.addr = (uintptr_t)(c->area.buf + m.off);
			break;
		}
		case OP_BYE:
			send_msg(c, &r, 0);
			return 1;
		case OP_STOP:
			stopping = 1;
			send_msg(c, &r, 0);
			return 1;
		default:
			err(E_EVENT, "server: request op %u", m.op);
			return 0;
		}
		if (r.status && m.op != OP_BIND)
			err(E_CORRUPT, "op %u: %u wrong byte(s)", m.op, r.status);
		if (!send_msg(c, &r, 0))
			return 0;
	}
}

static void *handler_main(void *arg)
{
	struct handler *h = arg;
	DAT_EVENT ev;

	if (conn_event(&h->c, DAT_CONNECTION_EVENT_ESTABLISHED, 30) &&
	    serve_one(&h->c)) {
		/* the client disconnects (or frees) next */
		if (dat_evd_wait(h->c.cev, secs(60), 1, &ev, NULL) !=
		    DAT_SUCCESS)
			err(E_LOST, "server: the connection did not end");
	}
	conn_free(&h->c);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int run_server(struct ia *ap, unsigned seconds)
{
	struct ia a = *ap;
	DAT_EVD_HANDLE cr_evd = DAT_HANDLE_NULL;
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL qual = 0;
	struct handler *list = NULL, *h, **pp;
	uint64_t end = now_us() + ((uint64_t)seconds + 300) * 1000000u * scale;
	uint64_t half = now_us() + (uint64_t)seconds * 500000u;

	if (!call("dat_evd_create(CR)",
		  dat_evd_create(a.ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
				 &cr_evd)) ||
	    !call("dat_psp_create_any",
		  dat_psp_create_any(a.ia, &qual, cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &psp)))
		return 0;
	printf("listening %llu\n", (unsigned long long)qual);
	fflush(stdout);
	while (!stopping && now_us() < end) {
		DAT_EVENT ev;
		DAT_CR_HANDLE cr;

		/* reap finished handlers */
		for (pp = &list; (h = *pp);) {
			if (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE)) {
				pthread_join(h->t, NULL);
				*pp = h->next;
				free(h);
			} else {
				pp = &h->next;
			}
		}
		if (!list && fds_mid < 0 &&
		    now_us() >= half && __atomic_load_n(&ops[K_ACCEPT], __ATOMIC_RELAXED))
			fds_mid = open_fds();
		if (dat_evd_wait(cr_evd, 200000, 1, &ev, NULL) != DAT_SUCCESS)
			continue;
		if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
			err(E_EVENT, "CR EVD: event 0x%x", ev.event_number);
			continue;
		}
		cr = ev.event_data.cr_arrival_event_data.cr_handle;
		h = calloc(1, sizeof(*h));
		if (!h || !conn_make(&h->c, &a, 1) ||
		    !call("dat_cr_accept", dat_cr_accept(cr, h->c.ep, 0, NULL))) {
			if (h)
				conn_free(&h->c);
			free(h);
			dat_cr_reject(cr);
			continue;
		}
		count(&ops[K_ACCEPT], 1);
		pthread_create(&h->t, NULL, handler_main, h);
		h->next = list;
		list = h;
	}
	if (!stopping)
		err(E_LOST, "server: no stop from the client in time");
	while ((h = list)) {
		pthread_join(h->t, NULL);
		list = h->next;
		free(h);
	}
	fds_end = open_fds();
	call("dat_psp_free", dat_psp_free(psp));
	call("dat_evd_free(CR)", dat_evd_free(cr_evd));
	return 1;
}

/* ---- client ---------------------------------------------------------------- */

struct client_opts {
	const char *ia_name, *addr;
	DAT_CONN_QUAL qual;
	uint64_t end;
	uint32_t seed;
	struct ia *a;
};

static int request(struct conn *c, struct msg *m, DAT_VLEN len,
		   struct msg *ack)
{
	int rc;

	m->seq = c->seq + 1;
	if (!send_msg(c, m, len))
		return 0;
	rc = recv_msg(c, ack, NULL, NULL, 30);
	if (rc != 1) {
		if (rc != 0)
			err(E_LOST, "no answer to op %u", m->op);
		return 0;
	}
	if (ack->op != OP_ACK || ack->seq != m->seq) {
		err(E_EVENT, "answer op %u seq %u, want ACK %u", ack->op,
		    ack->seq, m->seq);
		return 0;
	}
	if (ack->status && m->op != OP_BIND) {
		err(E_CORRUPT, "op %u: the server found %u wrong byte(s)",
		    m->op, ack->status);
		return 0;
	}
	return 1;
}

static DAT_VLEN rnd_len(uint64_t *r, DAT_VLEN max)
{
	unsigned bits = (unsigned)(xs(r) % 17); /* 1 .. 64 KiB */
	DAT_VLEN len = 1 + xs(r) % ((DAT_VLEN)1 << bits);

	return len > max ? max : len;
}

static int rdma(struct conn *c, int read, DAT_VLEN len, DAT_RMR_CONTEXT ctx,
		uint64_t addr)
{
	DAT_LMR_TRIPLET l = iov(&c->src, HDR, len);
	DAT_RMR_TRIPLET r;
	uint64_t cookie = 0x3D000000ull + (++c->seq);

	r.rmr_context = ctx;
	r.target_address = addr;
	r.segment_length = len;
	if (!call(read ? "dat_ep_post_rdma_read" : "dat_ep_post_rdma_write",
		  read ? dat_ep_post_rdma_read(c->ep, 1, &l, ck(cookie), &r,
					       DAT_COMPLETION_DEFAULT_FLAG)
		       : dat_ep_post_rdma_write(c->ep, 1, &l, ck(cookie), &r,
						DAT_COMPLETION_DEFAULT_FLAG)))
		return 0;
	return req_done(c, cookie, read ? "RDMA read" : "RDMA write");
}

/* One random operation; 0 when the connection is no longer usable. */
static int client_op(struct conn *c, const struct msg *hello)
{
	struct msg m, ack;
	unsigned what = (unsigned)(xs(&c->rnd) % 4);
	DAT_VLEN len = rnd_len(&c->rnd, MAXMSG), off;
	uint32_t seed = (uint32_t)xs(&c->rnd);

	off = xs(&c->rnd) % (AREA - len + 1);
	memset(&m, 0, sizeof(m));
	m.seed = seed;
	m.off = off;
	m.len = len;
	switch (what) {
	case 0: /* send */
		m.op = OP_DATA;
		gen(c->src.buf + HDR, len, seed);
		if (!request(c, &m, len, &ack))
			return 0;
		count(&ops[K_SEND], 1);
		return 1;
	case 1: /* write, checked by the server */
		gen(c->src.buf + HDR, len, seed);
		if (!rdma(c, 0, len, hello->ctx, hello->addr + off))
			return 0;
		m.op = OP_CHECK;
		if (!request(c, &m, 0, &ack))
			return 0;
		count(&ops[K_WRITE], 1);
		return 1;
	case 2: /* read of what the server filled */
		m.op = OP_FILL;
		if (!request(c, &m, 0, &ack))
			return 0;
		memset(c->src.buf + HDR, 0, len);
		if (!rdma(c, 1, len, hello->ctx, hello->addr + off))
			return 0;
		if (verify(c->src.buf + HDR, len, seed)) {
			err(E_CORRUPT, "RDMA read of %llu bytes",
			    (unsigned long long)len);
			return 0;
		}
		count(&ops[K_READ], 1);
		return 1;
	default: /* rebind, write through the window, checked */
		m.op = OP_BIND;
		if (!request(c, &m, 0, &ack))
			return 0;
		if (ack.status) {
			err(E_CALL, "the server's rebind failed");
			return 0;
		}
		if (ack.ctx == hello->ctx || ack.ctx == c->last_bind) {
			err(E_CALL, "a rebind gave the context 0x%x again",
			    (unsigned)ack.ctx);
			return 0;
		}
		c->last_bind = ack.ctx;
		gen(c->src.buf + HDR, len, seed);
		if (!rdma(c, 0, len, ack.ctx, ack.addr))
			return 0;
		m.op = OP_CHECK;
		if (!request(c, &m, 0, &ack))
			return 0;
		count(&ops[K_REBIND], 1);
		return 1;
	}
}

/* One connection's life; stop: tell the server to stop instead. */
static void client_conn(struct client_opts *o, uint64_t *rnd, int stop)
{
	struct conn c;
	struct msg hello, m, ack;
	struct sockaddr_in sin;
	unsigned n, i, how;
	int ok = 1, rc;

	if (!conn_make(&c, o->a, 0)) {
		conn_free(&c);
		return;
	}
	c.rnd = *rnd;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	inet_pton(AF_INET, o->addr, &sin.sin_addr);
	if (!call("dat_ep_connect",
		  dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
				 secs(20), 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG)) ||
	    !conn_event(&c, DAT_CONNECTION_EVENT_ESTABLISHED, 30)) {
		err(E_CONNECT, "no connection");
		conn_free(&c);
		return;
	}
	count(&ops[K_CONNECT], 1);
	rc = recv_msg(&c, &hello, NULL, NULL, 30);
	if (rc != 1 || hello.op != OP_HELLO) {
		err(E_LOST, "no HELLO");
		ok = 0;
	} else if (!hello.rmr) {
		err(E_CALL, "the server has no window to rebind");
		ok = 0;
	}
	if (stop) {
		memset(&m, 0, sizeof(m));
		m.op = OP_STOP;
		ok = ok && request(&c, &m, 0, &ack);
		how = 0;
	} else {
		n = 1 + (unsigned)(xs(&c.rnd) % MAX_OPS_PER_CONN);
		for (i = 0; ok && i < n; i++)
			ok = client_op(&c, &hello);
		how = (unsigned)(xs(&c.rnd) % 5);
	}
	if (!ok)
		how = 4; /* whatever went wrong: just free it */
	switch (how) {
	case 0: case 1: case 2: /* graceful, after a BYE */
		memset(&m, 0, sizeof(m));
		m.op = OP_BYE;
		if (!stop && !request(&c, &m, 0, &ack))
			break;
		if (call("dat_ep_disconnect",
			 dat_ep_disconnect(c.ep, DAT_CLOSE_GRACEFUL_FLAG)) &&
		    conn_event(&c, DAT_CONNECTION_EVENT_DISCONNECTED, 30))
			count(&ops[K_GRACEFUL], 1);
		break;
	case 3:
		if (call("dat_ep_disconnect",
			 dat_ep_disconnect(c.ep, DAT_CLOSE_ABRUPT_FLAG)) &&
		    conn_event(&c, DAT_CONNECTION_EVENT_DISCONNECTED, 30))
			count(&ops[K_ABRUPT], 1);
		break;
	default:
		if (ok)
			count(&ops[K_FREE_CONNECTED], 1);
		break;
	}
	*rnd = c.rnd;
	conn_free(&c);
}

static void *client_main(void *arg)
{
	struct client_opts *o = arg;
	uint64_t rnd = 0x2545F4914F6CDD1Dull ^ ((uint64_t)o->seed << 17) ^
		       (uint64_t)(uintptr_t)&rnd;

	while (now_us() < o->end && !stopping)
		client_conn(o, &rnd, 0);
	return NULL;
}

static void run_client(struct client_opts *o, unsigned threads)
{
	struct client_opts per[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	uint64_t rnd = o->seed;
	unsigned i;

	uint64_t end = o->end, half = (now_us() + o->end) / 2;
	int phase;

	/* two halves, with a quiet second between them (the server measures
	 * its descriptors then) */
	for (phase = 0; phase < 2; phase++) {
		for (i = 0; i < threads; i++) {
			per[i] = *o;
			per[i].end = phase ? end : half;
			per[i].seed = o->seed + 7919u * (i + 1) + 104729u * phase;
			pthread_create(&t[i], NULL, client_main, &per[i]);
		}
		for (i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		if (!phase) {
			fds_mid = open_fds();
			usleep(1000000);
		}
	}
	fds_end = open_fds();
	client_conn(o, &rnd, 1); /* the server stops */
}

/* ---- main -------------------------------------------------------------------- */

static void report(const char *role, const char *ia, unsigned seconds,
		   unsigned threads, uint64_t elapsed_us)
{
	uint64_t total = 0, e = 0;
	int i;

	printf("soak %s on %s: %u s asked, %.1f s run, %u thread(s)\n", role,
	       ia, seconds, (double)elapsed_us / 1e6, threads);
	printf("operations:");
	for (i = 0; i < K_NKINDS; i++) {
		printf(" %s %llu", kind_name[i], (unsigned long long)ops[i]);
		total += ops[i];
	}
	printf(" (total %llu)\n", (unsigned long long)total);
	printf("bytes verified: %llu\n", (unsigned long long)bytes_verified);
	printf("errors:");
	for (i = 0; i < E_NERR; i++) {
		printf(" %s %llu", err_name[i], (unsigned long long)errs[i]);
		e += errs[i];
	}
	printf(" (total %llu)\n", (unsigned long long)e);
	printf("%s\n", e ? "FAIL" : "PASS");
}

int main(int argc, char **argv)
{
	struct client_opts o;
	const char *role = argc > 1 ? argv[1] : "";
	const char *sc = getenv("TEST_TIMEOUT_SCALE");
	unsigned seconds = 60, threads = 4;
	uint64_t t0 = now_us();
	struct ia a;
	int opt;

	memset(&o, 0, sizeof(o));
	o.seed = (uint32_t)time(NULL);
	if (sc && atoi(sc) > 0)
		scale = atoi(sc);
	if (getenv("SOAK_FLIP_EVERY"))
		flip_every = strtoull(getenv("SOAK_FLIP_EVERY"), NULL, 10);
	optind = 2;
	while ((opt = getopt(argc, argv, "i:a:q:s:t:S:")) != -1) {
		switch (opt) {
		case 'i': o.ia_name = optarg; break;
		case 'a': o.addr = optarg; break;
		case 'q': o.qual = strtoull(optarg, NULL, 10); break;
		case 's': seconds = (unsigned)atoi(optarg); break;
		case 't': threads = (unsigned)atoi(optarg); break;
		case 'S': o.seed = (uint32_t)strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (!o.ia_name || threads < 1 || threads > MAX_THREADS)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(role, "server") && (strcmp(role, "client") || !o.addr ||
				       !o.qual))
		goto usage;
	if (!ia_open(&a, o.ia_name))
		return 2;
	if (!strcmp(role, "server")) {
		if (!run_server(&a, seconds))
			return 2;
		threads = 0;
	} else {
		printf("seed %u\n", o.seed);
		o.a = &a;
		o.end = t0 + (uint64_t)seconds * 1000000u;
		run_client(&o, threads);
	}
	if (fds_mid < 0)
		printf("descriptors: not measured (no quiet moment at half time)\n");
	else if (fds_end > fds_mid)
		err(E_LEAK, "%d file descriptors open at the end, %d at half time",
		    fds_end, fds_mid);
	else
		printf("descriptors: %d at half time, %d at the end\n", fds_mid,
		       fds_end);
	call("dat_pz_free", dat_pz_free(a.pz));
	if (!call("dat_ia_close(GRACEFUL)",
		  dat_ia_close(a.ia, DAT_CLOSE_GRACEFUL_FLAG)))
		err(E_LEAK, "DAT objects left at dat_ia_close");
	report(role, o.ia_name, seconds, threads, now_us() - t0);
	for (opt = 0; opt < E_NERR; opt++)
		if (errs[opt])
			return 1;
	return 0;
usage:
	fprintf(stderr, "usage: dat-soak server -i IA [-s SECONDS]\n"
			"       dat-soak client -i IA -a ADDR -q QUAL [-s SECONDS] "
			"[-t THREADS] [-S SEED]\n");
	return 2;
}
