/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofibench.c - the raw twin of datbench's latency and bandwidth rows on
 * libfabric (make bench's libfabric part, issue 35 item 1): the same
 * tests on the same libfabric provider that libdaplofi.so.1 uses,
 * measured exactly as datbench measures them (test/bench/lat.h: the same
 * clock, timestamps and RESULT line), so that a DAT row can be set
 * against what it is built on.  fi_pingpong measures only send/recv and
 * prints only an average; nothing in libfabric-bin measures RMA or
 * atomics through RDM endpoints.
 *
 *   ofibench server -p PROV -t TEST -s SIZE -n ITERS [-w WINDOW] -P PORT [-a ADDR] [-d]
 *   ofibench client -p PROV -h HOST -t TEST -s SIZE -n ITERS [-w WINDOW] -P PORT [-a ADDR] [-d]
 *	PROV: a libfabric provider with RDM endpoints ("tcp;ofi_rxm",
 *	"shm").  TEST: send_lat write_lat read_lat write_bw atomic_fadd
 *	atomic_cas fresh_read, as datbench's (datbench.c says how each is timed).
 *	The two sides swap their endpoint names, buffers and keys over a
 *	TCP connection to HOST:PORT (the server prints "listening" once
 *	it accepts there).  ADDR: the endpoint's own address (FI_SOURCE),
 *	for tcp (the DAT rows use 127.0.0.1 and 127.0.0.2); shm names its
 *	endpoints itself.  -d: the RDMA writes (write_lat, write_bw) ask
 *	for FI_DELIVERY_COMPLETE, as libdaplofi.so.1's do wherever the data
 *	is not at the target when the call returns (providers/ofi/ep.c
 *	ofi_write_flags: over tcp;ofi_rxm and tcp MSG always, over shm
 *	without CMA): a DAT write's completion says the data is there, and
 *	the reference must promise the same (no inject then).
 *   ofibench loop -p PROV -n ROUNDS [-a ADDR -A ADDR2]
 *	datbench loop's twin for callgrind (loop() says how): prints
 *	"LOOP raw rounds N posts 2N completions 2N empty E vain 1000".
 *
 * The loops are what a lean program on libfabric writes, each matching
 * datbench's on DAT: one CQ for sends and one for receives (DAT's
 * request and receive EVDs), no wait objects, every completion read
 * with fi_cq_read; a side that waits for memory to change (write_lat)
 * or for the peer's "done" (the passive side of the one-sided tests)
 * reads its CQs meanwhile, which is libfabric's manual progress (tcp,
 * rxm, shm move data only when driven; DAT's provider has its engine
 * for that).  write_lat's writes ask for no completion (datbench: DAT's
 * COMPLETION_SUPPRESS), by fi_inject_write where the size allows.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <valgrind/callgrind.h>

#define LAT_PROG "ofibench"
#include "lat.h"

struct opts {
	const char *mode, *prov, *host, *test, *src;
	unsigned long size;
	int iters, window, port;
	int delivery;	/* -d: writes ask for FI_DELIVERY_COMPLETE */
};

struct info {			/* what each side tells the other */
	uint8_t name[256];	/* fi_getname */
	uint64_t namelen;
	uint64_t addr;		/* the buffer, as RMA addresses it */
	uint64_t key;
};

struct side {
	struct fi_info *fi;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *txcq, *rxcq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	void *desc;
	unsigned char *buf;	/* data: first half the peer's, second ours */
	size_t buflen;
	uint64_t result, operand, compare;	/* atomics, in the buffer's MR */
	fi_addr_t peer;
	struct info me, other;
	int sock;
};

static void fail(const char *what, long rc)
{
	fprintf(stderr, "ofibench: %s: %s (%ld)\n", what,
		rc < 0 ? fi_strerror((int)-rc) : strerror((int)rc), rc);
	exit(1);
}

static void must(const char *what, long rc)
{
	if (rc)
		fail(what, rc);
}

/* One completion of cq: 1, or 0 if none yet (the call also drives the
 * provider's progress); an error completion ends the program. */
