/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datbench.c - the DAT side of `make bench` (test/bench/run-bench.sh),
 * on the public API only (<dat/udat.h>, -ldat).
 *
 *   datbench server -D IA -t TEST -s SIZE -n ITERS [-w WINDOW] [-P MODE] [-q QUAL]
 *   datbench client -D IA -h ADDR -t TEST -s SIZE -n ITERS [-w WINDOW] [-q QUAL]
 *	TEST: send_lat write_lat write_lat_poll read_lat write_bw
 *	atomic_fadd atomic_cas fresh_read
 *	(perftest's ib_send_lat, ib_atomic_lat,
 *	ib_write_lat, ib_read_lat, ib_write_bw, measured the same way: a
 *	timestamp per iteration, read from the time-stamp counter as
 *	perftest's get_cycles() reads it (lat_stamp; DATBENCH_CLOCK=monotonic
 *	for clock_gettime), latency = half the round trip for the
 *	ping-pongs and the whole one for reads, "typical" = the median).
 *	The client prints one line "RESULT TEST SIZE ITERS typ=.. min=..
 *	max=.. avg=.. p99=.." (microseconds; p99 as perftest's "99%
 *	percentile") or "RESULT write_bw SIZE ITERS bw=.." (MB/s with
 *	perftest's MB = 2^20 bytes).  DATBENCH_SAMPLES=FILE: the client
 *	also writes every latency, in the order measured (phases.awk
 *	shows how a run's figures spread in time).  write_lat_poll: the
 *	write ping-pong with each side dequeuing its request EVD while it
 *	waits for its memory to change, as ofibench's write_lat reads its
 *	CQ (libfabric's manual progress) and as an MPI library's progress
 *	loop polls its EVDs; write_lat waits on memory alone, as perftest's
 *	ib_write_lat does (over libfabric the engine's wake-ups then carry
 *	the target's side).  fresh_read: a registration per fragment,
 *	the key sent, the fragment RDMA-read, the registration freed
 *	(fresh_server says how; bandwidth).  write_bw keeps WINDOW writes
 *	outstanding (default 32; run-bench.sh gives perftest the same
 *	-t), each one signaled.  MODE is how the server waits while the
 *	client measures (for the reads, atomics and write_bw, where it has
 *	nothing to do): "spin" (default: dequeues in a loop, as
 *	perftest's passive side does) or "block" (dat_evd_wait).
 *   datbench loop -D IA -C IA -h ADDR -n N
 *	One process, two IAs connected to each other; N rounds of 64-byte
 *	post_send, dequeue of its completion, dequeue of the receive and
 *	post_recv (2 posts + 2 completions).  Under callgrind
 *	(--collect-atstart=no) the rounds are collected and dumped as
 *	"loop", then as many dequeues of an empty EVD as the rounds made
 *	(printed: "empty N") are dumped as "empty", so that cgsum.awk can
 *	take the cost of the spinning out; then 1,000 dequeues of an
 *	empty EVD alone, dumped as "vain" (printed: "vain 1000").
 *   datbench scale -D IA -C IA -h ADDR [-l MIN_EPS] [-m MAX_EPS]
 *	dat_ia_open+close time (alone: the provider library loaded each
 *	time if the registry unloads it; and with another IA of the same
 *	entry held open), connections per second for MIN_EPS (16),
 *	2*MIN_EPS, ... MAX_EPS EP pairs in this process, memory per EP,
 *	EVD wake-up latency (a dat_evd_wait blocked until dat_evd_post_se
 *	or a receive, against a spinning dat_evd_dequeue) and the CPU time
 *	a blocked dat_evd_wait uses, as "SCALE key value" lines.  Each
 *	connection line also says how many REQs the kernel's IB CM resent
 *	meanwhile (cm_tx_retries in sysfs) and the longest pause between
 *	two ESTABLISHED events.
 *   datbench iaopen -D IA
 *	Only scale's dat_ia_open + close figures.
 *   datbench scale_server -D IA [-l MIN_EPS] [-m MAX_EPS] [-q QUAL]
 *   datbench scale_client -D IA -h ADDR [-l MIN_EPS] [-m MAX_EPS] [-q QUAL]
 *	The same connection rounds across two processes: the server
 *	accepts every request with a new EP and frees it at DISCONNECTED;
 *	the client prints "SCALE conn2 eps=.. connect_s=.. conn_per_s=..".
 *   datbench contend -D IA -C IA -h ADDR -s SIZE -n ITERS [-w WINDOW]
 *	One threadsafe IA (dat_ia_openv(..., DAT_TRUE)) with two EPs, each
 *	with its own request EVD, connected to two EPs of the other IA:
 *	ITERS RDMA writes (WINDOW outstanding) by one thread on one EP,
 *	then by two threads at once, one per EP.  Prints "RESULT contend
 *	SIZE ITERS one=.. two=.." (writes per second, all threads).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dat/udat.h>
#define LAT_PROG "datbench"
#include "lat.h"
#include "status.h"
#include <valgrind/callgrind.h>
/* The atomic rows need the IB atomic extension (another issue's header):
 * without it datbench builds without them and run-bench.sh reports them
 * as pending. */
#if __has_include(<dat/dat_ib_extensions.h>)
#include <dat/dat_registry.h>	/* DAT_PROVIDER, which the header names */
#include <dat/dat_ib_extensions.h>
#define HAVE_ATOMICS 1
#define ATOMIC_TESTS " atomic_fadd atomic_cas"
#else
#define HAVE_ATOMICS 0
#define ATOMIC_TESTS ""
#endif

#define CTL_SIZE 64
#define WINDOW 32	/* default outstanding writes of write_bw */
#define MAX_SIZE (16u << 20)

static unsigned scale = 1;
static DAT_MEM_PRIV_FLAGS mem_priv = DAT_MEM_PRIV_ALL_FLAG;

struct opts {
	const char *mode, *ia, *ia2, *host, *test, *srv_wait;
	unsigned long size;
	int iters, min_eps, max_eps, window;
	DAT_CONN_QUAL qual;
};

struct info {			/* what each side tells the other */
	uint64_t addr;
	uint64_t len;
	uint32_t rmr_context;
	uint32_t pad;
};

struct side {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE async, req, rcv, conn, cr;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	unsigned char *buf, *ctl;
	size_t buflen;
	DAT_LMR_HANDLE lmr, ctl_lmr;
	DAT_LMR_CONTEXT lctx, ctl_lctx;
	DAT_RMR_CONTEXT rctx;
	struct info peer;
};

static void die(const char *what, DAT_RETURN rc)
{
	const char *maj = "?", *min = "?";

	dat_strerror(rc, &maj, &min);
	fprintf(stderr, "datbench: %s: %s %s\n", what, maj, min);
	exit(1);
}

static void must(const char *what, DAT_RETURN rc)
{
	if (rc != DAT_SUCCESS)
		die(what, rc);
}

static DAT_TIMEOUT tmo(unsigned secs)
{
	return (DAT_TIMEOUT)secs * 1000000u * scale;
}

static DAT_LMR_TRIPLET iov(DAT_LMR_CONTEXT ctx, void *p, uint64_t len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = ctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)p;
	t.segment_length = len;
	return t;
}

static DAT_DTO_COOKIE cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

static void lmr_make(struct side *s, void *p, size_t len, DAT_LMR_HANDLE *lmr,
		     DAT_LMR_CONTEXT *lctx, DAT_RMR_CONTEXT *rctx)
{
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	r.for_va = p;
	must("dat_lmr_create",
	     dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, len, s->pz,
			    mem_priv, lmr, lctx, rctx, &rlen,
			    &raddr));
}

/* IA, PZ, EVDs and the two registered buffers (data: buflen bytes). */
static void side_open(struct side *s, const char *name, size_t buflen,
		      int qlen)
{
	DAT_RMR_CONTEXT unused;

	memset(s, 0, sizeof(*s));
	s->async = DAT_HANDLE_NULL;
	must("dat_ia_open",
	     dat_ia_open((DAT_NAME_PTR)name, 8, &s->async, &s->ia));
	must("dat_pz_create", dat_pz_create(s->ia, &s->pz));
	must("request EVD", dat_evd_create(s->ia, qlen, DAT_HANDLE_NULL,
					   DAT_EVD_DTO_FLAG, &s->req));
	must("receive EVD", dat_evd_create(s->ia, qlen, DAT_HANDLE_NULL,
					   DAT_EVD_DTO_FLAG, &s->rcv));
	must("connection EVD",
	     dat_evd_create(s->ia, qlen, DAT_HANDLE_NULL,
			    DAT_EVD_CONNECTION_FLAG, &s->conn));
	must("CR EVD", dat_evd_create(s->ia, qlen, DAT_HANDLE_NULL,
				      DAT_EVD_CR_FLAG, &s->cr));
	s->buflen = buflen;
	if (posix_memalign((void **)&s->buf, 4096, buflen) ||
	    posix_memalign((void **)&s->ctl, 4096, 4096))
		die("posix_memalign", DAT_INSUFFICIENT_RESOURCES);
	memset(s->buf, 0, buflen);
	memset(s->ctl, 0, 4096);
	lmr_make(s, s->buf, buflen, &s->lmr, &s->lctx, &s->rctx);
	lmr_make(s, s->ctl, 4096, &s->ctl_lmr, &s->ctl_lctx, &unused);
}

static void ep_make(struct side *s, DAT_EP_HANDLE *ep)
{
	must("dat_ep_create", dat_ep_create(s->ia, s->pz, s->rcv, s->req,
					    s->conn, NULL, ep));
}

static void wait_event(const char *what, DAT_EVD_HANDLE evd,
		       DAT_EVENT_NUMBER want, DAT_EVENT *ev)
{
	DAT_COUNT nmore;

	must(what, dat_evd_wait(evd, tmo(60), 1, ev, &nmore));
	if (ev->event_number != want) {
		fprintf(stderr, "datbench: %s: event 0x%x, want 0x%x\n", what,
			ev->event_number, want);
		exit(1);
	}
}

/* Spins on dat_evd_dequeue until a DTO completes; returns the empty
 * dequeues it made on the way. */
static unsigned long spin(DAT_EVD_HANDLE evd)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	unsigned long empty = 0;
	DAT_EVENT ev;
	DAT_RETURN rc;

	while ((rc = dat_evd_dequeue(evd, &ev)) != DAT_SUCCESS) {
		if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			die("dat_evd_dequeue", rc);
		empty++;
	}
	d = &ev.event_data.dto_completion_event_data;
	if ((ev.event_number != DAT_DTO_COMPLETION_EVENT &&
	     !(HAVE_ATOMICS && ev.event_number == 0x40000)) ||
	    d->status != DAT_DTO_SUCCESS) {
		fprintf(stderr, "datbench: DTO event 0x%x status %d\n",
			ev.event_number, (int)d->status);
		exit(1);
	}
	return empty;
}

/* Retires suppressed completions (the provider signals one every half
 * ring) without waiting. */
static void drain(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS)
		;
}

