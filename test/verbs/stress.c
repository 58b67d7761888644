/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stress.c - dattest-stress: the hardening tests of the verbs provider
 * that need threads, tiny queues or a whole-IA teardown (issue 5), as a
 * server process on rxe0-cma and a client process on rxe1-cma (or the
 * IAs DATTEST_SERVER_IA and DATTEST_CLIENT_IA name: vt_role_ia).
 *
 *   dattest-stress TEST ROLE [-q QUAL] [-a ADDR] [-n OPS] [-p POSTERS] [-r]
 *
 *   threads   P poster threads (-p, default 8), each on its own EP (P
 *             connections), RDMA-write OPS operations in total (-n,
 *             default 100000) while two waiter threads take the
 *             completions from the one request EVD all EPs share.  Every
 *             cookie encodes (thread, sequence); a bitmap per thread
 *             proves each completion arrived exactly once.  The server
 *             only accepts and exports its target buffer.
 *   overflow  a DTO EVD smaller than the signaled writes posted to it:
 *             its CQ overruns, each dropped completion is a
 *             DAT_ASYNC_ERROR_EVD_OVERFLOW on the async EVD; then, on a
 *             second IA whose async EVD holds 2 events, low-watermark
 *             events of an empty SRQ overflow the async EVD itself,
 *             dat_evd_wait on it is refused, and CQ overruns after that
 *             leave the IA working.
 *   abrupt    connected EP, LMRs, EVDs, a CNO, a PSP (server) and posted
 *             receives still alive when each side calls dat_ia_close
 *             ABRUPT (run under valgrind by memcheck.bats); every handle
 *             is stale afterwards.
 *   forkstorm one process, either role: P threads (-p) open an IA, create
 *             a PZ, an EVD, an LMR and an EP, post a receive, free it all
 *             and close, over and over, while the main thread forks OPS
 *             children (-n) one after another.  Each child opens a new IA
 *             of the same provider, does the same once, lists the
 *             registry and exits; a child that is still there after 20 s
 *             (scaled) has deadlocked on a lock a vanished parent thread
 *             held (issue 17, item 7).  With -r each child expects its
 *             dat_ia_open refused with DAT_INVALID_STATE instead (the
 *             verbs provider: librdmacm's state is the parent's).
 *
 * A server prints "listening <qual>" once its PSP exists.  The exit
 * status is 0 and the last line PASS only if every check matched.
 * Every wait is bounded and scaled by TEST_TIMEOUT_SCALE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vt.h"

struct opts {
	struct vt_opts vo;
	int ops;	/* -n */
	int posters;	/* -p */
	int refused;	/* -r: forkstorm's children expect their open refused */
};

#define ERR(type, sub) ((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (sub)))

#define MAX_POSTERS 16
#define WINDOW 16		/* writes in flight per poster */
#define SLOT 64			/* bytes of the server's buffer per poster */
#define WAITERS 2

static void usage(void)
{
	fprintf(stderr,
		"usage: dattest-stress threads|overflow|abrupt|forkstorm server|client "
		"[-q QUAL] [-a ADDR] [-n OPS] [-p POSTERS] [-r]\n");
	exit(2);
}

/* An IA as vt_open makes it, with our own async and request qlens. */
static void open_ia(struct vt *v, const char *name, DAT_COUNT async_qlen,
		    DAT_COUNT req_qlen)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	memset(v, 0, sizeof(*v));
	v->name = name;
	rc = dat_ia_open((DAT_NAME_PTR)name, async_qlen, &async, &v->ia);
	if (rc != DAT_SUCCESS)
		vt_die("dat_ia_open(%s): %s", name, vt_rc(rc));
	vt_must("dat_ia_query",
		dat_ia_query(v->ia, &v->async_evd, DAT_IA_FIELD_ALL,
			     &v->ia_attr, DAT_PROVIDER_FIELD_ALL,
			     &v->prov_attr));
	vt_must("dat_pz_create", dat_pz_create(v->ia, &v->pz));
	vt_must("request EVD", dat_evd_create(v->ia, req_qlen, DAT_HANDLE_NULL,
					      DAT_EVD_DTO_FLAG, &v->req_evd));
	vt_must("receive EVD", dat_evd_create(v->ia, 64, DAT_HANDLE_NULL,
					      DAT_EVD_DTO_FLAG, &v->rcv_evd));
	vt_must("connection EVD",
		dat_evd_create(v->ia, 32, DAT_HANDLE_NULL,
			       DAT_EVD_CONNECTION_FLAG, &v->conn_evd));
	vt_must("CR EVD", dat_evd_create(v->ia, 32, DAT_HANDLE_NULL,
					 DAT_EVD_CR_FLAG, &v->cr_evd));
	vt_ctl_init(v);
}

/* The server's half of a test: accept n connections on one PSP. */
static DAT_PSP_HANDLE serve(struct vt *v, DAT_EP_HANDLE *ep, int n,
			    int ctl_recvs)
{
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp = vt_psp(v, &qual);
	DAT_EP_ATTR a;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	int i, j;

	vt_ep_attr(v, &a);
	vt_listening(qual);
	for (i = 0; i < n; i++) {
		cr = vt_wait_cr(v, &ev);
		ep[i] = vt_ep(v, &a);
		for (j = 0; j < ctl_recvs; j++)
			vt_ctl_post(v, ep[i]);
		vt_accept(v, cr, ep[i], NULL, 0);
	}
	return psp;
}

