/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dattest-faults: the verbs provider when things go wrong (issue 5):
 * sloppy teardown, a broken link, a dead peer and fork.  Each test runs as
 * a server process (rxe0-cma) and a client process (rxe1-cma); the Bats
 * suite test/verbs/faults.bats breaks things between them (ip link, kill)
 * at the moments the programs announce on stdout.
 *
 *   dattest-faults TEST ROLE [-i IA] [-a ADDR] [-q QUAL] [-n COUNT]
 *
 *   sloppy server   connects, then frees its EVDs and PZ and closes the IA
 *                   GRACEFUL with the EP, PSP and LMRs alive (Open MPI 1.6's
 *                   udapl BTL), checks each error and returns from main
 *   sloppy client   the peer: must see the connection end and close cleanly
 *   link server|client  RDMA write streams both ways until the link dies:
 *                   "streaming" once going, then BROKEN, flushed DTOs and a
 *                   clean close ("broken").  The server then keeps its IA
 *                   and listens again (a second "listening <qual>"): once
 *                   the link is back, an "again" client connects to it
 *   again server|client  a connection that moves data: RDMA write rounds
 *                   both ways, each checked, then a graceful disconnect
 *   dead server|client  the same streams until the peer is killed: the
 *                   survivor sees DISCONNECTED or BROKEN and flushes
 *   fork server|client  a send/RDMA loop; children forked while the IA is
 *                   open exit with and without dat_ia_close
 *
 * Every process prints "pid <pid>" first (the suite kills by pid), every
 * check by name, and PASS at the end; the exit status is 0 only if every
 * check matched.  All waits are bounded and scaled by TEST_TIMEOUT_SCALE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "vt.h"