static void post_ctl_recv(struct side *s)
{
	DAT_LMR_TRIPLET t = iov(s->ctl_lctx, s->ctl + CTL_SIZE, CTL_SIZE);

	must("dat_ep_post_recv(ctl)",
	     dat_ep_post_recv(s->ep, 1, &t, cookie(0),
			      DAT_COMPLETION_DEFAULT_FLAG));
}

static void send_ctl(struct side *s, const void *msg, size_t len)
{
	DAT_LMR_TRIPLET t = iov(s->ctl_lctx, s->ctl, len);
	DAT_EVENT ev;

	memcpy(s->ctl, msg, len);
	must("dat_ep_post_send(ctl)",
	     dat_ep_post_send(s->ep, 1, &t, cookie(0),
			      DAT_COMPLETION_DEFAULT_FLAG));
	wait_event("ctl send", s->req, DAT_DTO_COMPLETION_EVENT, &ev);
}

/* Both sides: tell the peer where our data buffer is, learn its. */
static void exchange(struct side *s)
{
	struct info mine;
	DAT_EVENT ev;

	mine.addr = (uint64_t)(uintptr_t)s->buf;
	mine.len = s->buflen;
	mine.rmr_context = s->rctx;
	mine.pad = 0;
	send_ctl(s, &mine, sizeof(mine));
	wait_event("ctl receive", s->rcv, DAT_DTO_COMPLETION_EVENT, &ev);
	memcpy(&s->peer, s->ctl + CTL_SIZE, sizeof(s->peer));
}

static DAT_RMR_TRIPLET remote(const struct side *s, uint64_t off,
			      uint64_t len)
{
	DAT_RMR_TRIPLET r;

	r.rmr_context = s->peer.rmr_context;
	r.pad = 0;
	r.target_address = s->peer.addr + off;
	r.segment_length = len;
	return r;
}

static void post_data_recv(struct side *s, unsigned long size)
{
	DAT_LMR_TRIPLET t = iov(s->lctx, s->buf, size);

	must("dat_ep_post_recv",
	     dat_ep_post_recv(s->ep, 1, &t, cookie(1),
			      DAT_COMPLETION_DEFAULT_FLAG));
}

static void post_data_send(struct side *s, unsigned long size)
{
	DAT_LMR_TRIPLET t = iov(s->lctx, s->buf + s->buflen / 2, size);

	must("dat_ep_post_send",
	     dat_ep_post_send(s->ep, 1, &t, cookie(2),
			      DAT_COMPLETION_SUPPRESS_FLAG));
}

/* Ping-pong of sends; the client (pinger) records timestamps. */
static void send_lat(struct side *s, const struct opts *o, int client,
		     uint64_t *t)
{
	int i;

	for (i = 0; i < o->iters; i++) {
		if (client) {
			t[i] = lat_stamp();
			post_data_send(s, o->size);
			spin(s->rcv);
		} else {
			spin(s->rcv);
		}
		if (i + 1 < o->iters)
			post_data_recv(s, o->size);
		if (!client)
			post_data_send(s, o->size);
		drain(s->req);
	}
	if (client)
		t[o->iters] = lat_stamp();
}

