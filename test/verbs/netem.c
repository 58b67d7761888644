/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dattest-netem: the verbs provider over a lossy link (issue 18, item 5).
 * test/verbs/netem.bats puts a tc netem qdisc on the guest's veths while
 * a server (rxe0-cma) and a client (rxe1-cma) of one test move data;
 * the programs announce the moments the suite waits for on stdout and
 * wait for the files it creates (-f PREFIX: PREFIX.go, PREFIX.clear) so
 * that the connection is set up and torn down over a clean link and only
 * the transfers see the loss.
 *
 *   dattest-netem TEST server|client [-i IA] [-q QUAL] [-n MAXSIZE] -f PREFIX
 *
 *   xfer   after "ready" and PREFIX.go: for each size from 1 B to MAXSIZE
 *          (default 1 MiB) a send (the server checks every byte it
 *          received), an RDMA write into the server's memory and an RDMA
 *          read of it back (every byte compared), then 8-byte atomics:
 *          ATOMICS pipelined fetch-and-adds of 1 on one counter, whose
 *          original values must be exactly 0 .. ATOMICS-1, and a
 *          compare-and-swap that hits.  "transferred", then PREFIX.clear,
 *          a graceful disconnect.
 *   cut    RDMA writes stream both ways ("streaming" once going); the
 *          suite then drops every packet.  Each side: its first failed
 *          write, every other outstanding write and every posted receive
 *          complete (the rest DAT_DTO_ERR_FLUSHED), and the connection
 *          ends BROKEN (or TIMED_OUT) no later than (retry count + 1) x
 *          the ACK timeout x SLACK x TEST_TIMEOUT_SCALE after the last
 *          write that succeeded (DAPL_CMA_RETRY_COUNT and
 *          DAPL_CMA_ACK_TIMEOUT, which the suite sets: a count of 7 is
 *          "forever" on rxe).  "broken", then PREFIX.clear (the link is
 *          back): the server accepts a new connection on the same PSP,
 *          the client makes it, and a checked RDMA write each way and a
 *          send go through.
 *
 * Every wait is bounded and scaled by TEST_TIMEOUT_SCALE; every byte is
 * checked.  Prints PASS and exits 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt.h"
#include <dat/dat_ib_extensions.h>

#define PRIV_LOCAL                                                             \
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define PRIV_TARGET                                                            \
	(PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_READ_FLAG |                          \
	 DAT_MEM_PRIV_REMOTE_WRITE_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC)
#define ANY_LEN ((DAT_VLEN)-1)

enum {
	MAX_DEFAULT = 1 << 20,
	HDR = 64,		/* a message header slot before the data */
	RECVS = 4,		/* receives kept posted */
	ATOMICS = 32,
	AWIN = 4,		/* atomics outstanding */
	SLACK = 10,
	CUT_WIN = 4,		/* writes outstanding in "cut" */
	CUT_CHUNK = 4096,
	CUT_ANNOUNCE = 32,
};

static const char *prefix;

static void say(const char *line)
{
	printf("%s\n", line);
	fflush(stdout);
}

/* Waits (bounded) for the file PREFIX.what the suite creates. */
static void wait_file(const char *what, unsigned secs)
{
	char path[512];
	uint64_t end = vt_now_us() + (uint64_t)vt_secs(secs);

	snprintf(path, sizeof(path), "%s.%s", prefix, what);
	while (access(path, F_OK)) {
		if (vt_now_us() > end)
			vt_die("no %s after %u s", path, secs * vt_scale);
		vt_sleep_ms(50);
	}
	vt_note("ok %s", path);
}

/* One connection's buffers: big receive slots, a source/sink, a target. */
struct side {
	struct vt v;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	DAT_EP_ATTR a;
	DAT_VLEN max;
	struct vt_mem rbuf;	/* RECVS slots of HDR + max */
	struct vt_mem src;	/* what this side sends / writes / reads into */
	struct vt_mem area;	/* the target: max + 64 (the counter after) */
	unsigned next_slot;
	unsigned posted;	/* receives posted and not completed */
	int repost;		/* a receive slot is being read: repost later */
	uint64_t peer_addr;
	DAT_RMR_CONTEXT peer_ctx;
};