static int cq_one(struct fid_cq *cq)
{
	struct fi_cq_entry e;
	struct fi_cq_err_entry err = {0};
	ssize_t n = fi_cq_read(cq, &e, 1);

	if (n == 1)
		return 1;
	if (n == -FI_EAGAIN)
		return 0;
	if (n == -FI_EAVAIL && fi_cq_readerr(cq, &err, 0) == 1)
		fail(fi_cq_strerror(cq, err.prov_errno, err.err_data, NULL, 0),
		     -err.err);
	fail("fi_cq_read", n);
	return 0;
}

/* datbench's spin: until one completion of cq; the empty reads */
static unsigned long spin(struct fid_cq *cq)
{
	unsigned long empty = 0;

	while (!cq_one(cq))
		empty++;
	return empty;
}

/* datbench's drain: the completions there are */
static void drain(struct fid_cq *cq)
{
	while (cq_one(cq))
		;
}

/* Drives cq's progress without taking a completion (a read of none:
 * fi_cq(3)'s count 0), which its loop still counts on. */
static void progress(struct fid_cq *cq)
{
	(void)fi_cq_read(cq, NULL, 0);
}

/* Posting may answer -FI_EAGAIN while the provider is busy (the first
 * send, before its connection exists): drive both CQs, post again. */
#define POST(what, call)                                                  \
	do {                                                              \
		ssize_t rc_;                                              \
		while ((rc_ = (call)) == -FI_EAGAIN) {                    \
			progress(s->txcq);                                \
			progress(s->rxcq);                                \
		}                                                         \
		must(what, rc_);                                          \
	} while (0)

static int is_atomic(const struct opts *o)
{
	return !strncmp(o->test, "atomic_", 7);
}

static void side_open(struct side *s, const struct opts *o)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT,
				 .wait_obj = FI_WAIT_NONE,
				 .size = 256};
	struct fi_av_attr ava = {.type = FI_AV_MAP};
	size_t len;

	memset(s, 0, sizeof(*s));
	if (!hints)
		fail("fi_allocinfo", ENOMEM);
	hints->caps = FI_MSG | FI_RMA | (is_atomic(o) ? FI_ATOMIC : 0);
	hints->ep_attr->type = FI_EP_RDM;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->fabric_attr->prov_name = strdup(o->prov);
	must("fi_getinfo",
	     fi_getinfo(FI_VERSION(1, 17), o->src, NULL, o->src ? FI_SOURCE : 0,
			hints, &s->fi));
	fi_freeinfo(hints);
	/* every operation completes into its CQ unless it asks for none
	 * (fi_writemsg without FI_COMPLETION; injects never complete) */
	s->fi->tx_attr->op_flags |= FI_COMPLETION;
	must("fi_fabric", fi_fabric(s->fi->fabric_attr, &s->fabric, NULL));
	must("fi_domain", fi_domain(s->fabric, s->fi, &s->domain, NULL));
	must("fi_av_open", fi_av_open(s->domain, &ava, &s->av, NULL));
	must("fi_cq_open", fi_cq_open(s->domain, &cqa, &s->txcq, NULL));
	must("fi_cq_open", fi_cq_open(s->domain, &cqa, &s->rxcq, NULL));
	must("fi_endpoint", fi_endpoint(s->domain, s->fi, &s->ep, NULL));
	must("fi_ep_bind", fi_ep_bind(s->ep, &s->av->fid, 0));
	/* selective: write_lat's writes ask for none */
	must("fi_ep_bind", fi_ep_bind(s->ep, &s->txcq->fid,
				      FI_TRANSMIT | FI_SELECTIVE_COMPLETION));
	must("fi_ep_bind", fi_ep_bind(s->ep, &s->rxcq->fid, FI_RECV));
	must("fi_enable", fi_enable(s->ep));

	/* the data, then the atomics' three words, in one registration */
	s->buflen = 2 * ((o->size + 4095) & ~4095ul) + 4096;
	if (posix_memalign((void **)&s->buf, 4096, s->buflen))
		fail("posix_memalign", ENOMEM);
	memset(s->buf, 0, s->buflen);
	must("fi_mr_reg",
	     fi_mr_reg(s->domain, s->buf, s->buflen,
		       FI_SEND | FI_RECV | FI_READ | FI_WRITE |
			   FI_REMOTE_READ | FI_REMOTE_WRITE,
		       0, 0, 0, &s->mr, NULL));
	s->desc = fi_mr_desc(s->mr);
	len = sizeof(s->me.name);
	must("fi_getname", fi_getname(&s->ep->fid, s->me.name, &len));
	s->me.namelen = len;
	s->me.addr = s->fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR
			 ? (uint64_t)(uintptr_t)s->buf
			 : 0;
	s->me.key = fi_mr_key(s->mr);
}

