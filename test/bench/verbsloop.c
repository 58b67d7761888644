/*
 * verbsloop.c - the raw-verbs twin of `datbench loop`, for callgrind.
 *
 *   verbsloop SERVER_ADDR CLIENT_ADDR N
 *
 * One process: a listening rdma_cm id on SERVER_ADDR and an active one
 * from CLIENT_ADDR, each with its PD, CQs and RC QP.  N rounds of: 64-byte
 * ibv_post_send (signaled, inline as the DAT provider does), ibv_poll_cq
 * until its completion, ibv_poll_cq until the receive, ibv_post_recv to
 * replace it.  The rounds are collected and dumped as "loop" under
 * callgrind --collect-atstart=no, then as many polls of an empty CQ as the
 * rounds made, dumped as "empty" (see cgsum.awk).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <valgrind/callgrind.h>

#define MSG 64

struct side {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	unsigned char *buf;
	struct ibv_sge sge;
	unsigned inline_flag;
};

static void die(const char *what)
{
	fprintf(stderr, "verbsloop: %s: %m\n", what);
	exit(1);
}

static struct rdma_cm_event *expect(struct rdma_event_channel *ch,
				    enum rdma_cm_event_type want)
{
	struct rdma_cm_event *e;

	if (rdma_get_cm_event(ch, &e))
		die("rdma_get_cm_event");
	if (e->event != want) {
		fprintf(stderr, "verbsloop: event %s, want %s\n",
			rdma_event_str(e->event), rdma_event_str(want));
		exit(1);
	}
	return e;
}

static void addr_of(struct sockaddr_in *sin, const char *ip)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, ip, &sin->sin_addr) != 1) {
		fprintf(stderr, "verbsloop: bad address %s\n", ip);
		exit(2);
	}
}

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
	s->mr = ibv_reg_mr(s->pd, s->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr)
		die("ibv_reg_mr");
	s->sge.addr = (uintptr_t)s->buf;
	s->sge.length = MSG;
	s->sge.lkey = s->mr->lkey;
}

static void connect_pair(struct rdma_event_channel *ch, const char *saddr,
			 const char *caddr, struct side *srv,
			 struct side *cli)
{
	struct rdma_cm_id *lid, *id;
	struct rdma_conn_param cp;
	struct sockaddr_in src, dst;
	struct rdma_cm_event *e;
	uint8_t ack_timeout = 20;

	if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	addr_of(&dst, saddr);
	if (rdma_bind_addr(lid, (struct sockaddr *)&dst) ||
	    rdma_listen(lid, 4))
		die("rdma_bind_addr/rdma_listen");
	dst.sin_port = rdma_get_src_port(lid);
	addr_of(&src, caddr);
	if (rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, 20000))
		die("rdma_resolve_addr");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 20000))
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

/* Spins until one completion; returns the empty polls. */
static unsigned long take(struct ibv_cq *cq)
{
	unsigned long empty = 0;
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		empty++;
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "verbsloop: completion status %d\n",
			n < 0 ? n : (int)wc.status);
		exit(1);
	}
	return empty;
}

static unsigned long rounds(struct side *srv, struct side *cli, int n)
{
	struct ibv_send_wr wr, *bad;
	unsigned long empty = 0;
	int i;

	for (i = 0; i < n; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &cli->sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED | cli->inline_flag;
		if (ibv_post_send(cli->id->qp, &wr, &bad))
			die("ibv_post_send");
		empty += take(cli->scq);
		empty += take(srv->rcq);
		post_recv(srv, (uint64_t)i);
	}
	return empty;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct side srv, cli;
	unsigned long empty, i;
	struct ibv_wc wc;
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4 || (n = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: verbsloop SERVER_ADDR CLIENT_ADDR N\n");
		return 2;
	}
	alarm(600);
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	connect_pair(ch, argv[1], argv[2], &srv, &cli);
	post_recv(&srv, 0);
	rounds(&srv, &cli, 32);
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	empty = rounds(&srv, &cli, n);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("loop");
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < empty; i++)
		if (ibv_poll_cq(cli.scq, 1, &wc) != 0)
			die("empty poll");
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("empty");
	printf("LOOP verbs rounds %d posts %d completions %d empty %lu\n", n,
	       2 * n, 2 * n, empty);
	return 0;
}