/* Ping-pong of RDMA writes: each side polls the last byte of the
 * buffer's first half (where the peer writes) and writes from the
 * second half; with write_lat_poll it dequeues its request EVD between
 * two looks (the writes are suppressed: nothing to find there). */
static void write_lat(struct side *s, const struct opts *o, int client,
		      uint64_t *t)
{
	volatile unsigned char *in = s->buf + o->size - 1;
	unsigned char *out = s->buf + s->buflen / 2;
	DAT_RMR_TRIPLET r = remote(s, 0, o->size);
	DAT_LMR_TRIPLET l = iov(s->lctx, out, o->size);
	int poll = !strcmp(o->test, "write_lat_poll"), i;
	DAT_EVENT ev;

	for (i = 0; i < o->iters; i++) {
		unsigned char v = (unsigned char)(i % 250 + 1);

		if (client)
			t[i] = lat_stamp();
		else
			while (*in != v)
				if (poll)
					(void)dat_evd_dequeue(s->req, &ev);
		out[o->size - 1] = v;
		must("dat_ep_post_rdma_write",
		     dat_ep_post_rdma_write(s->ep, 1, &l, cookie(3), &r,
					    DAT_COMPLETION_SUPPRESS_FLAG));
		if (client)
			while (*in != v)
				if (poll)
					(void)dat_evd_dequeue(s->req, &ev);
		drain(s->req);
	}
	if (client)
		t[o->iters] = lat_stamp();
}

static void read_lat(struct side *s, const struct opts *o, uint64_t *t)
{
	DAT_RMR_TRIPLET r = remote(s, 0, o->size);
	DAT_LMR_TRIPLET l = iov(s->lctx, s->buf, o->size);
	int i;

	for (i = 0; i < o->iters; i++) {
		t[i] = lat_stamp();
		must("dat_ep_post_rdma_read",
		     dat_ep_post_rdma_read(s->ep, 1, &l, cookie(4), &r,
					   DAT_COMPLETION_DEFAULT_FLAG));
		spin(s->req);
	}
	t[o->iters] = lat_stamp();
}

#if HAVE_ATOMICS
/* Atomic latency (ib_atomic_lat): 8 bytes, the whole round trip; the
 * compare-and-swap compares with the value it set last, so it hits. */
static void atomic_lat(struct side *s, const struct opts *o, uint64_t *t)
{
	DAT_RMR_TRIPLET r = remote(s, 0, 8);
	DAT_LMR_TRIPLET l = iov(s->lctx, s->buf, 8);
	int cas = !strcmp(o->test, "atomic_cas"), i;

	for (i = 0; i < o->iters; i++) {
		t[i] = lat_stamp();
		if (cas)
			must("dat_ib_post_cmp_and_swap",
			     dat_ib_post_cmp_and_swap(s->ep, (uint64_t)i,
						      (uint64_t)i + 1, &l,
						      cookie(6), &r,
						      DAT_COMPLETION_DEFAULT_FLAG));
		else
			must("dat_ib_post_fetch_and_add",
			     dat_ib_post_fetch_and_add(s->ep, 1, &l, cookie(7),
						       &r,
						       DAT_COMPLETION_DEFAULT_FLAG));
		spin(s->req);
	}
	t[o->iters] = lat_stamp();
}
#endif

static double write_bw(struct side *s, const struct opts *o)
{
	DAT_RMR_TRIPLET r = remote(s, 0, o->size);
	DAT_LMR_TRIPLET l = iov(s->lctx, s->buf, o->size);
	int posted = 0, done = 0;
	uint64_t t0, t1;

	t0 = now_ns();
	while (done < o->iters) {
		while (posted < o->iters && posted - done < o->window) {
			must("dat_ep_post_rdma_write",
			     dat_ep_post_rdma_write(s->ep, 1, &l, cookie(5),
						    &r,
						    DAT_COMPLETION_DEFAULT_FLAG));
			posted++;
		}
		spin(s->req);
		done++;
	}
	t1 = now_ns();
	return (double)o->size * o->iters / ((double)(t1 - t0) / 1e9) /
	       1048576.0;
}

/*
 * An MPI library's rendezvous with a registration per fragment (issue 35
 * item 4: what a fresh key costs): for each of ITERS fragments of SIZE
 * bytes the server registers the fragment (a new LMR, alternately in
 * either half of its buffer), sends its address and RMR context, the
 * client RDMA-reads it and sends "done", and the server frees the LMR.
 * Every first RDMA through a key is in the figure.  The client prints
 * "RESULT fresh_read SIZE ITERS bw=.." (MB/s of 2^20 bytes).  The first
 * receive of each side was posted before the exchange (fresh_prepost).
 */
static void fresh_post_recv(struct side *s)
{
	DAT_LMR_TRIPLET t = iov(s->ctl_lctx, s->ctl + 2 * CTL_SIZE, CTL_SIZE);

	must("dat_ep_post_recv(fresh)",
	     dat_ep_post_recv(s->ep, 1, &t, cookie(8),
			      DAT_COMPLETION_DEFAULT_FLAG));
}

static void fresh_send(struct side *s, const void *msg, size_t len)
{
	DAT_LMR_TRIPLET t = iov(s->ctl_lctx, s->ctl, len);

	memcpy(s->ctl, msg, len);
	must("dat_ep_post_send(fresh)",
	     dat_ep_post_send(s->ep, 1, &t, cookie(9),
			      DAT_COMPLETION_DEFAULT_FLAG));
	spin(s->req);
}

static void fresh_server(struct side *s, const struct opts *o)
{
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	struct info frag;
	int i;

	for (i = 0; i < o->iters; i++) {
		unsigned char *p = s->buf + (size_t)(i & 1) * (s->buflen / 2);

		lmr_make(s, p, o->size, &lmr, &lctx, &rctx);
		frag.addr = (uint64_t)(uintptr_t)p;
		frag.len = o->size;
		frag.rmr_context = rctx;
		frag.pad = 0;
		fresh_send(s, &frag, sizeof(frag));
		spin(s->rcv);	/* "done" */
		if (i + 1 < o->iters)
			fresh_post_recv(s);
		must("dat_lmr_free", dat_lmr_free(lmr));
	}
}

static double fresh_client(struct side *s, const struct opts *o)
{
	DAT_LMR_TRIPLET l = iov(s->lctx, s->buf, o->size);
	char done[8] = "done";
	DAT_RMR_TRIPLET r;
	struct info frag;
	uint64_t t0, t1;
	int i;

	t0 = now_ns();
	for (i = 0; i < o->iters; i++) {
		spin(s->rcv);
		memcpy(&frag, s->ctl + 2 * CTL_SIZE, sizeof(frag));
		if (i + 1 < o->iters)
			fresh_post_recv(s);
		r.rmr_context = frag.rmr_context;
		r.pad = 0;
		r.target_address = frag.addr;
		r.segment_length = frag.len;
		must("dat_ep_post_rdma_read",
		     dat_ep_post_rdma_read(s->ep, 1, &l, cookie(4), &r,
					   DAT_COMPLETION_DEFAULT_FLAG));
		spin(s->req);
		fresh_send(s, done, sizeof(done));
	}
	t1 = now_ns();
	return (double)o->size * o->iters / ((double)(t1 - t0) / 1e9) /
	       1048576.0;
}