static void side_close(struct side *s)
{
	fi_close(&s->ep->fid);
	fi_close(&s->mr->fid);
	fi_close(&s->rxcq->fid);
	fi_close(&s->txcq->fid);
	fi_close(&s->av->fid);
	fi_close(&s->domain->fid);
	fi_close(&s->fabric->fid);
	fi_freeinfo(s->fi);
	free(s->buf);
	if (s->sock >= 0)
		close(s->sock);
}

static void xfer(int fd, void *p, size_t len, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = out ? write(fd, (char *)p + done, len - done)
				: read(fd, (char *)p + done, len - done);

		if (n <= 0)
			fail(out ? "write to the peer" : "read from the peer",
			     n < 0 ? errno : EPIPE);
		done += (size_t)n;
	}
}

/* The peer (s->other) into the AV. */
static void peer_insert(struct side *s)
{
	if (s->other.namelen > sizeof(s->other.name))
		fail("the peer's name", EINVAL);
	if (fi_av_insert(s->av, s->other.name, 1, &s->peer, 0, NULL) != 1)
		fail("fi_av_insert", EINVAL);
}

/* Swaps names, buffers and keys over the TCP connection. */
static void exchange(struct side *s)
{
	xfer(s->sock, &s->me, sizeof(s->me), 1);
	xfer(s->sock, &s->other, sizeof(s->other), 0);
	peer_insert(s);
}

/* one byte each way: both sides are ready (receives posted) */
static void barrier(struct side *s)
{
	char b = 1;

	xfer(s->sock, &b, 1, 1);
	xfer(s->sock, &b, 1, 0);
}

static void post_recv(struct side *s, unsigned long size)
{
	POST("fi_recv", fi_recv(s->ep, s->buf, size, s->desc, s->peer, s));
}

static void post_send(struct side *s, unsigned long size)
{
	POST("fi_send", fi_send(s->ep, s->buf + s->buflen / 2, size, s->desc,
				s->peer, s));
}

static void send_lat(struct side *s, const struct opts *o, int client,
		     uint64_t *t)
{
	int i;

	for (i = 0; i < o->iters; i++) {
		if (client) {
			t[i] = lat_stamp();
			post_send(s, o->size);
			spin(s->rxcq);
		} else {
			spin(s->rxcq);
		}
		if (i + 1 < o->iters)
			post_recv(s, o->size);
		if (!client)
			post_send(s, o->size);
		drain(s->txcq);
	}
	if (client)
		t[o->iters] = lat_stamp();
}

/* An RDMA write of size bytes from buf to the start of the peer's
 * buffer, as fi_writemsg takes it (msg points into the struct). */
struct write_msg {
	struct iovec iov;
	struct fi_rma_iov rma;
	struct fi_msg_rma msg;
};

static void write_msg_init(struct write_msg *w, struct side *s, void *buf,
			   size_t size, void *context)
{
	w->iov = (struct iovec){buf, size};
	w->rma = (struct fi_rma_iov){s->other.addr, size, s->other.key};
	w->msg = (struct fi_msg_rma){.msg_iov = &w->iov,
				     .desc = &s->desc,
				     .iov_count = 1,
				     .addr = s->peer,
				     .rma_iov = &w->rma,
				     .rma_iov_count = 1,
				     .context = context};
}

