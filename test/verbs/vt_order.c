/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_order.c - what DAT consumers rely on beyond single transfers, for
 * any transport (test/ofi runs them over libfabric, where the provider
 * must make them hold in software):
 *
 *   order       completions in posting order on one EP: RDMA reads of
 *               1 MiB, small and large RDMA writes and sends, posted
 *               without waiting, complete in the order they were posted
 *   write-send  "an RDMA write, then a send, means the data is there when
 *               the send arrives": rounds of a 1 MiB write followed at once
 *               by a send; the target checks the whole written area when
 *               the send's receive completes
 *   unpolled    an RDMA write to a target that makes no DAT call at all
 *               completes (the transport progresses without the target's
 *               consumer); the target then finds the data in place
 *   spun-unpolled
 *               the same after the target spun on dat_evd_dequeue for
 *               200 ping-pongs and then stopped calling DAT: a transport
 *               that leaves a spinning consumer's endpoints to it must
 *               take them back once the consumer has gone quiet
 *   idle-wait   a dat_evd_wait blocked for a few seconds on a receive
 *               costs the waiting process under 5 % of a core (CPU time
 *               of all its threads, getrusage, against wall time)
 *   busy-wait   the same wait while RDMA writes stream into the waiter's
 *               memory on the same connection costs the waiting thread
 *               under 5 % of a core: it may watch the transport's
 *               progress fd (udapl/transport.h progress_fd), but traffic
 *               that brings it nothing does not keep waking it
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "vt.h"

#define PRIV_LOCAL (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define MIB (1u << 20)
#define ORDER_TGT (4u * MIB)

static void send_target_msg(struct vt *v, DAT_EP_HANDLE ep,
			    const struct vt_mem *m, const char *tag)
{
	struct vt_msg msg;

	vt_msg_init(&msg, tag);
	msg.addr = (uintptr_t)m->buf;
	msg.len = m->len;
	msg.rmr_context = m->rctx;
	vt_ctl_send(v, ep, &msg, DAT_COMPLETION_DEFAULT_FLAG);
}

/* waits for the next request completion and checks it is cookie */
static void expect_next(struct vt *v, DAT_EP_HANDLE ep, uint64_t cookie,
			DAT_VLEN len)
{
	char what[64];

	snprintf(what, sizeof(what), "completion %llu in posting order",
		 (unsigned long long)cookie);
	vt_expect_dto(what, v->req_evd, ep, cookie, DAT_DTO_SUCCESS, len);
}

/* ---- order ---- */