struct info {
	char tag[8];
	uint64_t addr;
	uint32_t rmr_context;
	uint32_t seed;
	uint64_t len;
};

static DAT_VLEN slot_len(const struct side *s) { return HDR + s->max; }

static void post_recv(struct side *s)
{
	unsigned k = s->next_slot++ % RECVS;
	DAT_LMR_TRIPLET t = vt_iov(&s->rbuf, k * slot_len(s), slot_len(s));

	vt_must("dat_ep_post_recv",
		dat_ep_post_recv(s->ep, 1, &t, vt_cookie(0x5100 + k),
				 DAT_COMPLETION_DEFAULT_FLAG));
	s->posted++;
}

static void side_open(struct side *s, const struct vt_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->max = o->count > 0 ? (DAT_VLEN)o->count : MAX_DEFAULT;
	vt_open(&s->v, o->ia_name);
	vt_mem_alloc(&s->v, &s->rbuf, RECVS * slot_len(s), PRIV_LOCAL);
	vt_mem_alloc(&s->v, &s->src, s->max + HDR, PRIV_LOCAL);
	vt_mem_alloc(&s->v, &s->area, s->max + 64, PRIV_TARGET);
	vt_ep_attr(&s->v, &s->a);
}

static void side_close(struct side *s)
{
	if (s->ep)
		vt_ep_free(s->ep);
	if (s->psp)
		vt_expect("dat_psp_free", dat_psp_free(s->psp), DAT_SUCCESS);
	vt_mem_free(&s->area);
	vt_mem_free(&s->src);
	vt_mem_free(&s->rbuf);
	vt_close(&s->v);
}

static void server_accept(struct side *s, int first)
{
	DAT_CONN_QUAL qual = 0;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	int i;

	if (first) {
		s->psp = vt_psp(&s->v, &qual);
		vt_listening(qual);
	}
	cr = vt_wait_cr(&s->v, &ev);
	s->ep = vt_ep(&s->v, &s->a);
	for (i = 0; i < RECVS; i++)
		post_recv(s);
	vt_accept(&s->v, cr, s->ep, NULL, 0);
}

static void client_connect(struct side *s, const struct vt_opts *o)
{
	int i;

	s->ep = vt_ep(&s->v, &s->a);
	for (i = 0; i < RECVS; i++)
		post_recv(s);
	vt_connect(&s->v, s->ep, o->addr, o->qual, NULL, 0);
}

/* A send of len bytes of src (after an info header when tag). */
static void send_msg(struct side *s, DAT_VLEN len, uint64_t cookie)
{
	DAT_LMR_TRIPLET t = vt_iov(&s->src, 0, len);

	vt_must("dat_ep_post_send",
		dat_ep_post_send(s->ep, 1, &t, vt_cookie(cookie),
				 DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect_dto("send", s->v.req_evd, s->ep, cookie, DAT_DTO_SUCCESS,
		      len);
}

static void send_info(struct side *s, const char *tag, uint32_t seed,
		      uint64_t len)
{
	struct info in;

	memset(&in, 0, sizeof(in));
	snprintf(in.tag, sizeof(in.tag), "%s", tag);
	in.addr = (uintptr_t)s->area.buf;
	in.rmr_context = s->area.rctx;
	in.seed = seed;
	in.len = len;
	memcpy(s->src.buf, &in, sizeof(in));
	send_msg(s, sizeof(in), 0x1F0);
}

/* The next receive: its length and where its bytes are (the slot is
 * posted again at the next call). */
static unsigned char *recv_msg(struct side *s, DAT_VLEN *len)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;
	unsigned k;

	/* the slot the caller read last time goes back now: a slot is
	 * posted again only once it was read */
	if (s->repost)
		post_recv(s);
	s->repost = 0;
	rc = vt_wait(s->v.rcv_evd, vt_secs(60), &ev);
	d = &ev.event_data.dto_completion_event_data;
	if (rc != DAT_SUCCESS)
		vt_die("receive: %s", vt_rc(rc));
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS || d->ep_handle != s->ep)
		vt_die("receive: %s %s", vt_ev(ev.event_number),
		       vt_dto(d->status));
	k = (unsigned)(d->user_cookie.as_64 - 0x5100);
	if (k >= RECVS)
		vt_die("receive: cookie 0x%llx",
		       (unsigned long long)d->user_cookie.as_64);
	*len = d->transfered_length;
	s->posted--;
	s->repost = 1;
	return s->rbuf.buf + k * slot_len(s);
}