/* each side polls the last byte of the first half (where the peer
 * writes), reading its CQs meanwhile, and writes from the second half */
static void write_lat(struct side *s, const struct opts *o, int client,
		      uint64_t *t)
{
	volatile unsigned char *in = s->buf + o->size - 1;
	unsigned char *out = s->buf + s->buflen / 2;
	int inject = !o->delivery && o->size <= s->fi->tx_attr->inject_size;
	uint64_t flags = o->delivery ? FI_DELIVERY_COMPLETE : 0;
	struct write_msg w;
	int i;

	write_msg_init(&w, s, out, o->size, NULL);
	for (i = 0; i < o->iters; i++) {
		unsigned char v = (unsigned char)(i % 250 + 1);

		if (client)
			t[i] = lat_stamp();
		else
			while (*in != v)
				cq_one(s->txcq);
		out[o->size - 1] = v;
		if (inject)
			POST("fi_inject_write",
			     fi_inject_write(s->ep, out, o->size, s->peer,
					     s->other.addr, s->other.key));
		else
			POST("fi_writemsg", fi_writemsg(s->ep, &w.msg, flags));
		if (client)
			while (*in != v)
				cq_one(s->txcq);
		drain(s->txcq);
	}
	if (client)
		t[o->iters] = lat_stamp();
}

static void read_lat(struct side *s, const struct opts *o, uint64_t *t)
{
	int i;

	for (i = 0; i < o->iters; i++) {
		t[i] = lat_stamp();
		POST("fi_read", fi_read(s->ep, s->buf, o->size, s->desc,
					s->peer, s->other.addr, s->other.key,
					s));
		spin(s->txcq);
	}
	t[o->iters] = lat_stamp();
}

/* 8 bytes, the whole round trip; the compare-and-swap compares with the
 * value it set last, so it hits (datbench) */
static void atomic_lat(struct side *s, const struct opts *o, uint64_t *t)
{
	int cas = !strcmp(o->test, "atomic_cas"), i;
	uint64_t *w = (uint64_t *)(s->buf + s->buflen - 4096);

	for (i = 0; i < o->iters; i++) {
		t[i] = lat_stamp();
		if (cas) {
			w[1] = (uint64_t)i;	/* compare */
			w[2] = (uint64_t)i + 1;	/* swap */
			POST("fi_compare_atomic",
			     fi_compare_atomic(s->ep, &w[2], 1, s->desc, &w[1],
					       s->desc, &w[0], s->desc,
					       s->peer, s->other.addr,
					       s->other.key, FI_UINT64,
					       FI_CSWAP, s));
		} else {
			w[1] = 1;
			POST("fi_fetch_atomic",
			     fi_fetch_atomic(s->ep, &w[1], 1, s->desc, &w[0],
					     s->desc, s->peer, s->other.addr,
					     s->other.key, FI_UINT64, FI_SUM,
					     s));
		}
		spin(s->txcq);
		/* the target word starts at 0 and gains 1 each time: what
		 * came back is the count so far (a wrong figure would be
		 * no measure of an atomic) */
		if (w[0] != (uint64_t)i) {
			fprintf(stderr, "ofibench: %s %d fetched %llu\n",
				o->test, i, (unsigned long long)w[0]);
			exit(1);
		}
	}
	t[o->iters] = lat_stamp();
}

static double write_bw(struct side *s, const struct opts *o)
{
	uint64_t flags = FI_COMPLETION |
			 (o->delivery ? FI_DELIVERY_COMPLETE : 0);
	int posted = 0, done = 0;
	struct write_msg w;
	uint64_t t0, t1;

	write_msg_init(&w, s, s->buf, o->size, s);
	t0 = now_ns();
	while (done < o->iters) {
		while (posted < o->iters && posted - done < o->window) {
			POST("fi_writemsg", fi_writemsg(s->ep, &w.msg, flags));
			posted++;
		}
		spin(s->txcq);
		done++;
	}
	t1 = now_ns();
	return (double)o->size * o->iters / ((double)(t1 - t0) / 1e9) /
	       1048576.0;
}