/* Tells the peer where the target buffer is (a "mem" message). */
static void send_mem(struct vt *v, DAT_EP_HANDLE ep, const struct vt_mem *m)
{
	struct vt_msg msg;

	vt_msg_init(&msg, "mem");
	msg.addr = (uint64_t)(uintptr_t)m->buf;
	msg.len = m->len;
	msg.rmr_context = m->rctx;
	vt_ctl_send(v, ep, &msg, DAT_COMPLETION_DEFAULT_FLAG);
}

/* Waits (bounded by secs) for the DISCONNECTED event of each of n EPs. */
static void wait_all_disconnected(struct vt *v, DAT_EP_HANDLE *ep, int n,
				  unsigned secs)
{
	int seen[MAX_POSTERS + 2] = {0};
	DAT_EVENT ev;
	DAT_RETURN rc;
	int i, k;

	for (k = 0; k < n; k++) {
		rc = vt_wait(v->conn_evd, vt_secs(secs), &ev);
		if (rc != DAT_SUCCESS) {
			vt_fail("disconnect %d of %d: dat_evd_wait %s", k + 1,
				n, vt_rc(rc));
			return;
		}
		if (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED) {
			vt_fail("disconnect %d of %d: event %s", k + 1, n,
				vt_ev(ev.event_number));
			continue;
		}
		for (i = 0; i < n; i++)
			if (ev.event_data.connect_event_data.ep_handle == ep[i])
				break;
		if (i == n || seen[i]++)
			vt_fail("DISCONNECTED for an unknown or repeated EP %p",
				ev.event_data.connect_event_data.ep_handle);
	}
	vt_note("ok %d EPs disconnected by the peer", n);
}

static void free_eps(DAT_EP_HANDLE *ep, int n)
{
	int i;

	for (i = 0; i < n; i++)
		vt_ep_free(ep[i]);
}

/* ==== threads ============================================================ */

struct poster {
	struct stress *s;
	int id;
	DAT_EP_HANDLE ep;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned in_flight;	/* posted, completion not yet accounted */
	uint64_t *seen;		/* bitmap over this poster's sequence */
};

struct waiter {
	struct stress *s;
	pthread_t tid;
	unsigned long waits;	/* dat_evd_wait calls that returned events */
	unsigned long events;
};

struct stress {
	struct vt *v;
	DAT_EVD_HANDLE evd;	/* the shared request EVD */
	struct vt_mem src;	/* WINDOW 8-byte slots per poster */
	struct vt_msg target;	/* the server's buffer */
	int posters;
	unsigned per_poster;
	unsigned long total;
	struct poster p[MAX_POSTERS];
	struct waiter w[WAITERS];
	/* dat_evd_wait(3DAT): a blocked waiter owns the EVD, any other
	 * wait or dequeue is refused; the consumer's two waiters take
	 * turns under this mutex. */
	pthread_mutex_t evd_owner;
	unsigned long taken;	/* events taken off the EVD (evd_owner) */
	int abort;		/* atomic: stop, something failed */
	int errors;		/* atomic */
	int dups;		/* atomic */
};

static uint64_t cookie_of(int poster, unsigned seq)
{
	return ((uint64_t)(poster + 1) << 40) | seq;
}

/* Thread-safe failure: counted, the first few printed. */
static void st_fail(struct stress *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void st_fail(struct stress *s, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED) >= 10)
		goto out;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("FAIL %s\n", buf);
out:
	__atomic_store_n(&s->abort, 1, __ATOMIC_RELEASE);
}

static int stopped(struct stress *s)
{
	return __atomic_load_n(&s->abort, __ATOMIC_ACQUIRE);
}

/* Deadline for a condition wait: n seconds, scaled. */
static struct timespec deadline(unsigned n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)n * vt_scale;
	return ts;
}

static void *poster_main(void *arg)
{
	struct poster *p = arg;
	struct stress *s = p->s;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET riov = vt_riov(&s->target, (DAT_VLEN)p->id * SLOT, 8);
	unsigned seq;
	DAT_RETURN rc;

	for (seq = 0; seq < s->per_poster && !stopped(s); seq++) {
		uint64_t c = cookie_of(p->id, seq);
		size_t off = ((size_t)p->id * WINDOW + seq % WINDOW) * 8;
		struct timespec dl = deadline(30);
		int e = 0;

		pthread_mutex_lock(&p->lock);
		while (p->in_flight >= WINDOW && !stopped(s) && !e)
			e = pthread_cond_timedwait(&p->cond, &p->lock, &dl);
		p->in_flight++;
		pthread_mutex_unlock(&p->lock);
		if (e) {
			st_fail(s, "poster %d: no completion for 30 s at seq %u",
				p->id, seq);
			break;
		}
		/* Its slot's previous write completed: the window is
		 * WINDOW deep and completions of one EP come in order. */
		memcpy(s->src.buf + off, &c, 8);
		iov = vt_iov(&s->src, off, 8);
		rc = dat_ep_post_rdma_write(p->ep, 1, &iov, vt_cookie(c), &riov,
					    DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS) {
			st_fail(s, "poster %d: dat_ep_post_rdma_write seq %u: %s",
				p->id, seq, vt_rc(rc));
			break;
		}
	}
	return NULL;
}