#define PRIV_LOCAL \
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define PRIV_TARGET (PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
#define ANY_LEN ((DAT_VLEN)-1)
#define IN_USE(sub) (DAT_INVALID_STATE | DAT_CLASS_ERROR | (sub))

enum {
	WIN = 4,		/* RDMA writes kept outstanding */
	CHUNK = 4096,		/* bytes per write: small, rxe under TCG */
	BUF = 16 * CHUNK,	/* each side's target area */
	EXTRA_RECVS = 4,	/* receives nobody sends to: they must flush */
	PAGE = 4096,		/* registered buffers: whole pages */
	ANNOUNCE = 32,		/* successful writes before "streaming" */
};

#define W_COOKIE 0x5700000000ULL	/* | write number */
#define R_COOKIE 0x5200000000ULL	/* | receive number */

/* One side of a connection with the buffers of the stream tests. */
struct side {
	struct vt v;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	struct vt_mem src, dst, rbuf;
	struct vt_msg remote;	/* the peer's "buf" message */
	int ctl_left;		/* control receives still posted */
	int extras;		/* extra receives posted (they must flush) */
};

static void say(const char *line)
{
	printf("%s\n", line);
	fflush(stdout);
}

static void post_extra_recvs(struct side *s)
{
	DAT_LMR_TRIPLET iov;
	int i;

	for (i = 0; i < EXTRA_RECVS; i++, s->extras++) {
		iov = vt_iov(&s->rbuf, i * 256, 256);
		vt_must("dat_ep_post_recv(extra)",
			dat_ep_post_recv(s->ep, 1, &iov,
					 vt_cookie(R_COOKIE | i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
}

/* The connection's objects freed (each call checked); the IA stays. */
static void side_release(struct side *s)
{
	if (s->ep)
		vt_ep_free(s->ep);
	s->ep = DAT_HANDLE_NULL;
	if (s->psp)
		vt_expect("dat_psp_free", dat_psp_free(s->psp), DAT_SUCCESS);
	s->psp = DAT_HANDLE_NULL;
	vt_mem_free(&s->src);
	vt_mem_free(&s->dst);
	vt_mem_free(&s->rbuf);
	memset(&s->remote, 0, sizeof(s->remote));
	s->ctl_left = 0;
	s->extras = 0;
}

/* Frees what side_open made, every call checked; the IA ends closed. */
static void side_close(struct side *s)
{
	side_release(s);
	vt_close(&s->v);
}

/* On an open IA: connected, buffers registered and described to each
 * other, the extra receives posted if wanted (receives are taken in
 * posting order: a ping-pong of control messages wants none behind its
 * own).  A server listens on a new PSP ("listening <qual>"). */
static void side_connect(struct side *s, const struct vt_opts *o, int server,
			 int extras)
{
	struct vt_msg m;
	DAT_EP_ATTR a;

	vt_ep_attr(&s->v, &a);
	if (server)
		s->ep = vt_serve_one(&s->v, &a, 2, &s->psp);
	else
		s->ep = vt_client_one(&s->v, o, &a, 2);
	s->ctl_left = 2;
	vt_mem_alloc(&s->v, &s->src, BUF, PRIV_LOCAL);
	vt_mem_alloc(&s->v, &s->dst, BUF, PRIV_TARGET);
	vt_mem_alloc(&s->v, &s->rbuf, PAGE, PRIV_LOCAL);
	vt_fill(s->src.buf, BUF, server ? 11 : 22);

	vt_msg_init(&m, "buf");
	m.addr = (uint64_t)(uintptr_t)s->dst.buf;
	m.len = BUF;
	m.rmr_context = s->dst.rctx;
	vt_ctl_send(&s->v, s->ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&s->v, s->ep, &s->remote, "buf", 0);
	s->ctl_left--;
	if (extras)
		post_extra_recvs(s);
}

/* The IA opened, then side_connect. */
static void side_open(struct side *s, const struct vt_opts *o, int server,
		      int extras)
{
	memset(s, 0, sizeof(*s));
	vt_open(&s->v, o->ia_name);
	/* Fork-safe registration (RDMAV_FORK_SAFE) leaves whole pages out
	 * of a child: every registered buffer fills its pages, so that no
	 * malloc chunk shares one (vt_open's control area is smaller). */
	vt_mem_free(s->v.ctl);
	vt_mem_alloc(&s->v, s->v.ctl, PAGE, PRIV_LOCAL);
	side_connect(s, o, server, extras);
}

static DAT_RETURN post_write(struct side *s, uint64_t n)
{
	DAT_VLEN off = (n % (BUF / CHUNK)) * CHUNK;
	DAT_LMR_TRIPLET iov = vt_iov(&s->src, off, CHUNK);
	DAT_RMR_TRIPLET riov = vt_riov(&s->remote, off, CHUNK);

	return dat_ep_post_rdma_write(s->ep, 1, &iov, vt_cookie(W_COOKIE | n),
				      &riov, DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * RDMA writes into the peer, WIN outstanding, until one completes in
 * error (or a post is refused because the EP is no longer connected).
 * Says "streaming" after ANNOUNCE good ones.  Every write posted then
 * completes exactly once, in order: successes (acknowledged before the
 * end), then one error of any kind, then FLUSHED for the rest.
 */
static void stream(struct side *s)
{
	uint64_t posted = 0, done = 0, ok = 0;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	int refused = 0, failed = 0;
	DAT_EVENT ev;
	DAT_RETURN rc;
	char what[64];

	while (!failed || done < posted) {
		while (!failed && !refused && posted - done < WIN) {
			rc = post_write(s, posted);
			if (rc == DAT_SUCCESS) {
				posted++;
				continue;
			}
			/* the connection event won the race with the CQ */
			vt_expect_type("post on a dead connection", rc,
				       DAT_INVALID_STATE);
			refused = 1;
		}
		if (done == posted)
			break;
		rc = vt_wait(s->v.req_evd, vt_secs(45), &ev);
		if (rc != DAT_SUCCESS)
			vt_die("write %llu: no completion: %s",
			       (unsigned long long)done, vt_rc(rc));
		d = &ev.event_data.dto_completion_event_data;
		snprintf(what, sizeof(what), "write %llu",
			 (unsigned long long)done);
		if (failed) {
			vt_check_dto(what, &ev, s->ep, W_COOKIE | done,
				     DAT_DTO_ERR_FLUSHED, ANY_LEN);
		} else if (d->status == DAT_DTO_SUCCESS) {
			/* quietly: thousands of these */
			if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
			    d->ep_handle != s->ep ||
			    d->user_cookie.as_64 != (W_COOKIE | done) ||
			    d->transfered_length != CHUNK) {
				vt_check_dto(what, &ev, s->ep, W_COOKIE | done,
					     DAT_DTO_SUCCESS, CHUNK);
				vt_die("stream out of order");
			}
			if (++ok == ANNOUNCE)
				say("streaming");
		} else {
			vt_check_dto(what, &ev, s->ep, W_COOKIE | done,
				     d->status, ANY_LEN);
			vt_note("first error after %llu good writes: %s",
				(unsigned long long)ok, vt_dto(d->status));
			failed = 1;
		}
		done++;
	}
	vt_expect_true("the stream got going", ok >= ANNOUNCE);
	vt_expect_true("a write completed in error", failed);
}

/* The connection's end: want, or DISCONNECTED too if also_disc. */
static void expect_end(struct side *s, DAT_EVENT_NUMBER want, int also_disc)
{
	DAT_EVENT ev;
	DAT_RETURN rc = vt_wait(s->v.conn_evd, vt_secs(45), &ev);

	if (rc != DAT_SUCCESS) {
		vt_fail("connection end: dat_evd_wait %s, want %s", vt_rc(rc),
			vt_ev(want));
		return;
	}
	if (ev.event_number == want ||
	    (also_disc &&
	     ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED))
		vt_note("ok connection end: %s", vt_ev(ev.event_number));
	else
		vt_fail("connection end: %s, want %s%s",
			vt_ev(ev.event_number), vt_ev(want),
			also_disc ? " or DISCONNECTED" : "");
	vt_expect_ptr("connection end's ep_handle",
		      ev.event_data.connect_event_data.ep_handle, s->ep);
	vt_expect_state("EP after the connection end", s->ep,
			DAT_EP_STATE_DISCONNECTED);
}

/* Every receive still posted completes FLUSHED (control ones first). */
static void expect_recvs_flushed(struct side *s)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	int n = s->ctl_left + s->extras, ctl = 0, extra = 0, i;
	DAT_EVENT ev;
	DAT_RETURN rc;

	for (i = 0; i < n; i++) {
		rc = vt_wait(s->v.rcv_evd, vt_secs(15), &ev);
		if (rc != DAT_SUCCESS) {
			vt_fail("receive %d of %d: %s", i + 1, n, vt_rc(rc));
			return;
		}
		d = &ev.event_data.dto_completion_event_data;
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
		    d->ep_handle != s->ep || d->status != DAT_DTO_ERR_FLUSHED) {
			vt_fail("receive %d: event %s status %s ep %p", i + 1,
				vt_ev(ev.event_number), vt_dto(d->status),
				d->ep_handle);
			continue;
		}
		if ((d->user_cookie.as_64 & ~0xfffffULL) == VT_CTL_COOKIE)
			ctl++;
		else if (d->user_cookie.as_64 == (R_COOKIE | extra))
			extra++;
		else
			vt_fail("receive %d: cookie 0x%llx", i + 1,
				(unsigned long long)d->user_cookie.as_64);
	}
	vt_expect_u64("control receives flushed", ctl, s->ctl_left);
	vt_expect_u64("extra receives flushed, in order", extra, s->extras);
	if (ctl == s->ctl_left && extra == s->extras)
		vt_note("ok %d receives flushed", n);
	s->ctl_left = 0;
	s->extras = 0;
}

/* What the async EVD got.  A port that went down (the broken link: vethA
 * loses its carrier too) is not catastrophic: the IA stays usable. */
static void drain_async(struct side *s)
{
	DAT_EVENT ev;

	while (dat_evd_dequeue(s->v.async_evd, &ev) == DAT_SUCCESS) {
		vt_note("async event %s", vt_ev(ev.event_number));
		if (ev.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW)
			vt_fail("async EVD overflow");
		if (ev.event_number == DAT_ASYNC_ERROR_IA_CATASTROPHIC)
			vt_fail("async event IA_CATASTROPHIC: the IA is fine");
	}
}

/* After the stream broke: flushed DTOs, the end event, a clean EP free. */
static void survive(struct side *s, DAT_EVENT_NUMBER want, int also_disc)
{
	stream(s);
	expect_end(s, want, also_disc);
	expect_recvs_flushed(s);
	vt_expect_empty("request EVD after the flush", s->v.req_evd);
	vt_expect_empty("receive EVD after the flush", s->v.rcv_evd);
	vt_expect_empty("connection EVD: one end event", s->v.conn_evd);
	vt_expect("dat_ep_disconnect(GRACEFUL) after the end",
		  dat_ep_disconnect(s->ep, DAT_CLOSE_GRACEFUL_FLAG),
		  DAT_SUCCESS);
	vt_expect_empty("connection EVD after the no-op disconnect",
			s->v.conn_evd);
	vt_ep_free(s->ep);
	s->ep = DAT_HANDLE_NULL;
	drain_async(s);
}

/* ---- sloppy teardown ----------------------------------------------------- */

/*
 * Open MPI 1.6's udapl BTL finalize: the EVDs and the PZ freed and the IA
 * closed GRACEFUL while the connected EP, the PSP and the LMRs still
 * exist, every return code ignored, then exit.  We check the codes the
 * spec names and return from main with everything still open.
 */
static int sloppy_server(const struct vt_opts *o)
{
	struct vt_msg m;
	struct side s;
	const DAT_RETURN evd_busy = IN_USE(DAT_INVALID_STATE_EVD_IN_USE);

	side_open(&s, o, 1, 1);
	vt_ctl_recv(&s.v, s.ep, &m, "hello", 0);
	s.ctl_left--;
	vt_expect("dat_evd_free(request EVD, EP uses it)",
		  dat_evd_free(s.v.req_evd), evd_busy);
	vt_expect("dat_evd_free(receive EVD, EP uses it)",
		  dat_evd_free(s.v.rcv_evd), evd_busy);
	vt_expect("dat_evd_free(connection EVD, EP uses it)",
		  dat_evd_free(s.v.conn_evd), evd_busy);
	vt_expect("dat_evd_free(CR EVD, PSP uses it)",
		  dat_evd_free(s.v.cr_evd), evd_busy);
	vt_expect("dat_evd_free(async EVD, IA uses it)",
		  dat_evd_free(s.v.async_evd), evd_busy);
	vt_expect("dat_pz_free(EP and LMRs use it)", dat_pz_free(s.v.pz),
		  IN_USE(DAT_INVALID_STATE_PZ_IN_USE));
	vt_expect("dat_ia_close(GRACEFUL) with objects alive",
		  dat_ia_close(s.v.ia, DAT_CLOSE_GRACEFUL_FLAG),
		  IN_USE(DAT_INVALID_STATE_IA_IN_USE));
	/* everything is still there and usable */
	vt_expect_state("EP after the failed teardown", s.ep,
			DAT_EP_STATE_CONNECTED);
	say("exiting with the IA open");
	return 0;
}

static int sloppy_client(const struct vt_opts *o)
{
	struct vt_msg m;
	struct side s;

	side_open(&s, o, 0, 1);
	vt_msg_init(&m, "hello");
	vt_ctl_send(&s.v, s.ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	/* the peer just exits: its kernel ends the connection */
	expect_end(&s, DAT_CONNECTION_EVENT_BROKEN, 1);
	expect_recvs_flushed(&s);
	vt_expect_empty("request EVD", s.v.req_evd);
	vt_expect_empty("connection EVD: one end event", s.v.conn_evd);
	drain_async(&s);
	side_close(&s);
	return 0;
}

/* ---- dead peer ----------------------------------------------------------- */

/* Both sides stream; the suite kills one, the other must survive. */
static int dead_side(const struct vt_opts *o, int server)
{
	struct side s;

	side_open(&s, o, server, 1);
	survive(&s, DAT_CONNECTION_EVENT_BROKEN, 1);
	side_close(&s);
	return 0;
}

static int dead_server(const struct vt_opts *o)
{
	return dead_side(o, 1);
}

static int dead_client(const struct vt_opts *o)
{
	return dead_side(o, 0);
}

/* ---- fork ---------------------------------------------------------------- */

enum child_kind {
	CHILD_EXIT,		/* exit() with the IA open */
	CHILD_CLOSE_ABRUPT,	/* dat_ia_close(ABRUPT), then exit() */
	CHILD_CLOSE_GRACEFUL,	/* dat_ia_close(GRACEFUL): IA in use */
};

static const char *const child_names[] = {
	"exits without dat_ia_close",
	"calls dat_ia_close(ABRUPT), then exits",
	"calls dat_ia_close(GRACEFUL), then exits",
};

/* In the child: only DAT calls on the inherited IA, then exit(). */
static void child_run(struct vt *v, enum child_kind kind)
{
	DAT_RETURN rc;

	alarm(20 * vt_scale); /* a hang ends as SIGALRM, not silently */
	switch (kind) {
	case CHILD_EXIT:
		exit(0);
	case CHILD_CLOSE_ABRUPT:
		rc = dat_ia_close(v->ia, DAT_CLOSE_ABRUPT_FLAG);
		exit(vt_expect("child: dat_ia_close(ABRUPT)", rc,
			       DAT_SUCCESS) ? 0 : 1);
	case CHILD_CLOSE_GRACEFUL:
		rc = dat_ia_close(v->ia, DAT_CLOSE_GRACEFUL_FLAG);
		exit(vt_expect("child: dat_ia_close(GRACEFUL), objects alive",
			       rc, IN_USE(DAT_INVALID_STATE_IA_IN_USE))
			     ? 0
			     : 1);
	}
	exit(1);
}

static pid_t child_start(struct vt *v, enum child_kind kind)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		vt_die("fork: %s", strerror(errno));
	if (!pid)
		child_run(v, kind);
	vt_note("forked child %d that %s", (int)pid, child_names[kind]);
	return pid;
}

/* The child must end by itself, promptly and with status 0. */
static void child_reap(pid_t pid, enum child_kind kind)
{
	uint64_t end = vt_now_us() + vt_secs(20);
	int st = 0;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) == 0 && vt_now_us() < end)
		vt_sleep_ms(5);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		vt_fail("child that %s hangs", child_names[kind]);
		return;
	}
	if (r < 0) {
		vt_fail("waitpid: %s", strerror(errno));
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		vt_note("ok child that %s exited with 0", child_names[kind]);
	else if (WIFSIGNALED(st))
		vt_fail("child that %s died of signal %d", child_names[kind],
			WTERMSIG(st));
	else
		vt_fail("child that %s exited with %d", child_names[kind],
			WEXITSTATUS(st));
}

/* The kind of child forked in round r, or -1. */
static int fork_round(int r, int server)
{
	if (server)
		return r == 7 ? CHILD_EXIT : -1;
	switch (r) {
	case 5:
		return CHILD_EXIT;
	case 10:
		return CHILD_CLOSE_ABRUPT;
	case 15:
		return CHILD_CLOSE_GRACEFUL;
	default:
		return -1;
	}
}

/*
 * Client: each round writes CHUNK bytes (seed r) into the server, with a
 * child forked while the write is outstanding in some rounds (if forks),
 * then tells the server; the server checks the bytes, writes CHUNK bytes
 * (seed 1000 + r) back and answers; the client checks them.
 */
static void fork_round_client(struct side *s, int r, int forks)
{
	DAT_VLEN off = (r % (BUF / CHUNK)) * CHUNK;
	struct vt_msg m;
	char what[64];
	int kind = forks ? fork_round(r, 0) : -1;
	pid_t pid = 0;

	vt_fill(s->src.buf + off, CHUNK, r);
	vt_must("dat_ep_post_rdma_write", post_write(s, r));
	if (kind >= 0)
		pid = child_start(&s->v, kind);
	snprintf(what, sizeof(what), "round %d: RDMA write", r);
	vt_expect_dto(what, s->v.req_evd, s->ep, W_COOKIE | r,
		      DAT_DTO_SUCCESS, CHUNK);
	if (kind >= 0)
		child_reap(pid, kind);
	vt_msg_init(&m, "round");
	m.arg = r;
	vt_ctl_send(&s->v, s->ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(&s->v, s->ep, &m, "back", 0);
	vt_ctl_post(&s->v, s->ep);
	snprintf(what, sizeof(what), "round %d: the server's write", r);
	vt_check(what, s->dst.buf + off, CHUNK, 1000 + r);
}

static void fork_round_server(struct side *s, int r, int forks)
{
	DAT_VLEN off = (r % (BUF / CHUNK)) * CHUNK;
	struct vt_msg m;
	char what[64];
	int kind = forks ? fork_round(r, 1) : -1;
	pid_t pid = 0;

	vt_ctl_recv(&s->v, s->ep, &m, "round", 0);
	vt_ctl_post(&s->v, s->ep);
	vt_expect_u64("round number", m.arg, r);
	snprintf(what, sizeof(what), "round %d: the client's write", r);
	vt_check(what, s->dst.buf + off, CHUNK, r);
	vt_fill(s->src.buf + off, CHUNK, 1000 + r);
	vt_must("dat_ep_post_rdma_write", post_write(s, r));
	if (kind >= 0)
		pid = child_start(&s->v, kind);
	snprintf(what, sizeof(what), "round %d: RDMA write back", r);
	vt_expect_dto(what, s->v.req_evd, s->ep, W_COOKIE | r,
		      DAT_DTO_SUCCESS, CHUNK);
	if (kind >= 0)
		child_reap(pid, kind);
	vt_msg_init(&m, "back");
	vt_ctl_send(&s->v, s->ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
}

static int fork_side(const struct vt_opts *o, int server)
{
	int rounds = o->count > 0 ? o->count : 20, r;
	struct side s;

	side_open(&s, o, server, 0);
	for (r = 0; r < rounds; r++) {
		if (server)
			fork_round_server(&s, r, 1);
		else
			fork_round_client(&s, r, 1);
	}
	if (server) {
		vt_wait_disconnected(&s.v, s.ep);
	} else {
		vt_disconnect(&s.v, s.ep);
	}
	expect_recvs_flushed(&s);
	vt_expect_empty("async EVD", s.v.async_evd);
	side_close(&s);
	return 0;
}

static int fork_server(const struct vt_opts *o)
{
	return fork_side(o, 1);
}

static int fork_client(const struct vt_opts *o)
{
	return fork_side(o, 0);
}

/* ---- a connection that moves data (after the link came back) ---------- */

enum { AGAIN_ROUNDS = 8 };

/* Checked RDMA write rounds both ways, then the client disconnects; every
 * receive still posted flushes, the async EVD has nothing catastrophic. */
static void exchange(struct side *s, int server)
{
	int r;

	for (r = 0; r < AGAIN_ROUNDS; r++) {
		if (server)
			fork_round_server(s, r, 0);
		else
			fork_round_client(s, r, 0);
	}
	vt_note("ok %d checked write rounds each way", AGAIN_ROUNDS);
	if (server)
		vt_wait_disconnected(&s->v, s->ep);
	else
		vt_disconnect(&s->v, s->ep);
	expect_recvs_flushed(s);
	drain_async(s);
}

static int again_server(const struct vt_opts *o)
{
	struct side s;

	side_open(&s, o, 1, 0);
	exchange(&s, 1);
	side_close(&s);
	return 0;
}

static int again_client(const struct vt_opts *o)
{
	struct side s;

	side_open(&s, o, 0, 0);
	exchange(&s, 0);
	side_close(&s);
	return 0;
}

/* ---- broken link --------------------------------------------------------- */

/*
 * The survivor (rxe0, whose peer vanished behind vethA).  After the end of
 * the connection the same IA listens again: the suite brings the link
 * back and starts an "again" client, which must connect and move data.
 */
static int link_server(const struct vt_opts *o)
{
	struct side s;

	side_open(&s, o, 1, 1);
	survive(&s, DAT_CONNECTION_EVENT_BROKEN, 0);
	say("broken");
	side_release(&s);
	side_connect(&s, o, 1, 0);
	vt_note("ok a new connection on the same IA after the link came back");
	exchange(&s, 1);
	side_close(&s);
	return 0;
}

static int link_client(const struct vt_opts *o)
{
	struct side s;

	side_open(&s, o, 0, 1);
	survive(&s, DAT_CONNECTION_EVENT_BROKEN, 0);
	side_close(&s);
	say("broken");
	return 0;
}

/* ---- main ---------------------------------------------------------------- */

static const struct vt_test tests[] = {
	{ "sloppy", sloppy_server, sloppy_client },
	{ "link", link_server, link_client },
	{ "again", again_server, again_client },
	{ "dead", dead_server, dead_client },
	{ "fork", fork_server, fork_client },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	const struct vt_test *const tables[] = {tests};

	return vt_run(argc, argv, "dattest-faults", tables, 1, 150, 1);
}