static int order_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, ORDER_TGT, DAT_MEM_PRIV_ALL_FLAG);
	vt_fill(tgt.buf, ORDER_TGT, 61);
	ep = vt_serve_one(&v, NULL, 2, &psp);
	send_target_msg(&v, ep, &tgt, "target");
	/* the client's two sends of the sequence, then its "done" */
	vt_ctl_recv(&v, ep, &m, "seq-a", 0);
	vt_ctl_post(&v, ep);
	vt_ctl_recv(&v, ep, &m, "seq-b", 0);
	vt_ctl_post(&v, ep);
	vt_ctl_recv(&v, ep, &m, "done", 0);
	vt_check_at("the written 64 KiB", tgt.buf + 3 * MIB, 65536, 62, 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

static int order_client(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	struct vt_mem loc, msg;
	DAT_EP_HANDLE ep;
	struct vt_msg t, m;
	struct vt v;
	uint64_t k;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &loc, 3 * MIB, PRIV_LOCAL);
	vt_mem_alloc(&v, &msg, 2 * sizeof(struct vt_msg), PRIV_LOCAL);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ep, &t, "target", 0);
	vt_fill(loc.buf + 2 * MIB, 65536, 62);
	vt_msg_init((struct vt_msg *)msg.buf, "seq-a");
	vt_msg_init((struct vt_msg *)msg.buf + 1, "seq-b");

	/* 1: read 1 MiB; 2: write 1 B; 3: send; 4: write 64 KiB;
	 * 5: read 1 MiB; 6: send -- all posted before any is reaped */
	iov = vt_iov(&loc, 0, MIB);
	r = vt_riov(&t, 0, MIB);
	vt_must("read 1", dat_ep_post_rdma_read(ep, 1, &iov, vt_cookie(1), &r,
						DAT_COMPLETION_DEFAULT_FLAG));
	iov = vt_iov(&loc, 2 * MIB, 1);
	r = vt_riov(&t, 2 * MIB, 1);
	vt_must("write 2", dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(2),
						  &r,
						  DAT_COMPLETION_DEFAULT_FLAG));
	iov = vt_iov(&msg, 0, sizeof(struct vt_msg));
	vt_must("send 3", dat_ep_post_send(ep, 1, &iov, vt_cookie(3),
					   DAT_COMPLETION_DEFAULT_FLAG));
	iov = vt_iov(&loc, 2 * MIB, 65536);
	r = vt_riov(&t, 3 * MIB, 65536);
	vt_must("write 4", dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(4),
						  &r,
						  DAT_COMPLETION_DEFAULT_FLAG));
	iov = vt_iov(&loc, MIB, MIB);
	r = vt_riov(&t, MIB, MIB);
	vt_must("read 5", dat_ep_post_rdma_read(ep, 1, &iov, vt_cookie(5), &r,
						DAT_COMPLETION_DEFAULT_FLAG));
	iov = vt_iov(&msg, sizeof(struct vt_msg), sizeof(struct vt_msg));
	vt_must("send 6", dat_ep_post_send(ep, 1, &iov, vt_cookie(6),
					   DAT_COMPLETION_DEFAULT_FLAG));
	for (k = 1; k <= 6; k++)
		expect_next(&v, ep, k,
			    k == 1 || k == 5 ? MIB
			    : k == 2	     ? 1
			    : k == 4	     ? 65536
					     : sizeof(struct vt_msg));
	vt_check_at("read 1 MiB at offset 0", loc.buf, MIB, 61, 0);
	vt_check_at("read 1 MiB at offset 1 MiB", loc.buf + MIB, MIB, 61, MIB);
	vt_msg_init(&m, "done");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&msg);
	vt_mem_free(&loc);
	vt_close(&v);
	return 0;
}

/* ---- write-send ---- */

#define WS_ROUNDS 16

static int ws_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;
	int k, bad = 0;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, MIB, DAT_MEM_PRIV_ALL_FLAG);
	ep = vt_serve_one(&v, NULL, 2, &psp);
	send_target_msg(&v, ep, &tgt, "target");
	for (k = 0; k < WS_ROUNDS; k++) {
		vt_ctl_recv(&v, ep, &m, "written", 0);
		vt_ctl_post(&v, ep);
		/* the send's receive completed: the write before it must be
		 * complete at this moment, not merely soon */
		if (!vt_check("the 1 MiB written before the send", tgt.buf,
			      MIB, m.seed))
			bad++;
		vt_msg_init(&m, "checked");
		vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	}
	vt_expect_u64("rounds whose data was not all there", bad, 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

static int ws_client(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	struct vt_mem loc, msg;
	DAT_EP_HANDLE ep;
	struct vt_msg t, m;
	struct vt v;
	int k;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &loc, MIB, PRIV_LOCAL);
	vt_mem_alloc(&v, &msg, sizeof(struct vt_msg), PRIV_LOCAL);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ep, &t, "target", 0);
	vt_ctl_post(&v, ep);
	for (k = 0; k < WS_ROUNDS; k++) {
		struct vt_msg *w = (struct vt_msg *)msg.buf;

		vt_fill(loc.buf, MIB, 100 + k);
		vt_msg_init(w, "written");
		w->seed = 100 + k;
		iov = vt_iov(&loc, 0, MIB);
		r = vt_riov(&t, 0, MIB);
		vt_must("dat_ep_post_rdma_write(1 MiB)",
			dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(10 + k),
					       &r, DAT_COMPLETION_DEFAULT_FLAG));
		iov = vt_iov(&msg, 0, sizeof(*w));
		vt_must("dat_ep_post_send right after it",
			dat_ep_post_send(ep, 1, &iov, vt_cookie(1000 + k),
					 DAT_COMPLETION_DEFAULT_FLAG));
		expect_next(&v, ep, 10 + k, MIB);
		expect_next(&v, ep, 1000 + k, sizeof(*w));
		vt_ctl_recv(&v, ep, &m, "checked", 0);
		vt_ctl_post(&v, ep);
	}
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&msg);
	vt_mem_free(&loc);
	vt_close(&v);
	return 0;
}