/* One completion: the right EP, status and length, never seen before. */
static void account(struct stress *s, const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	uint64_t c = d->user_cookie.as_64, bit;
	unsigned seq = (unsigned)(c & 0xffffffffffULL);
	int id = (int)(c >> 40) - 1;
	struct poster *p;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT) {
		st_fail(s, "event %s on the shared EVD", vt_ev(ev->event_number));
		return;
	}
	if (id < 0 || id >= s->posters || seq >= s->per_poster) {
		st_fail(s, "completion with a foreign cookie 0x%llx",
			(unsigned long long)c);
		return;
	}
	p = &s->p[id];
	if (d->ep_handle != p->ep || d->status != DAT_DTO_SUCCESS ||
	    d->transfered_length != 8 || ev->evd_handle != s->evd)
		st_fail(s, "cookie 0x%llx: ep %p (want %p) status %s length %llu evd %p",
			(unsigned long long)c, d->ep_handle, p->ep,
			vt_dto(d->status),
			(unsigned long long)d->transfered_length,
			ev->evd_handle);
	bit = 1ULL << (seq & 63);
	if (__atomic_fetch_or(&p->seen[seq / 64], bit, __ATOMIC_RELAXED) & bit) {
		__atomic_fetch_add(&s->dups, 1, __ATOMIC_RELAXED);
		st_fail(s, "cookie 0x%llx completed twice",
			(unsigned long long)c);
	}
	pthread_mutex_lock(&p->lock);
	p->in_flight--;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

#define BATCH 32

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct stress *s = w->s;
	DAT_EVENT ev[BATCH];
	DAT_COUNT nmore;
	DAT_RETURN rc;
	int n, i;

	for (;;) {
		pthread_mutex_lock(&s->evd_owner);
		if (s->taken >= s->total || stopped(s)) {
			pthread_mutex_unlock(&s->evd_owner);
			break;
		}
		nmore = 0;
		rc = dat_evd_wait(s->evd, vt_secs(30), 1, &ev[0], &nmore);
		if (rc != DAT_SUCCESS) {
			pthread_mutex_unlock(&s->evd_owner);
			st_fail(s, "waiter: dat_evd_wait after %lu events: %s",
				s->taken, vt_rc(rc));
			break;
		}
		/* what the wait left behind, without blocking */
		for (n = 1; n < BATCH; n++) {
			rc = dat_evd_dequeue(s->evd, &ev[n]);
			if (rc != DAT_SUCCESS)
				break;
		}
		if (n < BATCH && DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			st_fail(s, "waiter: dat_evd_dequeue: %s", vt_rc(rc));
		s->taken += (unsigned long)n;
		pthread_mutex_unlock(&s->evd_owner);
		w->waits++;
		w->events += (unsigned long)n;
		for (i = 0; i < n; i++)
			account(s, &ev[i]);
	}
	return NULL;
}

/* After the run: every cookie of every poster exactly once. */
static void check_bitmaps(struct stress *s)
{
	unsigned long missing = 0;
	unsigned seq;
	int id;

	for (id = 0; id < s->posters; id++)
		for (seq = 0; seq < s->per_poster; seq++)
			if (!(s->p[id].seen[seq / 64] & (1ULL << (seq & 63))))
				if (missing++ < 5)
					vt_fail("poster %d seq %u: no completion",
						id, seq);
	printf("completions: %lu of %lu, %lu missing, %d twice\n",
	       s->total - missing, s->total, missing,
	       __atomic_load_n(&s->dups, __ATOMIC_RELAXED));
	vt_expect_u64("completions missing", missing, 0);
	vt_expect_u64("completions seen twice",
		      (uint64_t)__atomic_load_n(&s->dups, __ATOMIC_RELAXED), 0);
}

/* Reads the server's buffer back: each poster's slot holds its last
 * cookie (writes of one EP land in order). */
