/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hotpath.c - hotpath-dat: the steady-state data path through DAT.
 *
 *   hotpath-dat [N]	(N iterations, default 1000)
 *
 * One process opens rxe0-cma (passive side, 10.77.0.1) and rxe1-cma
 * (active side, 10.77.0.2), or the IAs DATTEST_SERVER_IA and
 * DATTEST_CLIENT_IA name (vt_role_ia: the socket CM's, make
 * check-verbs-scm), and connects an EP pair through a PSP.  The measured
 * loop then runs N times: dat_ep_post_send of 64 bytes on the
 * active EP, dat_evd_dequeue on its request EVD until the completion
 * comes, dat_evd_dequeue on the passive EP's receive EVD until the
 * receive comes, dat_ep_post_recv to replace it.  hotpath_verbs.c does the
 * same through libibverbs and librdmacm; hotpath.bats compares the system
 * calls (strace) and allocations (hotpath.h) of the two loops.
 *
 * Prints "allocations N" and PASS; exits non-zero on any wrong result.
 * Bounded by alarm(): the loop itself reads no clock (on an emulated
 * machine clock_gettime may be a real system call).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include <dat/udat.h>

#include "hotpath.h"
#include "vt.h"

#define MSG 64
#define WARMUP 16

static int scale = 1;

static void die(const char *what, DAT_RETURN rc)
{
	const char *maj = "?", *min = "?";

	dat_strerror(rc, &maj, &min);
	printf("FAIL %s: %s %s\n", what, maj, min);
	exit(1);
}

static void must(const char *what, DAT_RETURN rc)
{
	if (rc != DAT_SUCCESS)
		die(what, rc);
}

struct side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, req, rcv, conn, cr;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	unsigned char *buf;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_TRIPLET iov;
};

static void side_open(struct side *s, const char *name)
{
	DAT_REGION_DESCRIPTION r;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN len;
	DAT_VADDR addr;

	memset(s, 0, sizeof(*s));
	s->async = DAT_HANDLE_NULL;
	must("dat_ia_open", dat_ia_open((DAT_NAME_PTR)name, 8, &s->async,
					&s->ia));
	{
		DAT_PROVIDER_ATTR pa;

		/* which locking the loop runs with (hotpath.bats) */
		must("dat_ia_query",
		     dat_ia_query(s->ia, NULL, 0, NULL,
				  DAT_PROVIDER_FIELD_ALL, &pa));
		printf("%s is_thread_safe %d\n", name,
		       pa.is_thread_safe == DAT_TRUE);
	}
	must("dat_pz_create", dat_pz_create(s->ia, &s->pz));
	must("request EVD", dat_evd_create(s->ia, 16, DAT_HANDLE_NULL,
					   DAT_EVD_DTO_FLAG, &s->req));
	must("receive EVD", dat_evd_create(s->ia, 16, DAT_HANDLE_NULL,
					   DAT_EVD_DTO_FLAG, &s->rcv));
	must("connection EVD", dat_evd_create(s->ia, 8, DAT_HANDLE_NULL,
					      DAT_EVD_CONNECTION_FLAG,
					      &s->conn));
	must("CR EVD", dat_evd_create(s->ia, 8, DAT_HANDLE_NULL,
				      DAT_EVD_CR_FLAG, &s->cr));
	if (posix_memalign((void **)&s->buf, 4096, 4096))
		die("posix_memalign", DAT_INSUFFICIENT_RESOURCES);
	memset(s->buf, 0, 4096);
	r.for_va = s->buf;
	must("dat_lmr_create",
	     dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s->pz,
			    DAT_MEM_PRIV_LOCAL_READ_FLAG |
				    DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			    &s->lmr, &s->iov.lmr_context, &rctx, &len,
			    &addr));
	s->iov.pad = 0;
	s->iov.virtual_address = (DAT_VADDR)(uintptr_t)s->buf;
	s->iov.segment_length = MSG;
}

static void ep_make(struct side *s)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_message_size = 4096;
	a.max_rdma_size = 4096;
	a.qos = DAT_QOS_BEST_EFFORT;
	a.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a.max_recv_dtos = 8;
	a.max_request_dtos = 8;
	a.max_recv_iov = 1;
	a.max_request_iov = 1;
	a.srq_soft_hw = DAT_HW_DEFAULT;
	a.max_rdma_read_iov = 1;
	a.max_rdma_write_iov = 1;
	must("dat_ep_create", dat_ep_create(s->ia, s->pz, s->rcv, s->req,
					    s->conn, &a, &s->ep));
}

