/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hotpath_verbs.c - hotpath-verbs: hotpath-dat's loop through raw
 * libibverbs and librdmacm, the baseline the DAT path is held to.
 *
 *   hotpath-verbs [N]	(N iterations, default 1000; rxe0 <-> rxe1)
 *   hotpath-verbs callgrind SERVER_ADDR CLIENT_ADDR N
 *
 * One process: a listening rdma_cm id on the server address (10.77.0.1,
 * rxe0) and an active one from the client address (10.77.0.2, rxe1), each
 * with its PD, CQs and RC QP.  The loop: ibv_post_send of 64 bytes
 * (signaled, inline when the QP allows, as the provider does),
 * ibv_poll_cq until its completion, ibv_poll_cq on the passive side's
 * receive CQ, ibv_post_recv to replace the receive.
 *
 * The callgrind mode is the raw-verbs twin of `datbench loop` for make
 * bench (test/bench): the N rounds are collected and dumped as "loop"
 * under callgrind --collect-atstart=no, then as many polls of an empty CQ
 * as the rounds made, dumped as "empty" (see test/bench/cgsum.awk).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <valgrind/callgrind.h>

#include "hotpath.h"

#define MSG 64
#define WARMUP 16

static int scale = 1;

static void die(const char *what)
{
	printf("FAIL %s: %m\n", what);
	exit(1);
}

struct side {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	unsigned char *buf;
	struct ibv_sge sge;
	unsigned inline_flag;
};

static struct rdma_cm_event *expect(struct rdma_event_channel *ch,
				    enum rdma_cm_event_type want)
{
	struct rdma_cm_event *e;

	if (rdma_get_cm_event(ch, &e))
		die("rdma_get_cm_event");
	if (e->event != want) {
		printf("FAIL rdma_cm event %s, want %s\n",
		       rdma_event_str(e->event), rdma_event_str(want));
		exit(1);
	}
	return e;
}

static void sockaddr_of(struct sockaddr_in *sin, const char *ip, int port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, ip, &sin->sin_addr);
}

/* PD, CQs, QP and a registered buffer on the id's device. */
static void side_make(struct side *s, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa;

	s->id = id;
	s->pd = ibv_alloc_pd(id->verbs);
	s->scq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	s->rcq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	if (!s->pd || !s->scq || !s->rcq)
		die("ibv_alloc_pd/ibv_create_cq");
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = MSG;
	if (rdma_create_qp(id, s->pd, &qa))
		die("rdma_create_qp");
	s->inline_flag = qa.cap.max_inline_data >= MSG ? IBV_SEND_INLINE : 0;
	if (posix_memalign((void **)&s->buf, 4096, 4096))
		die("posix_memalign");
	memset(s->buf, 0, 4096);
	s->mr = ibv_reg_mr(s->pd, s->buf, 4096,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr)
		die("ibv_reg_mr");
	s->sge.addr = (uintptr_t)s->buf;
	s->sge.length = MSG;
	s->sge.lkey = s->mr->lkey;
}

static void connect_pair(struct rdma_event_channel *ch, const char *saddr,
			 const char *caddr, struct side *srv,
			 struct side *cli, struct rdma_cm_id **listen_id)
{
	struct rdma_conn_param cp;
	struct sockaddr_in src, dst;
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;
	uint8_t ack_timeout = 20;

	if (rdma_create_id(ch, listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	sockaddr_of(&dst, saddr, 0);
	if (rdma_bind_addr(*listen_id, (struct sockaddr *)&dst) ||
	    rdma_listen(*listen_id, 4))
		die("rdma_bind_addr/rdma_listen");
	dst.sin_port = rdma_get_src_port(*listen_id);
	sockaddr_of(&src, caddr, 0);
	if (rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, 5000 * scale))
		die("rdma_resolve_addr");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 5000 * scale))
		die("rdma_resolve_route");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	side_make(cli, id);
	rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
			&ack_timeout, sizeof(ack_timeout));
	memset(&cp, 0, sizeof(cp));
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	if (rdma_connect(id, &cp))
		die("rdma_connect");
	e = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	side_make(srv, e->id);
	rdma_ack_cm_event(e);
	if (rdma_accept(srv->id, &cp))
		die("rdma_accept");
	/* both ids report ESTABLISHED on the one channel, in either order */
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
}

static void post_recv(struct side *s, uint64_t id)
{
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &s->sge,
				 .num_sge = 1}, *bad;

	if (ibv_post_recv(s->id->qp, &wr, &bad))
		die("ibv_post_recv");
}

/* Spins on ibv_poll_cq (alarm() bounds it); counts the empty polls. */
static void take(struct ibv_cq *cq, uint64_t id, uint32_t len, int *bad,
		 unsigned long *empty)
{
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		(*empty)++;
	if (n < 0 || wc.status != IBV_WC_SUCCESS || wc.wr_id != id ||
	    (len && wc.byte_len != len))
		(*bad)++;
}

static int iterate(struct side *srv, struct side *cli, int first, int n,
		   unsigned long *empty)
{
	struct ibv_send_wr wr, *bad_wr;
	int i, bad = 0;

	for (i = first; i < first + n; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &cli->sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED | cli->inline_flag;
		cli->buf[0] = (unsigned char)i;
		if (ibv_post_send(cli->id->qp, &wr, &bad_wr))
			bad++;
		take(cli->scq, (uint64_t)i, 0, &bad, empty);
		take(srv->rcq, (uint64_t)i, MSG, &bad, empty);
		if (srv->buf[0] != (unsigned char)i)
			bad++;
		post_recv(srv, (uint64_t)i + 1);
	}
	return bad;
}

/* make bench's instruction count: the loop, then as many empty polls */
static int callgrind_loop(struct side *srv, struct side *cli, int n)
{
	unsigned long empty = 0, i;
	struct ibv_wc wc;
	int bad;

	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	bad = iterate(srv, cli, WARMUP, n, &empty);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("loop");
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < empty; i++)
		if (ibv_poll_cq(cli->scq, 1, &wc) != 0)
			die("empty poll");
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("empty");
	printf("LOOP verbs rounds %d posts %d completions %d empty %lu\n", n,
	       2 * n, 2 * n, empty);
	return bad;
}

int main(int argc, char **argv)
{
	const char *s = getenv("TEST_TIMEOUT_SCALE");
	const char *saddr = "10.77.0.1", *caddr = "10.77.0.2";
	int cg = argc > 1 && !strcmp(argv[1], "callgrind");
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct side srv, cli;
	unsigned long empty = 0;
	int n = 1000, bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (cg) {
		if (argc != 5 || (n = atoi(argv[4])) < 1) {
			fprintf(stderr, "usage: hotpath-verbs [N]\n"
					"       hotpath-verbs callgrind "
					"SERVER_ADDR CLIENT_ADDR N\n");
			return 2;
		}
		saddr = argv[2];
		caddr = argv[3];
	} else if (argc > 1 && atoi(argv[1]) > 0) {
		n = atoi(argv[1]);
	}
	if (s && atoi(s) > 0)
		scale = atoi(s);
	alarm((cg ? 600 : 120) * (unsigned)scale);
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	connect_pair(ch, saddr, caddr, &srv, &cli, &listen_id);
	post_recv(&srv, 0);
	bad = iterate(&srv, &cli, 0, WARMUP, &empty);
	if (cg) {
		bad += callgrind_loop(&srv, &cli, n);
	} else {
		hp_begin();
		bad += iterate(&srv, &cli, WARMUP, n, &empty);
		hp_end();
		hp_report("hotpath-verbs", n);
	}
	if (bad) {
		printf("FAIL %d wrong results\n", bad);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