/* ---- unpolled ---- */

/* The file the client creates once its write completed: the server
 * waits for it without any DAT call. */
static const char *sync_file(void)
{
	const char *f = getenv("VT_SYNC_FILE");

	if (!f || !*f)
		vt_die("unpolled needs VT_SYNC_FILE (a path both roles see)");
	return f;
}

#define SPUN_ROUNDS 200

/* dat_evd_dequeue in a loop, nothing between two calls, until an event
 * (30 s at most): a consumer that spins */
static void spin_event(DAT_EVD_HANDLE evd, DAT_EVENT *ev, const char *what)
{
	uint64_t end = vt_now_us() + vt_secs(30);
	DAT_RETURN rc;

	while (DAT_GET_TYPE(rc = dat_evd_dequeue(evd, ev)) == DAT_QUEUE_EMPTY)
		if (vt_now_us() >= end)
			vt_die("%s: nothing in 30 s of dat_evd_dequeue", what);
	if (rc != DAT_SUCCESS || ev->event_number != DAT_DTO_COMPLETION_EVENT ||
	    ev->event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS)
		vt_die("%s: %s, event %s", what, vt_rc(rc),
		       vt_ev(ev->event_number));
}

/* spun-unpolled's first part, the target's side: rounds of the client's
 * control message and an answer, every completion taken by spinning */
static void spin_rounds(struct vt *v, DAT_EP_HANDLE ep, int rounds)
{
	DAT_LMR_TRIPLET iov;
	struct vt_msg m;
	DAT_EVENT ev;
	int i;

	vt_msg_init(&m, "go");
	memcpy(v->ctl->buf, &m, sizeof(m));
	iov = vt_iov(v->ctl, 0, sizeof(m));
	for (i = 0; i < rounds; i++) {
		spin_event(v->rcv_evd, &ev, "a round's receive");
		vt_ctl_post(v, ep);
		vt_must("dat_ep_post_send(go)",
			dat_ep_post_send(ep, 1, &iov, vt_cookie(1000 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
		spin_event(v->req_evd, &ev, "a round's send");
	}
	vt_note("ok %d rounds, every completion taken by dat_evd_dequeue in "
		"a loop",
		rounds);
}

static int unpolled_serve(const struct vt_opts *o, int rounds)
{
	const char *f = sync_file();
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct stat st;
	uint64_t end;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, 256 * 1024, DAT_MEM_PRIV_ALL_FLAG);
	ep = vt_serve_one(&v, NULL, 1, &psp);
	send_target_msg(&v, ep, &tgt, "target");
	spin_rounds(&v, ep, rounds);
	/* from here no DAT call until the client says its write completed */
	end = vt_now_us() + vt_secs(60);
	while (stat(f, &st) && vt_now_us() < end)
		vt_sleep_ms(20);
	vt_expect_true("the client's write completed while this side made no "
		       "DAT call",
		       !stat(f, &st));
	/* The initiator's completion says the data left it (rxm completes
	 * a write when it is transmitted); it lands when this side's engine
	 * progresses the endpoint, still without any DAT call: look for it,
	 * bounded. */
	{
		char *want = malloc(256 * 1024);

		if (!want)
			vt_die("out of memory");
		vt_fill(want, 256 * 1024, 71);
		end = vt_now_us() + vt_secs(10);
		while (memcmp(tgt.buf, want, 256 * 1024) &&
		       vt_now_us() < end)
			vt_sleep_ms(1);
		free(want);
	}
	vt_check("the data, found before any DAT call", tgt.buf, 256 * 1024,
		 71);
	vt_ctl_recv(&v, ep, &m, "written", 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

static int unpolled_run(const struct vt_opts *o, int rounds)
{
	const char *f = sync_file();
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	struct vt_mem loc;
	DAT_EP_HANDLE ep;
	struct vt_msg t, m;
	struct vt v;
	FILE *fp;
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &loc, 256 * 1024, PRIV_LOCAL);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ep, &t, "target", 0);
	for (i = 0; i < rounds; i++) {
		vt_ctl_post(&v, ep); /* for the answer */
		vt_msg_init(&m, "round");
		vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
		vt_ctl_recv(&v, ep, &m, "go", 0);
	}
	vt_fill(loc.buf, 256 * 1024, 71);
	iov = vt_iov(&loc, 0, 256 * 1024);
	r = vt_riov(&t, 0, 256 * 1024);
	vt_must("dat_ep_post_rdma_write(256 KiB)",
		dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(7), &r,
				       DAT_COMPLETION_DEFAULT_FLAG));
	if (vt_expect_dto("the write to a target that does not poll",
			  v.req_evd, ep, 7, DAT_DTO_SUCCESS, 256 * 1024)) {
		fp = fopen(f, "w");
		if (!fp || fclose(fp))
			vt_die("cannot create %s", f);
	}
	vt_msg_init(&m, "written");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&loc);
	vt_close(&v);
	return 0;
}