static void expect_event(const char *what, DAT_EVD_HANDLE evd,
			 DAT_EVENT_NUMBER want, DAT_EVENT *ev)
{
	DAT_COUNT nmore;

	must(what, dat_evd_wait(evd, 20000000u * (unsigned)scale, 1, ev,
				&nmore));
	if (ev->event_number != want) {
		printf("FAIL %s: event 0x%x, want 0x%x\n", what,
		       ev->event_number, want);
		exit(1);
	}
}

static void connect_pair(struct side *srv, struct side *cli)
{
	DAT_CONN_QUAL qual = 0;
	struct sockaddr_in sin;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;

	must("dat_psp_create_any",
	     dat_psp_create_any(srv->ia, &qual, srv->cr,
				DAT_PSP_CONSUMER_FLAG, &psp));
	ep_make(srv);
	ep_make(cli);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	inet_pton(AF_INET, "10.77.0.1", &sin.sin_addr);
	must("dat_ep_connect",
	     dat_ep_connect(cli->ep, (DAT_IA_ADDRESS_PTR)&sin, qual,
			    20000000u * (unsigned)scale, 0, NULL,
			    DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	expect_event("connection request", srv->cr,
		     DAT_CONNECTION_REQUEST_EVENT, &ev);
	must("dat_cr_accept",
	     dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			   srv->ep, 0, NULL));
	expect_event("passive side established", srv->conn,
		     DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	expect_event("active side established", cli->conn,
		     DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	must("dat_psp_free", dat_psp_free(psp));
}

/* Spins on dat_evd_dequeue (never blocks, no clock: alarm() bounds it). */
static void take(DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep, uint64_t cookie,
		 int *bad)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;

	while ((rc = dat_evd_dequeue(evd, &ev)) != DAT_SUCCESS)
		if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			die("dat_evd_dequeue", rc);
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->ep_handle != ep || d->user_cookie.as_64 != cookie ||
	    d->status != DAT_DTO_SUCCESS || d->transfered_length != MSG)
		(*bad)++;
}

static int iterate(struct side *srv, struct side *cli, int first, int n)
{
	DAT_DTO_COOKIE c;
	int i, bad = 0;

	for (i = first; i < first + n; i++) {
		c.as_64 = (uint64_t)i;
		cli->buf[0] = (unsigned char)i;
		if (dat_ep_post_send(cli->ep, 1, &cli->iov, c,
				     DAT_COMPLETION_DEFAULT_FLAG))
			bad++;
		take(cli->req, cli->ep, (uint64_t)i, &bad);
		take(srv->rcv, srv->ep, (uint64_t)i, &bad);
		if (srv->buf[0] != (unsigned char)i)
			bad++;
		c.as_64 = (uint64_t)i + 1;
		if (dat_ep_post_recv(srv->ep, 1, &srv->iov, c,
				     DAT_COMPLETION_DEFAULT_FLAG))
			bad++;
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *s = getenv("TEST_TIMEOUT_SCALE");
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	struct side srv, cli;
	DAT_DTO_COOKIE c;
	int bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s && atoi(s) > 0)
		scale = atoi(s);
	if (n < 1)
		n = 1000;
	alarm(120 * (unsigned)scale);
	side_open(&srv, vt_role_ia("server"));
	side_open(&cli, vt_role_ia("client"));
	connect_pair(&srv, &cli);
	c.as_64 = 0;
	must("first dat_ep_post_recv",
	     dat_ep_post_recv(srv.ep, 1, &srv.iov, c,
			      DAT_COMPLETION_DEFAULT_FLAG));
	/* first use of every path outside the measurement (lazy binding,
	 * first-touch allocations of the libraries) */
	bad = iterate(&srv, &cli, 0, WARMUP);
	hp_begin();
	bad += iterate(&srv, &cli, WARMUP, n);
	hp_end();
	hp_report("hotpath-dat", n);
	if (bad) {
		printf("FAIL %d wrong results\n", bad);
		return 1;
	}
	must("dat_ia_close(client, ABRUPT)",
	     dat_ia_close(cli.ia, DAT_CLOSE_ABRUPT_FLAG));
	must("dat_ia_close(server, ABRUPT)",
	     dat_ia_close(srv.ia, DAT_CLOSE_ABRUPT_FLAG));
	free(cli.buf);
	free(srv.buf);
	printf("PASS\n");
	return 0;
}