static void check_target(struct stress *s, DAT_EP_HANDLE ep)
{
	struct vt_mem back;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET riov;
	uint64_t got;
	int id;

	vt_mem_alloc(s->v, &back, (DAT_VLEN)s->posters * SLOT,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	iov = vt_iov(&back, 0, back.len);
	riov = vt_riov(&s->target, 0, back.len);
	vt_must("dat_ep_post_rdma_read",
		dat_ep_post_rdma_read(ep, 1, &iov, vt_cookie(0xBAC), &riov,
				      DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect_dto("read back the target", s->evd, ep, 0xBAC,
		      DAT_DTO_SUCCESS, back.len);
	for (id = 0; id < s->posters; id++) {
		char what[64];

		memcpy(&got, back.buf + (size_t)id * SLOT, 8);
		snprintf(what, sizeof(what), "poster %d's last write", id);
		vt_expect_u64(what, got, cookie_of(id, s->per_poster - 1));
	}
	vt_mem_free(&back);
}

static int threads_server(const struct opts *o)
{
	DAT_EP_HANDLE ep[MAX_POSTERS];
	struct vt_mem target;
	DAT_PSP_HANDLE psp;
	struct vt v;

	open_ia(&v, o->vo.ia_name, 16, 64);
	vt_mem_alloc(&v, &target, (DAT_VLEN)o->posters * SLOT,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
		     DAT_MEM_PRIV_REMOTE_WRITE_FLAG |
		     DAT_MEM_PRIV_REMOTE_READ_FLAG);
	psp = serve(&v, ep, o->posters, 0);
	send_mem(&v, ep[0], &target);
	/* the client disconnects once it counted everything */
	wait_all_disconnected(&v, ep, o->posters, 150);
	free_eps(ep, o->posters);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&target);
	vt_close(&v);
	return 0;
}

static void stress_run(struct stress *s)
{
	uint64_t t0, us;
	int i;

	t0 = vt_now_us();
	for (i = 0; i < WAITERS; i++) {
		s->w[i].s = s;
		if (pthread_create(&s->w[i].tid, NULL, waiter_main, &s->w[i]))
			vt_die("pthread_create");
	}
	for (i = 0; i < s->posters; i++)
		if (pthread_create(&s->p[i].tid, NULL, poster_main, &s->p[i]))
			vt_die("pthread_create");
	for (i = 0; i < s->posters; i++)
		pthread_join(s->p[i].tid, NULL);
	for (i = 0; i < WAITERS; i++)
		pthread_join(s->w[i].tid, NULL);
	us = vt_now_us() - t0;
	printf("threads: %d posters, %d waiters, %lu RDMA writes in %llu ms (%llu/s)\n",
	       s->posters, WAITERS, s->total, (unsigned long long)us / 1000,
	       (unsigned long long)(us ? s->total * 1000000ULL / us : 0));
	for (i = 0; i < WAITERS; i++)
		printf("waiter %d: %lu waits, %lu events\n", i, s->w[i].waits,
		       s->w[i].events);
}

static int threads_client(const struct opts *o)
{
	DAT_EP_HANDLE ep[MAX_POSTERS];
	struct stress *s = calloc(1, sizeof(*s));
	DAT_EVD_PARAM param;
	DAT_EP_ATTR a;
	struct vt v;
	int i;

	if (!s)
		vt_die("out of memory");
	s->posters = o->posters;
	s->per_poster = (unsigned)(o->ops / o->posters);
	s->total = (unsigned long)s->per_poster * (unsigned)s->posters;
	if (s->total != (unsigned long)o->ops)
		vt_die("-n %d is not a multiple of -p %d", o->ops, o->posters);
	s->v = &v;
	pthread_mutex_init(&s->evd_owner, NULL);
	/* one request EVD for every EP, room for every write in flight
	 * and the read-back */
	open_ia(&v, o->vo.ia_name, 16, o->posters * WINDOW + 16);
	s->evd = v.req_evd;
	vt_must("dat_evd_query", dat_evd_query(s->evd, DAT_EVD_FIELD_ALL,
					       &param));
	vt_expect_true("shared EVD holds every write in flight",
		       param.evd_qlen >= o->posters * WINDOW);
	vt_ep_attr(&v, &a);
	a.max_request_dtos = 2 * WINDOW;
	vt_mem_alloc(&v, &s->src, (DAT_VLEN)o->posters * WINDOW * 8,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	for (i = 0; i < o->posters; i++) {
		ep[i] = vt_ep(&v, &a);
		if (!i)
			vt_ctl_post(&v, ep[0]);
		vt_connect(&v, ep[i], o->vo.addr, o->vo.qual, NULL, 0);
	}
	vt_ctl_recv(&v, ep[0], &s->target, "mem", 0);
	for (i = 0; i < o->posters; i++) {
		struct poster *p = &s->p[i];

		p->s = s;
		p->id = i;
		p->ep = ep[i];
		pthread_mutex_init(&p->lock, NULL);
		pthread_cond_init(&p->cond, NULL);
		p->seen = calloc(s->per_poster / 64 + 1, 8);
		if (!p->seen)
			vt_die("out of memory");
	}
	stress_run(s);
	vt_expect_u64("errors seen by the threads",
		      (uint64_t)__atomic_load_n(&s->errors, __ATOMIC_RELAXED),
		      0);
	check_bitmaps(s);
	for (i = 0; i < WAITERS; i++)
		vt_expect_true("each waiter took completions off the EVD",
			       s->w[i].events > 0);
	if (!stopped(s)) {
		check_target(s, ep[0]);
		vt_expect_empty("shared EVD after the run", s->evd);
	}
	for (i = 0; i < o->posters; i++) {
		vt_disconnect(&v, ep[i]);
		pthread_mutex_destroy(&s->p[i].lock);
		pthread_cond_destroy(&s->p[i].cond);
		free(s->p[i].seen);
	}
	free_eps(ep, o->posters);
	vt_mem_free(&s->src);
	vt_close(&v);
	pthread_mutex_destroy(&s->evd_owner);
	free(s);
	return 0;
}

/* ==== overflow ============================================================ */

#define OVF_WRITES 16

static int overflow_server(const struct opts *o)
{
	DAT_EP_HANDLE ep[2];
	struct vt_mem target;
	DAT_PSP_HANDLE psp;
	struct vt v;
	int i;

	(void)o;
	open_ia(&v, o->vo.ia_name, 16, 64);
	vt_mem_alloc(&v, &target, 4096,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
		     DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	psp = serve(&v, ep, 1, 0);
	send_mem(&v, ep[0], &target);
	/* the second connection comes from the client's second IA */
	{
		DAT_EP_ATTR a;
		DAT_CR_HANDLE cr;
		DAT_EVENT ev;

		vt_ep_attr(&v, &a);
		cr = vt_wait_cr(&v, &ev);
		ep[1] = vt_ep(&v, &a);
		vt_accept(&v, cr, ep[1], NULL, 0);
	}
	send_mem(&v, ep[1], &target);
	wait_all_disconnected(&v, ep, 2, 60);
	for (i = 0; i < 2; i++)
		vt_ep_free(ep[i]);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&target);
	vt_close(&v);
	return 0;
}

/* Posts n signaled 8-byte RDMA writes, cookies 0..n-1, dequeuing none. */
static void post_writes(struct vt_mem *src, DAT_EP_HANDLE ep,
			const struct vt_msg *target, int n)
{
	DAT_LMR_TRIPLET iov = vt_iov(src, 0, 8);
	DAT_RMR_TRIPLET riov = vt_riov(target, 0, 8);
	int i;

	for (i = 0; i < n; i++)
		vt_must("dat_ep_post_rdma_write",
			dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(i), &riov,
					       DAT_COMPLETION_DEFAULT_FLAG));
}

/* Expects want EVD_OVERFLOW events naming evd on the async EVD. */
static void expect_overflows(DAT_EVD_HANDLE async, DAT_EVD_HANDLE evd,
			     int want)
{
	const DAT_ASYNCH_ERROR_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;
	int got = 0, bad = 0;

	while (got < want) {
		rc = vt_wait(async, vt_secs(15), &ev);
		if (rc != DAT_SUCCESS) {
			vt_fail("async EVD: dat_evd_wait %s after %d of %d overflow events",
				vt_rc(rc), got, want);
			return;
		}
		d = &ev.event_data.asynch_error_event_data;
		if (ev.event_number != DAT_ASYNC_ERROR_EVD_OVERFLOW ||
		    d->dat_handle != evd || d->reason != DAT_EVD_OVERFLOW_ERROR ||
		    ev.evd_handle != async) {
			if (bad++ < 3)
				vt_fail("async event %s handle %p (want DAT_ASYNC_ERROR_EVD_OVERFLOW for %p) reason %d",
					vt_ev(ev.event_number), d->dat_handle,
					evd, d->reason);
			continue;
		}
		got++;
	}
	vt_note("ok %d DAT_ASYNC_ERROR_EVD_OVERFLOW events naming the DTO EVD",
		got);
}

/* The qlen completions the full CQ kept: cookies 0..qlen-1, in order. */
static void expect_kept(DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep, int qlen)
{
	char what[64];
	int i;

	for (i = 0; i < qlen; i++) {
		snprintf(what, sizeof(what), "kept completion %d", i);
		vt_expect_dto_poll(what, evd, ep, (uint64_t)i, DAT_DTO_SUCCESS,
				   8);
	}
	vt_expect_empty("overflowed DTO EVD after the kept completions", evd);
}

static int evd_qlen(DAT_EVD_HANDLE evd)
{
	DAT_EVD_PARAM p;

	vt_must("dat_evd_query", dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p));
	return p.evd_qlen;
}

static int overflow_client(const struct opts *o)
{
	DAT_EP_HANDLE ep, ep2;
	struct vt_msg target;
	struct vt_mem src, src2;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	DAT_SRQ_HANDLE srq;
	DAT_COUNT nmore;
	struct vt v, v2;
	int qlen, async_qlen;

	/* 1: a DTO EVD of 4 (the CQ rounds it up; qlen says how far) */
	open_ia(&v, o->vo.ia_name, 32, 4);
	qlen = evd_qlen(v.req_evd);
	printf("request EVD qlen %d, %d writes\n", qlen, OVF_WRITES);
	if (qlen >= OVF_WRITES || OVF_WRITES - qlen > 32 - 4)
		vt_die("qlen %d: %d writes cannot overflow it, or the async EVD",
		       qlen, OVF_WRITES);
	vt_ep_attr(&v, &a);
	vt_mem_alloc(&v, &src, 64, DAT_MEM_PRIV_LOCAL_READ_FLAG |
				       DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	ep = vt_client_one(&v, &o->vo, &a, 1);
	vt_ctl_recv(&v, ep, &target, "mem", 0);
	post_writes(&src, ep, &target, OVF_WRITES);
	expect_overflows(v.async_evd, v.req_evd, OVF_WRITES - qlen);
	expect_kept(v.req_evd, ep, qlen);
	vt_expect("nothing more on the async EVD",
		  vt_wait(v.async_evd, vt_msecs(500), &ev),
		  ERR(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE));

	/* 2: an async EVD that overflows itself is dead: every wait on it
	 * is refused.  Its events come from dat_srq_set_lw on an SRQ with no
	 * receive queued, in this thread, at known calls: "An asynchronous
	 * event will be generated when the number of buffers on the SRQ is
	 * below the low watermark for the first time. This can occur during
	 * the current call" and "will be generated only once per setting of
	 * the low watermark" (dat_srq_set_lw(3DAT)).  So qlen settings fill
	 * the async EVD and one more overflows it, with nobody dequeuing in
	 * between (a burst of CQ overruns raced a waiter, which a busy
	 * machine let keep pace). */
	open_ia(&v2, o->vo.ia_name, 2, 1);
	async_qlen = evd_qlen(v2.async_evd);
	qlen = evd_qlen(v2.req_evd);
	printf("second IA: async EVD qlen %d, request EVD qlen %d\n",
	       async_qlen, qlen);
	{
		DAT_SRQ_ATTR sa = {async_qlen + 1, 1, 0};
		int lw;

		vt_must("second IA: dat_srq_create",
			dat_srq_create(v2.ia, v2.pz, &sa, &srq));
		for (lw = 1; lw <= async_qlen; lw++)
			vt_must("dat_srq_set_lw below an empty SRQ",
				dat_srq_set_lw(srq, lw));
		vt_expect("dat_evd_wait on the full async EVD, timeout 0",
			  dat_evd_wait(v2.async_evd, 0, async_qlen, &ev,
				       &nmore),
			  DAT_SUCCESS);
		vt_expect_u64("its event", ev.event_number,
			      DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR);
		vt_expect_u64("its reason",
			      ev.event_data.asynch_error_event_data.reason,
			      DAT_SRQ_LOW_WATERMARK_EVENT);
		/* full again, then one event more than it holds */
		vt_must("dat_srq_set_lw", dat_srq_set_lw(srq, async_qlen));
		vt_must("dat_srq_set_lw: the event the async EVD cannot hold",
			dat_srq_set_lw(srq, async_qlen + 1));
	}
	vt_expect("dat_evd_wait on the overflowed async EVD",
		  dat_evd_wait(v2.async_evd, vt_secs(1), async_qlen, &ev,
			       &nmore),
		  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_ASYNC));
	vt_expect("dat_evd_wait on it again, threshold 1",
		  dat_evd_wait(v2.async_evd, vt_secs(1), 1, &ev, &nmore),
		  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_ASYNC));
	vt_expect("second IA: dat_srq_free", dat_srq_free(srq), DAT_SUCCESS);
	/* CQ overruns after the async EVD died: their overflow events have
	 * nowhere to go, and the IA goes on */
	vt_mem_alloc(&v2, &src2, 64, DAT_MEM_PRIV_LOCAL_READ_FLAG |
					 DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	ep2 = vt_client_one(&v2, &o->vo, &a, 1);
	vt_ctl_recv(&v2, ep2, &target, "mem", 0);
	post_writes(&src2, ep2, &target, OVF_WRITES);
	vt_expect_dto_poll("second IA: the completion its CQ kept",
			   v2.req_evd, ep2, 0, DAT_DTO_SUCCESS, 8);
	vt_expect("dat_evd_wait on the dead async EVD after the overruns",
		  dat_evd_wait(v2.async_evd, vt_secs(1), 1, &ev, &nmore),
		  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_ASYNC));
	/* the IA still works: its EVDs, the connection, a query */
	vt_expect("second IA: dat_ia_query after the async overflow",
		  dat_ia_query(v2.ia, &v2.async_evd, DAT_IA_FIELD_ALL,
			       &v2.ia_attr, DAT_PROVIDER_FIELD_ALL,
			       &v2.prov_attr),
		  DAT_SUCCESS);
	/* the first IA is not disturbed by the second's dead async EVD */
	vt_expect("first IA: async EVD still empty",
		  vt_wait(v.async_evd, vt_msecs(100), &ev),
		  ERR(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE));

	vt_disconnect(&v2, ep2);
	vt_ep_free(ep2);
	vt_mem_free(&src2);
	vt_close(&v2);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&src);
	vt_close(&v);
	return 0;
}