static void recv_info(struct side *s, const char *tag, struct info *in)
{
	DAT_VLEN len;
	unsigned char *p = recv_msg(s, &len);

	if (len != sizeof(*in))
		vt_die("message '%s': %llu bytes", tag,
		       (unsigned long long)len);
	memcpy(in, p, sizeof(*in));
	if (strncmp(in->tag, tag, sizeof(in->tag)))
		vt_die("message '%.8s', want '%s'", in->tag, tag);
}

static const DAT_VLEN sizes[] = {1,	7,     64,    1000,   4096,
				 4097, 65536, 65537, 262144, 1 << 20};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static uint32_t seed_of(unsigned i, unsigned op) { return 0x1000 * op + i; }

/* ---- xfer ---------------------------------------------------------------- */

static int xfer_server(const struct vt_opts *o)
{
	struct side s;
	struct info in;
	unsigned i, n = 0;
	uint64_t *cnt;

	side_open(&s, o);
	cnt = (uint64_t *)(s.area.buf + s.max);
	server_accept(&s, 1);
	send_info(&s, "area", 0, s.max);
	for (i = 0; i < NSIZES && sizes[i] <= s.max; i++) {
		DAT_VLEN len;
		unsigned char *p = recv_msg(&s, &len);

		if (len != sizes[i])
			vt_fail("send %u: %llu bytes, want %llu", i,
				(unsigned long long)len,
				(unsigned long long)sizes[i]);
		else if (vt_check("bytes received", p, len, seed_of(i, 1)))
			n++;
	}
	vt_note("ok %u of %u sends received intact", n, i);
	vt_expect_u64("sends received intact", n, i);
	recv_info(&s, "done", &in);
	/* The last RDMA write the client made, as it lies here. */
	vt_check("the last RDMA write, in the server's memory", s.area.buf,
		 in.len, in.seed);
	vt_expect_u64("the counter after the atomics", *cnt, 0xC0FFEE);
	say("transferred");
	wait_file("clear", 120);
	vt_wait_disconnected(&s.v, s.ep);
	side_close(&s);
	return 0;
}

static int rdma(struct side *s, int read, DAT_VLEN len, uint64_t cookie)
{
	DAT_LMR_TRIPLET l = vt_iov(&s->src, 0, len);
	DAT_RMR_TRIPLET r;

	r.rmr_context = s->peer_ctx;
	r.target_address = s->peer_addr;
	r.segment_length = len;
	if (read)
		vt_must("dat_ep_post_rdma_read",
			dat_ep_post_rdma_read(s->ep, 1, &l, vt_cookie(cookie),
					      &r, DAT_COMPLETION_DEFAULT_FLAG));
	else
		vt_must("dat_ep_post_rdma_write",
			dat_ep_post_rdma_write(s->ep, 1, &l, vt_cookie(cookie),
					       &r, DAT_COMPLETION_DEFAULT_FLAG));
	return vt_expect_dto(read ? "RDMA read" : "RDMA write", s->v.req_evd,
			     s->ep, cookie, DAT_DTO_SUCCESS, len);
}

