/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * connbench: what a first exchange between two processes costs through
 * DAT (issue 35 item 4: over tcp;ofi_rxm, connect + accept + first
 * send/recv within 2 x tcp MSG's time, no resend on an idle machine).
 *
 * For each of ROUNDS rounds the client makes a new EP, calls
 * dat_ep_connect, waits for ESTABLISHED, posts a receive and a 64-byte
 * send, and waits for both completions: the server posted a receive on
 * its new EP before it accepted, and echoes what came.  A round's time
 * runs from dat_ep_connect to the last of the two completions; then the
 * client disconnects and both free their EPs.  Every wait is a blocking
 * dat_evd_wait, as a consumer's connection setup usually is.  The first
 * round is each process's first connection over the IA (rxm, for one,
 * makes its own connection to the peer then).  Only the public API
 * (<dat/udat.h>, -ldat).
 *
 *   connbench server -D IA [-n ROUNDS] [-q QUAL]
 *   connbench client -D IA -h ADDR [-n ROUNDS] [-q QUAL]
 *
 * The server prints "listening" once its PSP exists; the client prints
 * "FIRST round=I us=T" for each round, and "STEPS round=I established=E
 * sent=S echo=R rss_kb=M": where the round's time went (usec from
 * dat_ep_connect to ESTABLISHED, from there to the send's completion, from
 * there to the echo's) and the client's resident memory with the round's
 * EP connected (kB); "MEMORY open rss_kb=M" is its memory once the IA, its
 * EVDs and LMR exist, "MEMORY round=I freed rss_kb=M" after the round's
 * EP was freed: what one connection holds is a round's rss_kb less the
 * last round's freed one.  Exit status 1 on any DAT error.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dat/udat.h>

#include "status.h"

#define MSG 64
#define WAIT_US (60u * 1000000u)

struct side {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE async, req, rcv, conn, cr;
	DAT_PSP_HANDLE psp;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	unsigned char *buf;
};

static void must(const char *what, DAT_RETURN rc)
{
	const char *maj = "?", *min = "?";

	if (rc == DAT_SUCCESS)
		return;
	dat_strerror(rc, &maj, &min);
	fprintf(stderr, "connbench: %s: %s %s\n", what, maj, min);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One event of evd, which must be want. */
static void wait_for(const char *what, DAT_EVD_HANDLE evd,
		     DAT_EVENT_NUMBER want, DAT_EVENT *ev)
{
	DAT_COUNT nmore;

	must(what, dat_evd_wait(evd, WAIT_US, 1, ev, &nmore));
	if (ev->event_number != want) {
		fprintf(stderr, "connbench: %s: event 0x%x, want 0x%x\n", what,
			ev->event_number, want);
		exit(1);
	}
}

/* A DTO completion of evd, successful. */
static void wait_dto(const char *what, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	wait_for(what, evd, DAT_DTO_COMPLETION_EVENT, &ev);
	if (ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
		fprintf(stderr, "connbench: %s: DTO status %d\n", what,
			(int)ev.event_data.dto_completion_event_data.status);
		exit(1);
	}
}

static void evd_make(struct side *s, DAT_EVD_FLAGS flags, DAT_EVD_HANDLE *evd)
{
	must("dat_evd_create",
	     dat_evd_create(s->ia, 16, DAT_HANDLE_NULL, flags, evd));
}

static void side_open(struct side *s, const char *ia)
{
	DAT_REGION_DESCRIPTION r;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	memset(s, 0, sizeof(*s));
	s->async = DAT_HANDLE_NULL;
	must("dat_ia_open", dat_ia_open((DAT_NAME_PTR)ia, 8, &s->async, &s->ia));
	must("dat_pz_create", dat_pz_create(s->ia, &s->pz));
	evd_make(s, DAT_EVD_DTO_FLAG, &s->req);
	evd_make(s, DAT_EVD_DTO_FLAG, &s->rcv);
	evd_make(s, DAT_EVD_CONNECTION_FLAG, &s->conn);
	evd_make(s, DAT_EVD_CR_FLAG, &s->cr);
	s->buf = aligned_alloc(4096, 4096);
	if (!s->buf) {
		fprintf(stderr, "connbench: out of memory\n");
		exit(1);
	}
	memset(s->buf, 0x5a, 4096);
	r.for_va = s->buf;
	must("dat_lmr_create",
	     dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s->pz,
			    DAT_MEM_PRIV_ALL_FLAG, &s->lmr, &s->lctx, &rctx,
			    &rlen, &raddr));
}

static void side_close(struct side *s)
{
	must("dat_ia_close", dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG));
	free(s->buf);
}

static DAT_LMR_TRIPLET triplet(struct side *s, size_t off)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = s->lctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(s->buf + off);
	t.segment_length = MSG;
	return t;
}