/* ==== abrupt ============================================================= */

/*
 * What is alive at dat_ia_close(ABRUPT): a connected EP with receives
 * posted, the control and an extra LMR (one shared, DAT_MEM_TYPE_LMR), the
 * four EVDs, an EVD with a CNO, the PZ and (server) the PSP.  Afterwards
 * every one of those handles is stale.  The buffers are the test's own.
 */
struct leftovers {
	struct vt_mem extra;
	DAT_LMR_HANDLE shared;
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE cno_evd;
};

static void make_leftovers(struct vt *v, struct leftovers *l)
{
	DAT_OS_WAIT_PROXY_AGENT agent = {NULL, NULL};
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN len;
	DAT_VADDR addr;

	vt_mem_alloc(v, &l->extra, 8192,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
		     DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	r.for_lmr_handle = l->extra.lmr;
	vt_must("dat_lmr_create(LMR)",
		dat_lmr_create(v->ia, DAT_MEM_TYPE_LMR, r, 8192, v->pz,
			       DAT_MEM_PRIV_LOCAL_READ_FLAG, &l->shared, &lctx,
			       &rctx, &len, &addr));
	vt_must("dat_cno_create", dat_cno_create(v->ia, agent, &l->cno));
	vt_must("dat_evd_create(with CNO)",
		dat_evd_create(v->ia, 8, l->cno, DAT_EVD_SOFTWARE_FLAG,
			       &l->cno_evd));
}

/* After the close: the handles are stale, the memory is ours again. */
static void check_gone(struct vt *v, struct leftovers *l, DAT_EP_HANDLE ep,
		       DAT_PSP_HANDLE psp)
{
	const DAT_RETURN stale = DAT_INVALID_HANDLE;

	vt_expect_type("dat_ep_free(EP of the closed IA)", dat_ep_free(ep),
		       stale);
	vt_expect_type("dat_lmr_free(shared LMR of the closed IA)",
		       dat_lmr_free(l->shared), stale);
	vt_expect_type("dat_evd_free(EVD of the closed IA)",
		       dat_evd_free(l->cno_evd), stale);
	vt_expect_type("dat_cno_free(CNO of the closed IA)",
		       dat_cno_free(l->cno), stale);
	vt_expect_type("dat_pz_free(PZ of the closed IA)", dat_pz_free(v->pz),
		       stale);
	if (psp)
		vt_expect_type("dat_psp_free(PSP of the closed IA)",
			       dat_psp_free(psp), stale);
	vt_expect_type("dat_ia_close(closed IA)",
		       dat_ia_close(v->ia, DAT_CLOSE_ABRUPT_FLAG), stale);
	free(l->extra.buf);
	free(v->ctl->buf);
	free(v->ctl);
}

/*
 * Closes v's IA ABRUPT.  Another IA of the provider stays open meanwhile
 * (returned): the last close unloads the provider, after which no handle
 * of it may be touched at all, stale or not.
 */
static DAT_IA_HANDLE close_abrupt(struct vt *v)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE keeper;

	vt_must("dat_ia_open(second IA, keeps the provider loaded)",
		dat_ia_open((DAT_NAME_PTR)v->name, 4, &async, &keeper));
	vt_expect("dat_ia_close(ABRUPT) with live objects",
		  dat_ia_close(v->ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	return keeper;
}

static void close_keeper(DAT_IA_HANDLE keeper)
{
	vt_expect("dat_ia_close(second IA, GRACEFUL)",
		  dat_ia_close(keeper, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
}

static int abrupt_server(const struct opts *o)
{
	struct leftovers l;
	DAT_IA_HANDLE keeper;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	open_ia(&v, o->vo.ia_name, 16, 64);
	make_leftovers(&v, &l);
	psp = serve(&v, &ep, 1, 3);
	vt_ctl_recv(&v, ep, &m, "bye", 0);
	/* two receives still posted, the connection up, the PSP listening */
	keeper = close_abrupt(&v);
	check_gone(&v, &l, ep, psp);
	close_keeper(keeper);
	return 0;
}

static int abrupt_client(const struct opts *o)
{
	struct leftovers l;
	DAT_IA_HANDLE keeper;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt_msg m;
	struct vt v;

	open_ia(&v, o->vo.ia_name, 16, 64);
	make_leftovers(&v, &l);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, &o->vo, &a, 2);
	vt_msg_init(&m, "bye");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	keeper = close_abrupt(&v);
	check_gone(&v, &l, ep, DAT_HANDLE_NULL);
	close_keeper(keeper);
	return 0;
}

/* ==== main ================================================================ */

/* ==== forkstorm ========================================================== */

static _Atomic int storm_stop;

/* One life of an IA with a few objects; 0 or the number of failed calls. */
static int storm_once(const char *name, DAT_CLOSE_FLAGS close_flag)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL;
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_TRIPLET iov;
	DAT_VLEN len;
	DAT_VADDR addr;
	/* A page of its own, mapped once per thread: with RDMAV_FORK_SAFE a
	 * registration hides its whole pages from a forked child, and a
	 * thread's static TLS shares its page with the thread's descriptor,
	 * which glibc's fork writes in the child. */
	static __thread char *buf;
	int bad = 0;

	if (!buf) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		buf = p;	/* until the process exits */
	}

	if (dat_ia_open((DAT_NAME_PTR)name, 8, &async, &ia) != DAT_SUCCESS)
		return 1;
	bad += dat_pz_create(ia, &pz) != DAT_SUCCESS;
	bad += dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd) !=
	       DAT_SUCCESS;
	r.for_va = buf;
	bad += dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 256, pz,
			      DAT_MEM_PRIV_ALL_FLAG, &lmr, &lctx, &rctx, &len,
			      &addr) != DAT_SUCCESS;
	bad += dat_ep_create(ia, pz, evd, evd, DAT_HANDLE_NULL, NULL, &ep) !=
	       DAT_SUCCESS;
	if (!bad) {
		iov = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 256};
		bad += dat_ep_post_recv(ep, 1, &iov, (DAT_DTO_COOKIE){0},
					DAT_COMPLETION_DEFAULT_FLAG) !=
		       DAT_SUCCESS;
	}
	if (ep)
		bad += dat_ep_free(ep) != DAT_SUCCESS;
	if (lmr)
		bad += dat_lmr_free(lmr) != DAT_SUCCESS;
	if (evd)
		bad += dat_evd_free(evd) != DAT_SUCCESS;
	if (pz)
		bad += dat_pz_free(pz) != DAT_SUCCESS;
	bad += dat_ia_close(ia, close_flag) != DAT_SUCCESS;
	return bad;
}