/* ATOMICS fetch-and-adds of 1, AWIN outstanding, then a CAS that hits. */
static void atomics(struct side *s)
{
	DAT_RMR_TRIPLET r;
	unsigned char seen[ATOMICS];
	uint64_t *res = (uint64_t *)s->src.buf;
	unsigned posted = 0, done = 0, bad = 0, i;
	DAT_EVENT ev;

	memset(seen, 0, sizeof(seen));
	r.rmr_context = s->peer_ctx;
	r.target_address = s->peer_addr + s->max;
	r.segment_length = 8;
	while (done < ATOMICS) {
		while (posted < ATOMICS && posted - done < AWIN) {
			DAT_LMR_TRIPLET t = vt_iov(&s->src, 8 * posted, 8);

			vt_must("dat_ib_post_fetch_and_add",
				dat_ib_post_fetch_and_add(
				    s->ep, 1, &t, vt_cookie(0xA000 + posted),
				    &r, DAT_COMPLETION_DEFAULT_FLAG));
			posted++;
		}
		if (vt_wait(s->v.req_evd, vt_secs(60), &ev) != DAT_SUCCESS)
			vt_die("fetch-and-add %u: no completion", done);
		if (ev.event_number != DAT_IB_DTO_EVENT ||
		    ev.event_data.dto_completion_event_data.status !=
			DAT_DTO_SUCCESS)
			vt_die("fetch-and-add %u: %s %s", done,
			       vt_ev(ev.event_number),
			       vt_dto(ev.event_data.dto_completion_event_data
					  .status));
		done++;
	}
	for (i = 0; i < ATOMICS; i++) {
		if (res[i] >= ATOMICS || seen[res[i]]++)
			bad++;
	}
	vt_note("ok %u fetch-and-adds, %u original values out of place",
		ATOMICS, bad);
	vt_expect_u64("fetch-and-add originals not 0..N-1 once each", bad, 0);
	{
		DAT_LMR_TRIPLET t = vt_iov(&s->src, 0, 8);

		vt_must("dat_ib_post_cmp_and_swap",
			dat_ib_post_cmp_and_swap(s->ep, ATOMICS, 0xC0FFEE, &t,
						 vt_cookie(0xACA5), &r,
						 DAT_COMPLETION_DEFAULT_FLAG));
		if (vt_wait(s->v.req_evd, vt_secs(60), &ev) != DAT_SUCCESS ||
		    ev.event_number != DAT_IB_DTO_EVENT ||
		    ev.event_data.dto_completion_event_data.status !=
			DAT_DTO_SUCCESS)
			vt_die("compare-and-swap: no good completion");
		vt_expect_u64("compare-and-swap's original value", res[0],
			      ATOMICS);
	}
}

static int xfer_client(const struct vt_opts *o)
{
	struct side s;
	struct info in;
	unsigned i, good = 0, n = 0;
	DAT_VLEN last = 0;

	side_open(&s, o);
	client_connect(&s, o);
	recv_info(&s, "area", &in);
	s.peer_addr = in.addr;
	s.peer_ctx = in.rmr_context;
	if (in.len < s.max)
		vt_die("the server's area is %llu bytes",
		       (unsigned long long)in.len);
	say("ready");
	wait_file("go", 60);
	for (i = 0; i < NSIZES && sizes[i] <= s.max; i++, n++) {
		DAT_VLEN len = sizes[i];
		int ok = 1;

		vt_fill(s.src.buf, len, seed_of(i, 1));
		send_msg(&s, len, 0x5E00 + i);
		vt_fill(s.src.buf, len, seed_of(i, 2));
		ok &= rdma(&s, 0, len, 0x3700 + i);
		memset(s.src.buf, 0, len);
		ok &= rdma(&s, 1, len, 0x3D00 + i);
		ok &= vt_check("RDMA read back of the write", s.src.buf, len,
			       seed_of(i, 2));
		last = len;
		good += ok;
	}
	vt_note("ok %u of %u sizes: send, RDMA write, RDMA read intact", good,
		n);
	vt_expect_u64("sizes moved intact", good, n);
	atomics(&s);
	memset(&in, 0, sizeof(in));
	snprintf(in.tag, sizeof(in.tag), "done");
	in.seed = seed_of(n - 1, 2);
	in.len = last;
	memcpy(s.src.buf, &in, sizeof(in));
	send_msg(&s, sizeof(in), 0x1F1);
	say("transferred");
	wait_file("clear", 120);
	vt_disconnect(&s.v, s.ep);
	side_close(&s);
	return 0;
}