/* Before the exchange, each side's first receive of fresh_read: the
 * client's for the first fragment, the server's for the first "done"
 * (both queued behind the exchange's own receive). */
static void fresh_prepost(struct side *s, const struct opts *o)
{
	if (!strcmp(o->test, "fresh_read"))
		fresh_post_recv(s);
}

static void report_lat(const struct opts *o, uint64_t *t, int halve)
{
	lat_report(o->test, o->size, o->iters, t, halve);
}

static size_t buflen_for(const struct opts *o)
{
	return 2 * ((o->size + 4095) & ~4095ul);
}

static void run_test(struct side *s, const struct opts *o, int client)
{
	uint64_t *t = calloc((size_t)o->iters + 1, sizeof(*t));

	if (!t)
		die("calloc", DAT_INSUFFICIENT_RESOURCES);
	if (client && strcmp(o->test, "write_bw") &&
	    strcmp(o->test, "fresh_read"))
		lat_clock_init();
	if (!strcmp(o->test, "send_lat")) {
		send_lat(s, o, client, t);
		if (client)
			report_lat(o, t, 1);
	} else if (!strncmp(o->test, "write_lat", 9)) {
		write_lat(s, o, client, t);
		if (client)
			report_lat(o, t, 1);
	} else if (!strcmp(o->test, "read_lat")) {
		if (client) {
			read_lat(s, o, t);
			report_lat(o, t, 0);
		}
#if HAVE_ATOMICS
	} else if (!strncmp(o->test, "atomic_", 7)) {
		if (client) {
			atomic_lat(s, o, t);
			report_lat(o, t, 0);
		}
#endif
	} else if (!strcmp(o->test, "fresh_read")) {
		if (client)
			printf("RESULT %s %lu %d bw=%.2f\n", o->test, o->size,
			       o->iters, fresh_client(s, o));
		else
			fresh_server(s, o);
	} else if (client) {
		printf("RESULT %s %lu %d bw=%.2f\n", o->test, o->size,
		       o->iters, write_bw(s, o));
	}
	free(t);
}

static int valid_test(const char *t)
{
	return t && (!strcmp(t, "send_lat") || !strcmp(t, "write_lat") ||
		     !strcmp(t, "write_lat_poll") || !strcmp(t, "read_lat") ||
		     !strcmp(t, "write_bw") || !strcmp(t, "fresh_read") ||
		     (HAVE_ATOMICS && (!strcmp(t, "atomic_fadd") ||
				       !strcmp(t, "atomic_cas"))));
}

static int server(const struct opts *o)
{
	struct side s;
	DAT_EVENT ev;
	DAT_CR_HANDLE cr;

	side_open(&s, o->ia, buflen_for(o), 2 * WINDOW + 8);
	must("dat_psp_create", dat_psp_create(s.ia, o->qual, s.cr,
					      DAT_PSP_CONSUMER_FLAG, &s.psp));
	ep_make(&s, &s.ep);
	post_ctl_recv(&s);
	printf("listening\n");
	wait_event("connection request", s.cr, DAT_CONNECTION_REQUEST_EVENT,
		   &ev);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	must("dat_cr_accept", dat_cr_accept(cr, s.ep, 0, NULL));
	wait_event("established", s.conn, DAT_CONNECTION_EVENT_ESTABLISHED,
		   &ev);
	if (!strcmp(o->test, "send_lat"))
		post_data_recv(&s, o->size);
	fresh_prepost(&s, o);
	exchange(&s);
	run_test(&s, o, 0);
	post_ctl_recv(&s);
	/* the client's "done"; meanwhile (for the one-sided tests, the
	 * whole measurement) spinning or blocked, as asked */
	if (!strcmp(o->srv_wait, "spin"))
		spin(s.rcv);
	else
		wait_event("done", s.rcv, DAT_DTO_COMPLETION_EVENT, &ev);
	must("dat_ia_close", dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

static void addr_of(struct sockaddr_in *sin, const char *host)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
		fprintf(stderr, "datbench: bad address %s\n", host);
		exit(2);
	}
}