struct storm_thread {
	const char *name;
	long lives, failed;
};

static void *storm_main(void *arg)
{
	struct storm_thread *t = arg;

	while (!storm_stop) {
		t->failed += storm_once(t->name, DAT_CLOSE_ABRUPT_FLAG) != 0;
		t->lives++;
	}
	return NULL;
}

/* A child that crashes says where (the parent reports the signal). */
static void storm_crash(int sig)
{
	void *frames[32];
	int n = backtrace(frames, 32);

	backtrace_symbols_fd(frames, n, STDOUT_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* refused: the provider refuses IAs in a forked child (verbs: librdmacm's
 * state is the parent's), which must say so with DAT_INVALID_STATE. */
static void storm_child(const char *name, int refused)
{
	DAT_PROVIDER_INFO info, *list[1] = {&info};
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_COUNT n = 0;
	int bad;

	signal(SIGSEGV, storm_crash);
	signal(SIGBUS, storm_crash);
	alarm(20 * vt_scale);	/* a deadlock ends as SIGALRM */
	if (refused)
		bad = DAT_GET_TYPE(dat_ia_open((DAT_NAME_PTR)name, 8, &async,
					       &ia)) != DAT_INVALID_STATE;
	else
		bad = storm_once(name, DAT_CLOSE_GRACEFUL_FLAG);
	bad += dat_registry_list_providers(1, &n, list) != DAT_SUCCESS || n < 1;
	exit(bad ? 1 : 0);
}

static int forkstorm(const struct opts *o)
{
	struct storm_thread t[MAX_POSTERS];
	pthread_t tid[MAX_POSTERS];
	int i, st, children_failed = 0;
	long lives = 0, failed = 0;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE keeper;
	pid_t pid;

	/* The parent has an IA open throughout, as the issue has it (and
	 * the provider stays loaded: see ofi_atfork in providers/ofi). */
	vt_must("dat_ia_open(the parent's IA)",
		dat_ia_open((DAT_NAME_PTR)o->vo.ia_name, 8, &async, &keeper));
	for (i = 0; i < o->posters; i++) {
		t[i] = (struct storm_thread){o->vo.ia_name, 0, 0};
		if (pthread_create(&tid[i], NULL, storm_main, &t[i]))
			vt_die("pthread_create failed");
	}
	for (i = 0; i < o->ops; i++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			vt_die("fork: %s", strerror(errno));
		if (!pid)
			storm_child(o->vo.ia_name, o->refused);
		/* for the suites: what a child left behind is named by its
		 * pid (e.g. libfabric shm's regions in /dev/shm) */
		printf("forkstorm: child %d pid %d\n", i, (int)pid);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			children_failed++;
			if (WIFSIGNALED(st))
				vt_fail("child %d: signal %d%s", i, WTERMSIG(st),
					WTERMSIG(st) == SIGALRM ? " (deadlocked)"
								: "");
			else
				vt_fail("child %d: exit status %d", i,
					WEXITSTATUS(st));
		}
	}
	storm_stop = 1;
	for (i = 0; i < o->posters; i++) {
		pthread_join(tid[i], NULL);
		lives += t[i].lives;
		failed += t[i].failed;
	}
	printf("forkstorm: %d forks, %d children failed; %d threads, %ld IA lives, %ld failed\n",
	       o->ops, children_failed, o->posters, lives, failed);
	if (failed)
		vt_fail("%ld IA lives of the parent's threads failed", failed);
	if (!lives)
		vt_fail("the parent's threads completed no IA life");
	vt_expect("dat_ia_close(the parent's IA)",
		  dat_ia_close(keeper, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	return 0;
}

struct test {
	const char *name;
	int (*server)(const struct opts *);
	int (*client)(const struct opts *);
};

static const struct test tests[] = {
	{"threads", threads_server, threads_client},
	{"overflow", overflow_server, overflow_client},
	{"abrupt", abrupt_server, abrupt_client},
	{"forkstorm", forkstorm, forkstorm},
};

static void on_alarm(int sig)
{
	static const char msg[] = "FAIL: the test's time bound expired\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

int main(int argc, char **argv)
{
	const char *s = getenv("TEST_TIMEOUT_SCALE");
	const struct test *t = NULL;
	struct opts o;
	size_t i;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		usage();
	memset(&o, 0, sizeof(o));
	o.vo.test = argv[1];
	o.vo.role = argv[2];
	o.vo.ia_name = vt_role_ia(o.vo.role);
	o.vo.addr = VT_SERVER_ADDR;
	o.ops = 100000;
	o.posters = 8;
	optind = 3;
	while ((c = getopt(argc, argv, "i:a:q:n:p:r")) != -1) {
		switch (c) {
		case 'r':
			o.refused = 1;
			break;
		case 'i':
			o.vo.ia_name = optarg;
			break;
		case 'a':
			o.vo.addr = optarg;
			break;
		case 'q':
			o.vo.qual = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			o.ops = atoi(optarg);
			break;
		case 'p':
			o.posters = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (o.ops < 1 || o.posters < 1 || o.posters > MAX_POSTERS)
		usage();
	if (s && atoi(s) > 0)
		vt_scale = atoi(s);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (!strcmp(tests[i].name, o.vo.test))
			t = &tests[i];
	if (!t || (strcmp(o.vo.role, "server") && strcmp(o.vo.role, "client")))
		usage();
	signal(SIGALRM, on_alarm);
	alarm(180 * vt_scale);
	printf("%s %s on %s\n", o.vo.test, o.vo.role, o.vo.ia_name);
	if (!strcmp(o.vo.role, "server"))
		t->server(&o);
	else
		t->client(&o);
	if (vt_failures) {
		printf("FAILED: %d check(s)\n", vt_failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