/* ---- cut ------------------------------------------------------------------- */

static unsigned env_u(const char *name, unsigned dflt)
{
	const char *e = getenv(name);

	return e && *e ? (unsigned)strtoul(e, NULL, 10) : dflt;
}

/*
 * Streams CUT_WIN RDMA writes of CUT_CHUNK at the peer's area until one
 * fails; then every outstanding one must complete (flushed), every posted
 * receive flush, and the connection end BROKEN within the bound.
 */
static void stream_until_cut(struct side *s)
{
	unsigned retry = env_u("DAPL_CMA_RETRY_COUNT", 7);
	unsigned ack = env_u("DAPL_CMA_ACK_TIMEOUT", 19);
	uint64_t bound_us, last_ok, now, good = 0, flushed = 0, other = 0;
	unsigned outstanding = 0, recv_flushed = 0;

	uint64_t next = 0;
	DAT_DTO_COMPLETION_STATUS first = DAT_DTO_SUCCESS;
	DAT_EVENT ev;
	int cut = 0;

	if (retry >= 7)
		vt_die("DAPL_CMA_RETRY_COUNT must be finite (< 7) here");
	bound_us = (uint64_t)(retry + 1) * ((4096ull << ack) / 1000) * SLACK *
		   (uint64_t)vt_scale;
	vt_note("bound: (%u + 1) x 4.096 us x 2^%u x %d x %d = %llu ms", retry,
		ack, SLACK, vt_scale, (unsigned long long)(bound_us / 1000));
	last_ok = vt_now_us();
	for (;;) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d;

		while (!cut && outstanding < CUT_WIN) {
			DAT_LMR_TRIPLET l = vt_iov(&s->src, 0, CUT_CHUNK);
			DAT_RMR_TRIPLET r;

			r.rmr_context = s->peer_ctx;
			r.target_address =
			    s->peer_addr + (next % 8) * CUT_CHUNK;
			r.segment_length = CUT_CHUNK;
			vt_must("dat_ep_post_rdma_write",
				dat_ep_post_rdma_write(
				    s->ep, 1, &l, vt_cookie(0x77000000 + next),
				    &r, DAT_COMPLETION_DEFAULT_FLAG));
			next++;
			outstanding++;
		}
		if (!outstanding)
			break;
		now = vt_now_us();
		if (vt_wait(s->v.req_evd,
			    cut ? vt_secs(30)
				: (DAT_TIMEOUT)(last_ok + bound_us > now
						    ? last_ok + bound_us - now
						    : 1),
			    &ev) != DAT_SUCCESS) {
			vt_fail("%u write(s) outstanding and no completion "
				"within the bound after the last good one",
				outstanding);
			return;
		}
		d = &ev.event_data.dto_completion_event_data;
		outstanding--;
		if (d->status == DAT_DTO_SUCCESS && !cut) {
			good++;
			last_ok = vt_now_us();
			if (good == CUT_ANNOUNCE)
				say("streaming");
			continue;
		}
		if (!cut) {
			cut = 1;
			first = d->status;
			vt_note("first error after %llu good writes: %s",
				(unsigned long long)good, vt_dto(first));
		} else if (d->status == DAT_DTO_ERR_FLUSHED) {
			flushed++;
		} else {
			other++;
		}
	}
	vt_expect_true("the first failed write is not a success or a flush",
		       first != DAT_DTO_SUCCESS && first != DAT_DTO_ERR_FLUSHED);
	vt_note("ok %llu other outstanding write(s) flushed",
		(unsigned long long)flushed);
	vt_expect_u64("outstanding writes completed other than flushed", other,
		      0);
	/* The connection's end, within what is left of the bound. */
	now = vt_now_us();
	if (vt_wait(s->v.conn_evd,
		    last_ok + bound_us > now ? last_ok + bound_us - now : 1,
		    &ev) != DAT_SUCCESS)
		vt_fail("no connection event within the bound");
	else if (ev.event_number == DAT_CONNECTION_EVENT_BROKEN ||
		 ev.event_number == DAT_CONNECTION_EVENT_TIMED_OUT)
		vt_note("ok connection end: %s, %llu ms after the last good "
			"write", vt_ev(ev.event_number),
			(unsigned long long)((vt_now_us() - last_ok) / 1000));
	else
		vt_fail("connection end: %s", vt_ev(ev.event_number));
	/* Every posted receive completes, flushed. */
	while (recv_flushed < s->posted &&
	       vt_wait(s->v.rcv_evd, vt_secs(10), &ev) == DAT_SUCCESS) {
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
		    ev.event_data.dto_completion_event_data.status !=
			DAT_DTO_ERR_FLUSHED)
			vt_fail("receive after the cut: %s %s",
				vt_ev(ev.event_number),
				vt_dto(ev.event_data.dto_completion_event_data
					   .status));
		recv_flushed++;
	}
	vt_expect_u64("posted receives flushed", recv_flushed, s->posted);
	s->posted = 0;
	s->repost = 0;
	vt_expect_state("EP after the cut", s->ep, DAT_EP_STATE_DISCONNECTED);
	say("broken");
}