/*
 * datbench's fresh_read on libfabric: per fragment the server registers
 * SIZE bytes (fi_mr_reg for remote reads, alternately in either half of
 * its buffer), sends the address and key, the client fi_reads it and
 * sends "done", the server closes the registration.  The small messages
 * go from and to the last page (the atomics' words are not used here);
 * the first receive of each side was posted before the barrier (run()).
 */
struct frag {
	uint64_t addr, key;
};

static unsigned char *fresh_msg(struct side *s, int out)
{
	return s->buf + s->buflen - 4096 + (out ? 2048 : 0);
}

static void fresh_post_recv(struct side *s)
{
	POST("fi_recv", fi_recv(s->ep, fresh_msg(s, 0), sizeof(struct frag),
				s->desc, s->peer, s));
}

static void fresh_send(struct side *s, const void *msg, size_t len)
{
	memcpy(fresh_msg(s, 1), msg, len);
	POST("fi_send", fi_send(s->ep, fresh_msg(s, 1), len, s->desc, s->peer,
				s));
	spin(s->txcq);
}

static void fresh_server(struct side *s, const struct opts *o)
{
	size_t half = (o->size + 4095) & ~4095ul;
	struct fid_mr *mr;
	struct frag f;
	int i;

	for (i = 0; i < o->iters; i++) {
		unsigned char *p = s->buf + (size_t)(i & 1) * half;

		/* a key of its own where the provider takes the
		 * consumer's (shm: the buffer's registration has 0) */
		must("fi_mr_reg", fi_mr_reg(s->domain, p, o->size,
					    FI_REMOTE_READ, 0,
					    (uint64_t)i + 1, 0, &mr, NULL));
		f.addr = s->fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR
			     ? (uint64_t)(uintptr_t)p
			     : 0;
		f.key = fi_mr_key(mr);
		fresh_send(s, &f, sizeof(f));
		spin(s->rxcq); /* "done" */
		fresh_post_recv(s); /* the next "done", or the last one */
		must("fi_close(mr)", fi_close(&mr->fid));
	}
}

static double fresh_client(struct side *s, const struct opts *o)
{
	char done[8] = "done";
	uint64_t t0, t1;
	struct frag f;
	int i;

	t0 = now_ns();
	for (i = 0; i < o->iters; i++) {
		spin(s->rxcq);
		memcpy(&f, fresh_msg(s, 0), sizeof(f));
		if (i + 1 < o->iters)
			fresh_post_recv(s);
		POST("fi_read", fi_read(s->ep, s->buf, o->size, s->desc,
					s->peer, f.addr, f.key, s));
		spin(s->txcq);
		fresh_send(s, done, sizeof(done));
	}
	t1 = now_ns();
	return (double)o->size * o->iters / ((double)(t1 - t0) / 1e9) /
	       1048576.0;
}