static int unpolled_server(const struct vt_opts *o)
{
	return unpolled_serve(o, 0);
}

static int unpolled_client(const struct vt_opts *o)
{
	return unpolled_run(o, 0);
}

static int spun_server(const struct vt_opts *o)
{
	return unpolled_serve(o, SPUN_ROUNDS);
}

static int spun_client(const struct vt_opts *o)
{
	return unpolled_run(o, SPUN_ROUNDS);
}

/* ---- idle-wait ---- */

#define IDLE_SECS 3

static uint64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int idle_server(const struct vt_opts *o)
{
	/* What this checks is that a blocked wait does not spin (a spin
	 * is a whole core): natively a blocked wait over libfabric uses
	 * 0.2-0.4 % and the bound is 5 %.  Under TCG emulation
	 * (VM_ACCEL=tcg, test/vm/run.sh) an engine round costs tens of
	 * times more CPU and the figure was 5.5-6.6 % in CI runs
	 * (2026-11-26, 2026-11-27) over verbs;ofi_rxm: the bound there is
	 * 20 %, still five times below a spin. */
	const char *accel = getenv("VM_ACCEL");
	const unsigned limit = accel && !strcmp(accel, "tcg") ? 20 : 5;
	char what[96];
	uint64_t c0, t0, cpu, wall;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_serve_one(&v, NULL, 1, &psp);
	vt_msg_init(&m, "go");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	/* the client sleeps before it answers: this wait blocks */
	c0 = cpu_us();
	t0 = vt_now_us();
	vt_ctl_recv(&v, ep, &m, "late", 0);
	cpu = cpu_us() - c0;
	wall = vt_now_us() - t0;
	vt_note("blocked %.3f s, CPU %.3f s (%.2f percent of a core)", wall / 1e6,
		cpu / 1e6, 100.0 * (double)cpu / (double)wall);
	vt_expect_true("the wait blocked for most of the client's sleep",
		       wall >= (IDLE_SECS - 1) * 1000000ull);
	snprintf(what, sizeof(what),
		 "a blocked dat_evd_wait uses under %u percent of a core",
		 limit);
	if (vt_expect_true(what, cpu * 100 < wall * limit))
		vt_note("ok %s", what);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static int idle_client(const struct vt_opts *o)
{
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ep, &m, "go", 0);
	vt_sleep_ms(IDLE_SECS * 1000);
	vt_msg_init(&m, "late");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_close(&v);
	return 0;
}