static int client(const struct opts *o)
{
	struct sockaddr_in sin;
	struct side s;
	DAT_EVENT ev;
	char done[8] = "done";

	addr_of(&sin, o->host);
	side_open(&s, o->ia, buflen_for(o), 2 * WINDOW + 8);
	ep_make(&s, &s.ep);
	post_ctl_recv(&s);
	must("dat_ep_connect",
	     dat_ep_connect(s.ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual, tmo(60),
			    0, NULL, DAT_QOS_BEST_EFFORT,
			    DAT_CONNECT_DEFAULT_FLAG));
	wait_event("established", s.conn, DAT_CONNECTION_EVENT_ESTABLISHED,
		   &ev);
	if (!strcmp(o->test, "send_lat"))
		post_data_recv(&s, o->size);
	fresh_prepost(&s, o);
	exchange(&s);
	run_test(&s, o, 1);
	send_ctl(&s, done, sizeof(done));
	must("dat_ia_close", dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/* ---- one process, two IAs: loop (callgrind) and scale ----------------- */

/* Connects cep (on cli) to a fresh EP sep of srv through srv's PSP. */
static void connect_one(struct side *srv, struct side *cli,
			const struct opts *o, DAT_EP_HANDLE cep,
			DAT_EP_HANDLE sep)
{
	struct sockaddr_in sin;
	DAT_EVENT ev;

	addr_of(&sin, o->host);
	must("dat_ep_connect",
	     dat_ep_connect(cep, (DAT_IA_ADDRESS_PTR)&sin, o->qual, tmo(60),
			    0, NULL, DAT_QOS_BEST_EFFORT,
			    DAT_CONNECT_DEFAULT_FLAG));
	wait_event("connection request", srv->cr,
		   DAT_CONNECTION_REQUEST_EVENT, &ev);
	must("dat_cr_accept",
	     dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, sep,
			   0, NULL));
	wait_event("passive established", srv->conn,
		   DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	wait_event("active established", cli->conn,
		   DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

static void pair_open(struct side *srv, struct side *cli,
		      const struct opts *o, int qlen)
{
	side_open(srv, o->ia, 8192, qlen);
	side_open(cli, o->ia2, 8192, qlen);
	must("dat_psp_create", dat_psp_create(srv->ia, o->qual, srv->cr,
					      DAT_PSP_CONSUMER_FLAG,
					      &srv->psp));
	ep_make(srv, &srv->ep);
	ep_make(cli, &cli->ep);
	connect_one(srv, cli, o, cli->ep, srv->ep);
}

static unsigned long rounds(struct side *srv, struct side *cli, int n)
{
	DAT_LMR_TRIPLET st = iov(cli->lctx, cli->buf, 64);
	DAT_LMR_TRIPLET rt = iov(srv->lctx, srv->buf, 64);
	unsigned long empty = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (dat_ep_post_send(cli->ep, 1, &st, cookie((uint64_t)i),
				     DAT_COMPLETION_DEFAULT_FLAG))
			die("dat_ep_post_send", DAT_INTERNAL_ERROR);
		empty += spin(cli->req);
		empty += spin(srv->rcv);
		if (dat_ep_post_recv(srv->ep, 1, &rt, cookie((uint64_t)i),
				     DAT_COMPLETION_DEFAULT_FLAG))
			die("dat_ep_post_recv", DAT_INTERNAL_ERROR);
	}
	return empty;
}

enum { VAIN_READS = 1000 };

/* n dequeues of evd, which must stay empty (DAT_QUEUE_EMPTY comes in the
 * error class: its type is what says empty, as spin() reads it) */
static void empty_dequeues(DAT_EVD_HANDLE evd, unsigned long n)
{
	DAT_EVENT ev;

	while (n--) {
		DAT_RETURN rc = dat_evd_dequeue(evd, &ev);

		if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			die(rc == DAT_SUCCESS ? "empty dequeue: an event"
					      : "empty dequeue",
			    rc == DAT_SUCCESS ? DAT_INTERNAL_ERROR : rc);
	}
}

static int loop(const struct opts *o)
{
	DAT_LMR_TRIPLET rt;
	struct side srv, cli;
	unsigned long empty;

	pair_open(&srv, &cli, o, 16);
	rt = iov(srv.lctx, srv.buf, 64);
	must("dat_ep_post_recv",
	     dat_ep_post_recv(srv.ep, 1, &rt, cookie(0),
			      DAT_COMPLETION_DEFAULT_FLAG));
	rounds(&srv, &cli, 32);	/* warm-up: lazy binding, first touches */
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	empty = rounds(&srv, &cli, o->iters);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("loop");
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	empty_dequeues(cli.req, empty);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("empty");
	/* a vain dequeue on its own: VAIN_READS of them (issue 35 judges
	 * one against a vain fi_cq_read, ofibench's "vain") */
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	empty_dequeues(cli.req, VAIN_READS);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("vain");
	printf("LOOP dat rounds %d posts %d completions %d empty %lu vain %d\n",
	       o->iters, 2 * o->iters, 2 * o->iters, empty, VAIN_READS);
	must("dat_ia_close", dat_ia_close(cli.ia, DAT_CLOSE_ABRUPT_FLAG));
	must("dat_ia_close", dat_ia_close(srv.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

static double median_us(uint64_t *d, int n)
{
	qsort(d, (size_t)n, sizeof(*d), cmp_u64);
	return (double)d[n / 2] / 1000.0;
}

/* One open + close; returns nanoseconds. */
static uint64_t ia_cycle(const char *name)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia;
	uint64_t t0 = now_ns();

	must("dat_ia_open", dat_ia_open((DAT_NAME_PTR)name, 8, &async, &ia));
	must("dat_ia_close", dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return now_ns() - t0;
}

/*
 * Open + close alone (the last close may unload the provider library,
 * so each open may load it again), then with another IA of the same
 * entry held open (the library stays loaded whatever the registry does):
 * the difference is the price of loading.
 */
static void scale_ia(const struct opts *o)
{
	enum { K = 10 };
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE held;
	uint64_t d[K];
	int i;

	printf("SCALE ia_open_close_first_us %.1f\n",
	       (double)ia_cycle(o->ia) / 1000.0);
	for (i = 0; i < K; i++)
		d[i] = ia_cycle(o->ia);
	printf("SCALE ia_open_close_us %.1f\n", median_us(d, K));
	must("dat_ia_open", dat_ia_open((DAT_NAME_PTR)o->ia, 8, &async,
					&held));
	for (i = 0; i < K; i++)
		d[i] = ia_cycle(o->ia);
	printf("SCALE ia_open_close_held_us %.1f\n", median_us(d, K));
	must("dat_ia_close", dat_ia_close(held, DAT_CLOSE_GRACEFUL_FLAG));
}

/* REQs the kernel's IB CM has resent, all devices and ports (sysfs;
 * -1 when the counters are not there). */
static long req_retries(void)
{
	glob_t g;
	long sum = -1;
	size_t i;

	if (glob("/sys/class/infiniband_cm/*/*/cm_tx_retries/req", 0, NULL,
		 &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		long v;

		if (f && fscanf(f, "%ld", &v) == 1)
			sum = (sum < 0 ? 0 : sum) + v;
		if (f)
			fclose(f);
	}
	globfree(&g);
	return sum;
}

/* The longest pause between two events (or from t0 to the first). */
struct gap {
	uint64_t last, max;
};

static void gap_note(struct gap *g)
{
	uint64_t t = now_ns();

	if (t - g->last > g->max)
		g->max = t - g->last;
	g->last = t;
}

/* n EP pairs: all connects issued at once, CRs accepted as they come. */
static void scale_conns(struct side *srv, struct side *cli,
			const struct opts *o, int n)
{
	DAT_EP_HANDLE *cep = calloc((size_t)n, sizeof(*cep));
	DAT_EP_HANDLE *sep = calloc((size_t)n, sizeof(*sep));
	struct sockaddr_in sin;
	int i, acc = 0, up_s = 0, up_c = 0, down_s = 0, down_c = 0;
	long rss0, rss1, rss2, vm0, vm2, rt0, rt1;
	uint64_t t0, t1, t2;
	struct gap gap;
	DAT_EVENT ev;

	if (!cep || !sep)
		die("calloc", DAT_INSUFFICIENT_RESOURCES);
	addr_of(&sin, o->host);
	rss0 = status_kib("VmRSS:");
	vm0 = status_kib("VmSize:");
	for (i = 0; i < n; i++) {
		ep_make(cli, &cep[i]);
		ep_make(srv, &sep[i]);
	}
	rss1 = status_kib("VmRSS:");
	rt0 = req_retries();
	t0 = now_ns();
	gap.last = t0;
	gap.max = 0;
	for (i = 0; i < n; i++)
		must("dat_ep_connect",
		     dat_ep_connect(cep[i], (DAT_IA_ADDRESS_PTR)&sin, o->qual,
				    tmo(120), 0, NULL, DAT_QOS_BEST_EFFORT,
				    DAT_CONNECT_DEFAULT_FLAG));
	while (up_s < n || up_c < n) {
		DAT_RETURN rc;
		int got = 0;

		if (dat_evd_dequeue(srv->cr, &ev) == DAT_SUCCESS) {
			got = 1;
			must("dat_cr_accept",
			     dat_cr_accept(ev.event_data.cr_arrival_event_data
						   .cr_handle,
					   sep[acc++], 0, NULL));
		}
		while ((rc = dat_evd_dequeue(srv->conn, &ev)) == DAT_SUCCESS) {
			got = 1;
			if (ev.event_number !=
			    DAT_CONNECTION_EVENT_ESTABLISHED)
				die("passive connection event", 0);
			up_s++;
		}
		while ((rc = dat_evd_dequeue(cli->conn, &ev)) == DAT_SUCCESS) {
			got = 1;
			if (ev.event_number !=
			    DAT_CONNECTION_EVENT_ESTABLISHED)
				die("active connection event", 0);
			up_c++;
			gap_note(&gap);
		}
		if (!got)
			usleep(200);
		if (now_ns() - t0 > 300ull * 1000000000u * scale)
			die("connections timed out", DAT_TIMEOUT_EXPIRED);
	}
	t1 = now_ns();
	rt1 = req_retries();
	rss2 = status_kib("VmRSS:");
	vm2 = status_kib("VmSize:");
	for (i = 0; i < n; i++)
		must("dat_ep_disconnect",
		     dat_ep_disconnect(cep[i], DAT_CLOSE_GRACEFUL_FLAG));
	while (down_s < n || down_c < n) {
		int got = 0;

		while (dat_evd_dequeue(srv->conn, &ev) == DAT_SUCCESS)
			got = 1, down_s++;
		while (dat_evd_dequeue(cli->conn, &ev) == DAT_SUCCESS)
			got = 1, down_c++;
		if (!got)
			usleep(200);
		if (now_ns() - t1 > 300ull * 1000000000u * scale)
			die("disconnections timed out", DAT_TIMEOUT_EXPIRED);
	}
	t2 = now_ns();
	for (i = 0; i < n; i++) {
		must("dat_ep_free", dat_ep_free(cep[i]));
		must("dat_ep_free", dat_ep_free(sep[i]));
	}
	printf("SCALE conn eps=%d connect_s=%.3f conn_per_s=%.1f "
	       "disconnect_s=%.3f ep_rss_kib=%.1f connected_ep_rss_kib=%.1f "
	       "connected_ep_vm_kib=%.1f req_retries=%ld max_gap_s=%.3f\n",
	       n, (double)(t1 - t0) / 1e9, n / ((double)(t1 - t0) / 1e9),
	       (double)(t2 - t1) / 1e9, (double)(rss1 - rss0) / (2.0 * n),
	       (double)(rss2 - rss0) / (2.0 * n),
	       (double)(vm2 - vm0) / (2.0 * n),
	       rt0 < 0 ? -1 : rt1 - rt0, (double)gap.max / 1e9);
	free(cep);
	free(sep);
}

struct waker {
	DAT_EVD_HANDLE evd;
	volatile int ready;
	uint64_t t_end, cpu_ns;
	int blocking;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *waiter(void *arg)
{
	struct waker *w = arg;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	uint64_t c0 = thread_cpu_ns();

	__atomic_store_n(&w->ready, 1, __ATOMIC_SEQ_CST);
	if (w->blocking)
		must("dat_evd_wait", dat_evd_wait(w->evd, tmo(60), 1, &ev,
						  &nmore));
	else
		while (dat_evd_dequeue(w->evd, &ev) != DAT_SUCCESS)
			;
	w->t_end = now_ns();
	w->cpu_ns = thread_cpu_ns() - c0;
	return NULL;
}

/* One wake-up: a thread waits (blocked or spinning) on evd; after it
 * had time to block (lead_us), fire() makes the event.  Returns
 * nanoseconds; *cpu_ns, the waiter's CPU time. */
static uint64_t wake_once(DAT_EVD_HANDLE evd, int blocking,
			  void (*fire)(void *), void *arg, unsigned lead_us,
			  uint64_t *cpu_ns)
{
	struct waker w = {.evd = evd, .ready = 0, .blocking = blocking};
	pthread_t th;
	uint64_t t0;

	if (pthread_create(&th, NULL, waiter, &w))
		die("pthread_create", DAT_INSUFFICIENT_RESOURCES);
	while (!__atomic_load_n(&w.ready, __ATOMIC_SEQ_CST))
		;
	usleep(lead_us);	/* long enough for the waiter to be in poll(2) */
	t0 = now_ns();
	fire(arg);
	pthread_join(th, NULL);
	if (cpu_ns)
		*cpu_ns = w.cpu_ns;
	return w.t_end - t0;
}

static void fire_se(void *arg)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer = arg;
	must("dat_evd_post_se", dat_evd_post_se(*(DAT_EVD_HANDLE *)arg, &ev));
}

struct send_pair {
	struct side *srv, *cli;
};

static void fire_send(void *arg)
{
	struct send_pair *p = arg;
	DAT_LMR_TRIPLET st = iov(p->cli->lctx, p->cli->buf, 64);

	must("dat_ep_post_send",
	     dat_ep_post_send(p->cli->ep, 1, &st, cookie(9),
			      DAT_COMPLETION_DEFAULT_FLAG));
}

/* Spinning and blocked wake-ups taken in turn (drift hits both alike). */
static void scale_wake(struct side *srv, struct side *cli)
{
	enum { K = 30 };
	struct send_pair p = {srv, cli};
	DAT_LMR_TRIPLET rt = iov(srv->lctx, srv->buf, 64);
	DAT_EVD_HANDLE se;
	uint64_t d[2][K], cpu[K];
	int i, blocking;
	/* how long the waiter waits before the event comes (3 ms: long
	 * enough to be asleep); DATBENCH_WAKE_LEAD_US for other leads (a
	 * polled transport's delay depends on it) */
	const char *lead_env = getenv("DATBENCH_WAKE_LEAD_US");
	unsigned lead = lead_env && atoi(lead_env) > 0 ? (unsigned)atoi(lead_env)
						       : 3000;

	must("software EVD", dat_evd_create(srv->ia, 8, DAT_HANDLE_NULL,
					    DAT_EVD_SOFTWARE_FLAG, &se));
	for (i = 0; i < K; i++)
		for (blocking = 0; blocking < 2; blocking++)
			d[blocking][i] = wake_once(se, blocking, fire_se, &se,
						   lead, NULL);
	printf("SCALE wake_se_spin_us %.1f\n", median_us(d[0], K));
	printf("SCALE wake_se_wait_us %.1f\n", median_us(d[1], K));
	for (i = 0; i < K; i++)
		for (blocking = 0; blocking < 2; blocking++) {
			must("dat_ep_post_recv",
			     dat_ep_post_recv(srv->ep, 1, &rt, cookie(8),
					      DAT_COMPLETION_DEFAULT_FLAG));
			d[blocking][i] = wake_once(srv->rcv, blocking,
						   fire_send, &p, lead, NULL);
			spin(cli->req);
		}
	printf("SCALE wake_recv_spin_us %.1f\n", median_us(d[0], K));
	printf("SCALE wake_recv_wait_us %.1f\n", median_us(d[1], K));
	/* the CPU time of a dat_evd_wait blocked for 100 ms */
	for (i = 0; i < 5; i++)
		wake_once(se, 1, fire_se, &se, 100000, &cpu[i]);
	printf("SCALE wait_cpu_us_per_100ms %.1f\n", median_us(cpu, 5));
	must("dat_evd_free", dat_evd_free(se));
}

static int scale_run(const struct opts *o)
{
	struct side srv, cli;
	int n;

	scale_ia(o);
	pair_open(&srv, &cli, o, 2 * o->max_eps + 64);
	scale_wake(&srv, &cli);
	for (n = o->min_eps; n < o->max_eps; n *= 2)
		scale_conns(&srv, &cli, o, n);
	scale_conns(&srv, &cli, o, o->max_eps);
	must("dat_ia_close", dat_ia_close(cli.ia, DAT_CLOSE_ABRUPT_FLAG));
	must("dat_ia_close", dat_ia_close(srv.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/* ---- two processes: scale_server, scale_client ------------------------ */

static long rounds_total(const struct opts *o)
{
	long total = 0;
	int n;

	for (n = o->min_eps; n < o->max_eps; n *= 2)
		total += n;
	return total + o->max_eps;
}

/* Accepts every request with a new EP, frees each at its DISCONNECTED;
 * ends when all rounds' connections came and went.  Requests and
 * connection events share one EVD, so one blocked dat_evd_wait serves
 * both in the order they came. */
static int scale_server(const struct opts *o)
{
	long total = rounds_total(o), accepted = 0, gone = 0;
	DAT_EVD_HANDLE both;
	DAT_EP_HANDLE ep;
	DAT_COUNT nmore;
	struct side s;
	DAT_EVENT ev;

	side_open(&s, o->ia, 8192, 8);
	must("CR + connection EVD",
	     dat_evd_create(s.ia, 4 * o->max_eps + 64, DAT_HANDLE_NULL,
			    DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG, &both));
	s.cr = s.conn = both;
	must("dat_psp_create", dat_psp_create(s.ia, o->qual, both,
					      DAT_PSP_CONSUMER_FLAG, &s.psp));
	printf("listening\n");
	while (gone < total) {
		must("scale_server event",
		     dat_evd_wait(both, tmo(300), 1, &ev, &nmore));
		switch (ev.event_number) {
		case DAT_CONNECTION_REQUEST_EVENT:
			ep_make(&s, &ep);
			must("dat_cr_accept",
			     dat_cr_accept(ev.event_data.cr_arrival_event_data
						   .cr_handle,
					   ep, 0, NULL));
			accepted++;
			break;
		case DAT_CONNECTION_EVENT_ESTABLISHED:
			break;
		case DAT_CONNECTION_EVENT_DISCONNECTED:
			must("dat_ep_free",
			     dat_ep_free(ev.event_data.connect_event_data
						 .ep_handle));
			gone++;
			break;
		default:
			fprintf(stderr, "datbench: scale_server: event 0x%x\n",
				ev.event_number);
			exit(1);
		}
	}
	printf("SCALE server accepted %ld\n", accepted);
	must("dat_ia_close", dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

static void scale_client_round(struct side *s, const struct opts *o, int n)
{
	DAT_EP_HANDLE *ep = calloc((size_t)n, sizeof(*ep));
	struct sockaddr_in sin;
	DAT_COUNT nmore;
	uint64_t t0, t1;
	long rss0, rss2, rt0, rt1;
	struct gap gap;
	DAT_EVENT ev;
	int i, up = 0, down = 0;

	if (!ep)
		die("calloc", DAT_INSUFFICIENT_RESOURCES);
	addr_of(&sin, o->host);
	rss0 = status_kib("VmRSS:");
	for (i = 0; i < n; i++)
		ep_make(s, &ep[i]);
	rt0 = req_retries();
	t0 = now_ns();
	gap.last = t0;
	gap.max = 0;
	for (i = 0; i < n; i++)
		must("dat_ep_connect",
		     dat_ep_connect(ep[i], (DAT_IA_ADDRESS_PTR)&sin, o->qual,
				    tmo(120), 0, NULL, DAT_QOS_BEST_EFFORT,
				    DAT_CONNECT_DEFAULT_FLAG));
	while (up < n) {
		must("connection event",
		     dat_evd_wait(s->conn, tmo(300), 1, &ev, &nmore));
		if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED)
			die("active connection event", 0);
		up++;
		gap_note(&gap);
	}
	t1 = now_ns();
	rt1 = req_retries();
	rss2 = status_kib("VmRSS:");
	for (i = 0; i < n; i++)
		must("dat_ep_disconnect",
		     dat_ep_disconnect(ep[i], DAT_CLOSE_GRACEFUL_FLAG));
	while (down < n) {
		must("disconnection event",
		     dat_evd_wait(s->conn, tmo(300), 1, &ev, &nmore));
		down++;
	}
	for (i = 0; i < n; i++)
		must("dat_ep_free", dat_ep_free(ep[i]));
	printf("SCALE conn2 eps=%d connect_s=%.3f conn_per_s=%.1f "
	       "connected_ep_rss_kib=%.1f req_retries=%ld max_gap_s=%.3f\n",
	       n, (double)(t1 - t0) / 1e9, n / ((double)(t1 - t0) / 1e9),
	       (double)(rss2 - rss0) / n, rt0 < 0 ? -1 : rt1 - rt0,
	       (double)gap.max / 1e9);
	free(ep);
}

static int scale_client(const struct opts *o)
{
	struct side s;
	int n;

	side_open(&s, o->ia, 8192, 2 * o->max_eps + 64);
	for (n = o->min_eps; n < o->max_eps; n *= 2)
		scale_client_round(&s, o, n);
	scale_client_round(&s, o, o->max_eps);
	must("dat_ia_close", dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/* ---- contend: two threads posting on one threadsafe IA ---------------- */

struct poster {
	struct side *cli;
	DAT_EP_HANDLE ep;
	DAT_EVD_HANDLE req;
	DAT_RMR_TRIPLET r;
	const struct opts *o;
	pthread_barrier_t *go;
};

static void *poster_run(void *arg)
{
	struct poster *p = arg;
	DAT_LMR_TRIPLET l = iov(p->cli->lctx, p->cli->buf, p->o->size);
	int posted = 0, done = 0;

	if (p->go)
		pthread_barrier_wait(p->go);
	while (done < p->o->iters) {
		while (posted < p->o->iters && posted - done < p->o->window) {
			must("dat_ep_post_rdma_write",
			     dat_ep_post_rdma_write(p->ep, 1, &l, cookie(5),
						    &p->r,
						    DAT_COMPLETION_DEFAULT_FLAG));
			posted++;
		}
		spin(p->req);
		done++;
	}
	return NULL;
}

static int contend(const struct opts *o)
{
	struct side srv, cli;
	struct poster p[2];
	DAT_EP_HANDLE sep[2];
	pthread_barrier_t go;
	pthread_t th[2];
	double one, two;
	uint64_t t0;
	int i;

	/* side_open's dat_ia_open asks for a nonthreadsafe IA; the client
	 * here is opened threadsafe by hand */
	side_open(&srv, o->ia, buflen_for(o), 2 * o->window + 8);
	memset(&cli, 0, sizeof(cli));
	cli.async = DAT_HANDLE_NULL;
	must("dat_ia_openv (threadsafe)",
	     dat_ia_openv((DAT_NAME_PTR)o->ia2, 8, &cli.async, &cli.ia,
			  DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_TRUE));
	must("dat_pz_create", dat_pz_create(cli.ia, &cli.pz));
	must("connection EVD",
	     dat_evd_create(cli.ia, 16, DAT_HANDLE_NULL,
			    DAT_EVD_CONNECTION_FLAG, &cli.conn));
	must("receive EVD", dat_evd_create(cli.ia, 16, DAT_HANDLE_NULL,
					   DAT_EVD_DTO_FLAG, &cli.rcv));
	cli.buflen = buflen_for(o);
	if (posix_memalign((void **)&cli.buf, 4096, cli.buflen))
		die("posix_memalign", DAT_INSUFFICIENT_RESOURCES);
	memset(cli.buf, 0, cli.buflen);
	lmr_make(&cli, cli.buf, cli.buflen, &cli.lmr, &cli.lctx, &cli.rctx);
	must("dat_psp_create", dat_psp_create(srv.ia, o->qual, srv.cr,
					      DAT_PSP_CONSUMER_FLAG,
					      &srv.psp));
	for (i = 0; i < 2; i++) {
		p[i].cli = &cli;
		p[i].o = o;
		p[i].go = NULL;
		p[i].r.rmr_context = srv.rctx;
		p[i].r.pad = 0;
		p[i].r.target_address = (uint64_t)(uintptr_t)srv.buf;
		p[i].r.segment_length = o->size;
		must("request EVD",
		     dat_evd_create(cli.ia, 2 * o->window + 8, DAT_HANDLE_NULL,
				    DAT_EVD_DTO_FLAG, &p[i].req));
		must("dat_ep_create",
		     dat_ep_create(cli.ia, cli.pz, cli.rcv, p[i].req, cli.conn,
				   NULL, &p[i].ep));
		ep_make(&srv, &sep[i]);
		connect_one(&srv, &cli, o, p[i].ep, sep[i]);
	}
	t0 = now_ns();
	poster_run(&p[0]);
	one = o->iters / ((double)(now_ns() - t0) / 1e9);
	if (pthread_barrier_init(&go, NULL, 3))
		die("pthread_barrier_init", DAT_INSUFFICIENT_RESOURCES);
	for (i = 0; i < 2; i++) {
		p[i].go = &go;
		if (pthread_create(&th[i], NULL, poster_run, &p[i]))
			die("pthread_create", DAT_INSUFFICIENT_RESOURCES);
	}
	pthread_barrier_wait(&go);
	t0 = now_ns();
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	two = 2.0 * o->iters / ((double)(now_ns() - t0) / 1e9);
	pthread_barrier_destroy(&go);
	printf("RESULT contend %lu %d one=%.1f two=%.1f\n", o->size, o->iters,
	       one, two);
	must("dat_ia_close", dat_ia_close(cli.ia, DAT_CLOSE_ABRUPT_FLAG));
	must("dat_ia_close", dat_ia_close(srv.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: datbench server -D IA -t TEST -s SIZE -n ITERS [-w WINDOW] [-P spin|block] [-q QUAL]\n"
		"       datbench client -D IA -h ADDR -t TEST -s SIZE -n ITERS [-w WINDOW] [-q QUAL]\n"
		"       datbench loop -D IA -C IA -h ADDR -n N [-q QUAL]\n"
		"       datbench scale -D IA -C IA -h ADDR [-l MIN_EPS] [-m MAX_EPS] [-q QUAL]\n"
		"       datbench iaopen -D IA\n"
		"       datbench scale_server -D IA [-l MIN_EPS] [-m MAX_EPS] [-q QUAL]\n"
		"       datbench scale_client -D IA -h ADDR [-l MIN_EPS] [-m MAX_EPS] [-q QUAL]\n"
		"       datbench contend -D IA -C IA -h ADDR -s SIZE -n ITERS [-w WINDOW] [-q QUAL]\n"
		"TEST: send_lat write_lat write_lat_poll read_lat write_bw fresh_read" ATOMIC_TESTS "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = {.size = 64, .iters = 1000, .min_eps = 16,
			 .max_eps = 256, .window = WINDOW, .qual = 18516,
			 .srv_wait = "spin"};
	const char *sc = getenv("TEST_TIMEOUT_SCALE");
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sc && atoi(sc) > 0)
		scale = (unsigned)atoi(sc);
	if (argc < 2)
		usage();
	o.mode = argv[1];
	lat_clock_pick();
	optind = 2;
	while ((c = getopt(argc, argv, "D:C:h:t:s:n:q:l:m:w:P:")) != -1) {
		switch (c) {
		case 'D': o.ia = optarg; break;
		case 'C': o.ia2 = optarg; break;
		case 'h': o.host = optarg; break;
		case 't': o.test = optarg; break;
		case 's': o.size = strtoul(optarg, NULL, 0); break;
		case 'n': o.iters = atoi(optarg); break;
		case 'q': o.qual = strtoull(optarg, NULL, 0); break;
		case 'l': o.min_eps = atoi(optarg); break;
		case 'm': o.max_eps = atoi(optarg); break;
		case 'w': o.window = atoi(optarg); break;
		case 'P': o.srv_wait = optarg; break;
		default: usage();
		}
	}
	if (!o.ia || o.iters < 1 || o.size < 1 || o.size > MAX_SIZE ||
	    o.min_eps < 1 || o.max_eps < o.min_eps || o.window < 1 ||
	    o.window > 1024 ||
	    (strcmp(o.srv_wait, "spin") && strcmp(o.srv_wait, "block")))
		usage();
	alarm(900 * scale);
#if HAVE_ATOMICS
	if (o.test && !strncmp(o.test, "atomic_", 7))
		mem_priv |= DAT_IB_MEM_PRIV_REMOTE_ATOMIC;
#endif
	if (!strcmp(o.mode, "server") && valid_test(o.test))
		return server(&o);
	if (!strcmp(o.mode, "client") && valid_test(o.test) && o.host)
		return client(&o);
	if (!strcmp(o.mode, "loop") && o.ia2 && o.host)
		return loop(&o);
	if (!strcmp(o.mode, "scale") && o.ia2 && o.host)
		return scale_run(&o);
	if (!strcmp(o.mode, "iaopen"))
		return scale_ia(&o), 0;
	if (!strcmp(o.mode, "scale_server"))
		return scale_server(&o);
	if (!strcmp(o.mode, "scale_client") && o.host)
		return scale_client(&o);
	if (!strcmp(o.mode, "contend") && o.ia2 && o.host)
		return contend(&o);
	usage();
	return 2;
}