static void exchange_area(struct side *s, int server)
{
	struct info in;

	if (server) {
		send_info(s, "area", 0, s->max);
		recv_info(s, "area", &in);
	} else {
		recv_info(s, "area", &in);
		send_info(s, "area", 0, s->max);
	}
	s->peer_addr = in.addr;
	s->peer_ctx = in.rmr_context;
}

/* A checked round on a fresh connection: each side writes into the
 * other's area, then sends the same bytes, which say the write is done;
 * each checks the send and the write it got. */
static void round_after(struct side *s, int server)
{
	unsigned char *p;
	DAT_VLEN len;

	exchange_area(s, server);
	vt_fill(s->src.buf, CUT_CHUNK, server ? 0xA1 : 0xB2);
	rdma(s, 0, CUT_CHUNK, 0x4400);
	send_msg(s, CUT_CHUNK, 0x4401);
	p = recv_msg(s, &len);
	vt_expect_u64("send after the reconnect: length", len, CUT_CHUNK);
	vt_check("send after the reconnect", p, CUT_CHUNK,
		 server ? 0xB2 : 0xA1);
	vt_check("RDMA write after the reconnect", s->area.buf, CUT_CHUNK,
		 server ? 0xB2 : 0xA1);
	vt_note("ok a new connection moved data both ways");
}

static int cut_server(const struct vt_opts *o)
{
	struct side s;

	side_open(&s, o);
	server_accept(&s, 1);
	exchange_area(&s, 1);
	stream_until_cut(&s);
	wait_file("clear", 120);
	vt_ep_free(s.ep);
	s.ep = DAT_HANDLE_NULL;
	server_accept(&s, 0);
	round_after(&s, 1);
	vt_wait_disconnected(&s.v, s.ep);
	side_close(&s);
	return 0;
}

static int cut_client(const struct vt_opts *o)
{
	struct side s;

	side_open(&s, o);
	client_connect(&s, o);
	exchange_area(&s, 0);
	stream_until_cut(&s);
	wait_file("clear", 120);
	vt_ep_free(s.ep);
	s.ep = DAT_HANDLE_NULL;
	client_connect(&s, o);
	round_after(&s, 0);
	vt_disconnect(&s.v, s.ep);
	side_close(&s);
	return 0;
}

/* ---- main ---------------------------------------------------------------------- */

static const struct vt_test tests[] = {
	{ "xfer", xfer_server, xfer_client },
	{ "cut", cut_server, cut_client },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	const struct vt_test *const tables[] = {tests};
	int i;

	/* -f PREFIX is ours; the rest is vt_run's */
	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-f")) {
			prefix = argv[i + 1];
			memmove(&argv[i], &argv[i + 2],
				(size_t)(argc - i - 1) * sizeof(*argv));
			argc -= 2;
			break;
		}
	if (!prefix)
		prefix = "/tmp/dattest-netem";
	return vt_run(argc, argv, "dattest-netem", tables, 1, 240, 0);
}