static void run_test(struct side *s, const struct opts *o, int client)
{
	uint64_t *t = calloc((size_t)o->iters + 1, sizeof(*t));

	if (!t)
		fail("calloc", ENOMEM);
	if (client && strcmp(o->test, "write_bw") &&
	    strcmp(o->test, "fresh_read"))
		lat_clock_init();
	if (!strcmp(o->test, "send_lat")) {
		send_lat(s, o, client, t);
		if (client)
			lat_report(o->test, o->size, o->iters, t, 1);
	} else if (!strcmp(o->test, "write_lat")) {
		write_lat(s, o, client, t);
		if (client)
			lat_report(o->test, o->size, o->iters, t, 1);
	} else if (!strcmp(o->test, "read_lat")) {
		if (client) {
			read_lat(s, o, t);
			lat_report(o->test, o->size, o->iters, t, 0);
		}
	} else if (is_atomic(o)) {
		if (client) {
			atomic_lat(s, o, t);
			lat_report(o->test, o->size, o->iters, t, 0);
		}
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

/* The passive side of the one-sided tests reads its CQs until the
 * client's "done" (its progress); every side ends with a "done" sent
 * or received, so that neither closes under the other's last
 * operation. */
static int run(const struct opts *o, int client)
{
	struct side s;

	side_open(&s, o);
	if (client) {
		struct sockaddr_in sin = {.sin_family = AF_INET,
					  .sin_port = htons((uint16_t)o->port)};

		if (inet_pton(AF_INET, o->host, &sin.sin_addr) != 1)
			fail("the server's address", EINVAL);
		s.sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s.sock < 0 ||
		    connect(s.sock, (struct sockaddr *)&sin, sizeof(sin)))
			fail("connect to the server", errno);
	} else {
		struct sockaddr_in sin = {.sin_family = AF_INET,
					  .sin_port = htons((uint16_t)o->port),
					  .sin_addr.s_addr =
					      htonl(INADDR_LOOPBACK)};
		int one = 1, l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (l < 0 ||
		    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
		    listen(l, 1))
			fail("listen", errno);
		printf("listening\n");
		fflush(stdout);
		s.sock = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (s.sock < 0)
			fail("accept", errno);
		close(l);
	}
	exchange(&s);
	/* one message each way first, so that the provider's connection
	 * (rxm makes it at the first send) exists before the measure, as
	 * DAT's does (dat_ep_connect, then datbench's exchange on it) */
	post_recv(&s, 8);
	barrier(&s);
	if (client) {
		post_send(&s, 8);
		spin(s.txcq);
		spin(s.rxcq);
	} else {
		spin(s.rxcq);
		post_send(&s, 8);
		spin(s.txcq);
	}
	if (!strcmp(o->test, "send_lat"))
		post_recv(&s, o->size);
	else if (!client)
		post_recv(&s, 8);	/* the client's "done" */
	if (!strcmp(o->test, "fresh_read") && client)
		fresh_post_recv(&s);	/* the first fragment's key */
	barrier(&s);
	run_test(&s, o, client);
	if (client) {
		memcpy(s.buf + s.buflen / 2, "done", 5);
		if (!strcmp(o->test, "send_lat"))
			post_recv(&s, 8); /* the server's answer */
		post_send(&s, 8);
		spin(s.txcq);
		if (!strcmp(o->test, "send_lat"))
			spin(s.rxcq);
	} else {
		if (!strcmp(o->test, "send_lat"))
			post_recv(&s, 8);
		spin(s.rxcq);
		if (!strcmp(o->test, "send_lat")) {
			post_send(&s, 8);
			spin(s.txcq);
		}
	}
	/* the peer has everything it waits for: the last byte on the
	 * TCP connection says so */
	barrier(&s);
	side_close(&s);
	return 0;
}

/* datbench's rounds: 64-byte send from cli, its completion, the
 * receive's at srv, the receive posted again.  One thread drives both
 * endpoints (libfabric's manual progress: neither moves unless its CQ is
 * read), so it reads both CQs until each gave its completion, where
 * datbench's dequeues leave the other side to its IA's engine. */
static unsigned long rounds(struct side *srv, struct side *cli, int n)
{
	unsigned long empty = 0;
	int i, tx, rx;

	for (i = 0; i < n; i++) {
		struct side *s = cli;
		ssize_t rc;

		/* (the first sends wait for the connection, which the
		 * server's side must progress too) */
		while ((rc = fi_send(cli->ep, cli->buf + cli->buflen / 2, 64,
				     cli->desc, cli->peer, cli)) == -FI_EAGAIN) {
			progress(srv->rxcq);
			progress(cli->txcq);
		}
		must("fi_send", rc);
		for (tx = rx = 0; !tx || !rx;) {
			if (!tx && !(tx = cq_one(cli->txcq)))
				empty++;
			if (!rx && !(rx = cq_one(srv->rxcq)))
				empty++;
		}
		s = srv;
		POST("fi_recv", fi_recv(srv->ep, srv->buf, 64, srv->desc,
					srv->peer, srv));
	}
	return empty;
}

/*
 * datbench loop's twin: one process, two endpoints (each with its
 * fabric, domain and CQs, as two DAT IAs), N rounds; under callgrind
 * (--collect-atstart=no) the rounds are dumped as "loop", then as many
 * reads of an empty CQ as the rounds made as "empty" (test/bench/
 * ofi-cg.sh takes the second from the first), then 1,000 reads of the
 * empty CQ alone as "vain".
 */
enum { VAIN_READS = 1000 };

/* n reads of cq, which must stay empty */
static void empty_reads(struct fid_cq *cq, unsigned long n)
{
	while (n--)
		if (cq_one(cq))
			fail("an empty CQ had a completion", EINVAL);
}

static int loop(const struct opts *o, const char *src2)
{
	struct opts oc = *o;
	struct side srv, cli, *s = &srv;
	unsigned long empty;

	side_open(&srv, o);
	oc.src = src2;
	side_open(&cli, &oc);
	srv.sock = cli.sock = -1;
	srv.other = cli.me;
	cli.other = srv.me;
	peer_insert(&srv);
	peer_insert(&cli);
	POST("fi_recv", fi_recv(srv.ep, srv.buf, 64, srv.desc, srv.peer, s));
	rounds(&srv, &cli, 32);	/* warm-up: connections, lazy binding */
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	empty = rounds(&srv, &cli, o->iters);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("loop");
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	empty_reads(cli.txcq, empty);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("empty");
	/* datbench's "vain": reads of an empty CQ alone */
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	empty_reads(cli.txcq, VAIN_READS);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("vain");
	printf("LOOP raw rounds %d posts %d completions %d empty %lu vain %d\n",
	       o->iters, 2 * o->iters, 2 * o->iters, empty, VAIN_READS);
	side_close(&cli);
	side_close(&srv);
	return 0;
}

static int valid_test(const char *t)
{
	return t && (!strcmp(t, "send_lat") || !strcmp(t, "write_lat") ||
		     !strcmp(t, "read_lat") || !strcmp(t, "write_bw") ||
		     !strcmp(t, "atomic_fadd") || !strcmp(t, "atomic_cas") ||
		     !strcmp(t, "fresh_read"));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ofibench server -p PROV -t TEST -s SIZE -n ITERS [-w WINDOW] -P PORT [-a ADDR] [-d]\n"
		"       ofibench client -p PROV -h HOST -t TEST -s SIZE -n ITERS [-w WINDOW] -P PORT [-a ADDR] [-d]\n"
		"       ofibench loop -p PROV -n ROUNDS [-a ADDR -A ADDR2]\n"
		"TEST: send_lat write_lat read_lat write_bw atomic_fadd atomic_cas fresh_read\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = {.window = 32, .iters = 1000, .size = 64};
	const char *src2 = NULL;
	int c, client;

	if (argc < 2)
		usage();
	o.mode = argv[1];
	client = !strcmp(o.mode, "client");
	if (!strcmp(o.mode, "loop"))
		o.test = "send_lat";
	else if (!client && strcmp(o.mode, "server"))
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "p:h:t:s:n:w:P:a:A:d")) != -1) {
		switch (c) {
		case 'p': o.prov = optarg; break;
		case 'h': o.host = optarg; break;
		case 'A': src2 = optarg; break;
		case 't': o.test = optarg; break;
		case 's': o.size = strtoul(optarg, NULL, 0); break;
		case 'n': o.iters = atoi(optarg); break;
		case 'w': o.window = atoi(optarg); break;
		case 'P': o.port = atoi(optarg); break;
		case 'a': o.src = optarg; break;
		case 'd': o.delivery = 1; break;
		default: usage();
		}
	}
	if (!strcmp(o.mode, "loop")) {
		if (!o.prov || o.iters < 1)
			usage();
		return loop(&o, src2);
	}
	if (!o.prov || !valid_test(o.test) || (client && !o.host) ||
	    o.port <= 0 || o.port > 65535 || o.iters < 1 || o.window < 1 ||
	    o.size < 1 || o.size > (1ul << 30) ||
	    (is_atomic(&o) && o.size != 8))
		usage();
	lat_clock_pick();
	return run(&o, client);
}