/* ---- busy-wait ---- */

#define BUSY_SECS 2
#define BUSY_LEN 65536u
#define BUSY_WRITE 4096u

static uint64_t thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int busy_server(const struct vt_opts *o)
{
	/* The bound as idle-wait's, for this thread alone (the engine's
	 * thread takes the writes): a waiter woken by every arrival that
	 * brings it nothing would spend tens of percent here. */
	const char *accel = getenv("VM_ACCEL");
	const unsigned limit = accel && !strcmp(accel, "tcg") ? 20 : 5;
	char what[112];
	uint64_t c0, t0, cpu, wall;
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, BUSY_LEN, DAT_MEM_PRIV_ALL_FLAG);
	vt_fill(tgt.buf, BUSY_LEN, 11);
	ep = vt_serve_one(&v, NULL, 1, &psp);
	send_target_msg(&v, ep, &tgt, "target");
	/* the client writes for BUSY_SECS before it sends: this wait
	 * blocks while the writes arrive */
	c0 = thread_cpu_us();
	t0 = vt_now_us();
	vt_ctl_recv(&v, ep, &m, "late", 0);
	cpu = thread_cpu_us() - c0;
	wall = vt_now_us() - t0;
	vt_note("blocked %.3f s beside %llu RDMA writes, this thread's CPU "
		"%.3f s (%.2f percent of a core)", wall / 1e6,
		(unsigned long long)m.arg, cpu / 1e6,
		100.0 * (double)cpu / (double)wall);
	vt_expect_true("the client's writes reached the target",
		       m.arg > 0);
	vt_expect_true("the wait blocked for most of the client's writing",
		       wall >= (BUSY_SECS - 1) * 1000000ull);
	/* the last write's data, and it all, is in place */
	vt_check_at("the written 64 KiB", tgt.buf, BUSY_LEN, 12, 0);
	snprintf(what, sizeof(what),
		 "a dat_evd_wait blocked beside RDMA writes uses under %u "
		 "percent of a core",
		 limit);
	if (vt_expect_true(what, cpu * 100 < wall * limit))
		vt_note("ok %s", what);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

static int busy_client(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET r;
	struct vt_mem loc;
	DAT_EP_HANDLE ep;
	struct vt_msg t, m;
	uint64_t k, t0;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &loc, BUSY_LEN, PRIV_LOCAL);
	vt_fill(loc.buf, BUSY_LEN, 12);
	ep = vt_client_one(&v, o, NULL, 1);
	vt_ctl_recv(&v, ep, &t, "target", 0);
	t0 = vt_now_us();
	for (k = 1; vt_now_us() - t0 < BUSY_SECS * 1000000ull; k++) {
		uint32_t off = (uint32_t)((k - 1) % (BUSY_LEN / BUSY_WRITE)) *
			       BUSY_WRITE;

		iov = vt_iov(&loc, off, BUSY_WRITE);
		r = vt_riov(&t, off, BUSY_WRITE);
		vt_must("dat_ep_post_rdma_write",
			dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(k), &r,
					       DAT_COMPLETION_DEFAULT_FLAG));
		expect_next(&v, ep, k, BUSY_WRITE);
		vt_progress();
	}
	vt_msg_init(&m, "late");
	m.arg = (uint32_t)(k - 1); /* how many writes */
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&loc);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_order_tests[] = {
	{ "order", order_server, order_client },
	{ "write-send", ws_server, ws_client },
	{ "unpolled", unpolled_server, unpolled_client },
	{ "spun-unpolled", spun_server, spun_client },
	{ "idle-wait", idle_server, idle_client },
	{ "busy-wait", busy_server, busy_client },
	{ NULL, NULL, NULL },
};