static void post_recv(struct side *s, DAT_EP_HANDLE ep)
{
	DAT_LMR_TRIPLET t = triplet(s, 2048);
	DAT_DTO_COOKIE c = { .as_64 = 1 };

	must("dat_ep_post_recv",
	     dat_ep_post_recv(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG));
}

static void post_send(struct side *s, DAT_EP_HANDLE ep)
{
	DAT_LMR_TRIPLET t = triplet(s, 0);
	DAT_DTO_COOKIE c = { .as_64 = 2 };

	must("dat_ep_post_send",
	     dat_ep_post_send(ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG));
}

static void ep_make(struct side *s, DAT_EP_HANDLE *ep)
{
	must("dat_ep_create", dat_ep_create(s->ia, s->pz, s->rcv, s->req,
					    s->conn, NULL, ep));
}

static int server(const char *ia, int rounds, DAT_CONN_QUAL qual)
{
	DAT_EP_HANDLE ep;
	struct side s;
	DAT_EVENT ev;
	int i;

	side_open(&s, ia);
	must("dat_psp_create", dat_psp_create(s.ia, qual, s.cr,
					      DAT_PSP_CONSUMER_FLAG, &s.psp));
	printf("listening\n");
	fflush(stdout);
	for (i = 0; i < rounds; i++) {
		wait_for("a connection request", s.cr,
			 DAT_CONNECTION_REQUEST_EVENT, &ev);
		ep_make(&s, &ep);
		post_recv(&s, ep);
		must("dat_cr_accept",
		     dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				   ep, 0, NULL));
		wait_for("ESTABLISHED", s.conn,
			 DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
		wait_dto("the client's message", s.rcv);
		post_send(&s, ep);
		wait_dto("the echo sent", s.req);
		wait_for("DISCONNECTED", s.conn,
			 DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
		must("dat_ep_free", dat_ep_free(ep));
	}
	must("dat_psp_free", dat_psp_free(s.psp));
	side_close(&s);
	return 0;
}

static int client(const char *ia, const char *host, int rounds,
		  DAT_CONN_QUAL qual)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep;
	struct side s;
	DAT_EVENT ev;
	uint64_t t0, t_est, t_sent, t1;
	int i;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		fprintf(stderr, "connbench: bad address %s\n", host);
		return 2;
	}
	side_open(&s, ia);
	printf("MEMORY open rss_kb=%ld\n", status_kib("VmRSS:"));
	for (i = 0; i < rounds; i++) {
		ep_make(&s, &ep);
		t0 = now_ns();
		must("dat_ep_connect",
		     dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, qual, WAIT_US,
				    0, NULL, DAT_QOS_BEST_EFFORT,
				    DAT_CONNECT_DEFAULT_FLAG));
		wait_for("ESTABLISHED", s.conn,
			 DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
		t_est = now_ns();
		post_recv(&s, ep);
		post_send(&s, ep);
		wait_dto("the message sent", s.req);
		t_sent = now_ns();
		wait_dto("the echo", s.rcv);
		t1 = now_ns();
		printf("FIRST round=%d us=%.1f\n", i, (double)(t1 - t0) / 1e3);
		printf("STEPS round=%d established=%.1f sent=%.1f echo=%.1f "
		       "rss_kb=%ld\n",
		       i, (double)(t_est - t0) / 1e3,
		       (double)(t_sent - t_est) / 1e3,
		       (double)(t1 - t_sent) / 1e3, status_kib("VmRSS:"));
		must("dat_ep_disconnect",
		     dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG));
		wait_for("DISCONNECTED", s.conn,
			 DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
		must("dat_ep_free", dat_ep_free(ep));
		printf("MEMORY round=%d freed rss_kb=%ld\n", i,
		       status_kib("VmRSS:"));
	}
	side_close(&s);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: connbench server -D IA [-n ROUNDS] [-q QUAL]\n"
			"       connbench client -D IA -h ADDR [-n ROUNDS] "
			"[-q QUAL]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ia = NULL, *host = NULL;
	DAT_CONN_QUAL qual = 45000;
	int rounds = 20, c;

	if (argc < 2)
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "D:h:n:q:")) != -1) {
		switch (c) {
		case 'D':
			ia = optarg;
			break;
		case 'h':
			host = optarg;
			break;
		case 'n':
			rounds = atoi(optarg);
			break;
		case 'q':
			qual = strtoull(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!ia || rounds < 1 || rounds > 100000)
		usage();
	if (!strcmp(argv[1], "server"))
		return server(ia, rounds, qual);
	if (!strcmp(argv[1], "client") && host)
		return client(ia, host, rounds, qual);
	usage();
	return 2;
}
