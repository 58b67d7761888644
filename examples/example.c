/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * example.c - the shared steps of the example programs (see example.h).
 *
 * The order of things is the one every uDAPL 1.2 application follows:
 * dat_ia_open, a protection zone, event dispatchers (EVDs), an endpoint
 * (EP) on them, a connection (a server's public service point, PSP, and
 * dat_cr_accept; or a client's dat_ep_connect), memory registered as LMRs,
 * and DTOs posted on the EP whose completions arrive on the EVDs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example.h"

/* How long any one wait may take: a peer that vanished must not hang us. */
#define EX_WAIT_US (60u * 1000000u)

void ex_check(DAT_RETURN rc, const char *call)
{
	const char *major, *minor;

	if (rc == DAT_SUCCESS)
		return;
	dat_strerror(rc, &major, &minor);
	fprintf(stderr, "%s: %s / %s\n", call, major, minor);
	exit(1);
}

static void usage(const char *prog, const char *what)
{
	fprintf(stderr,
		"%s: %s\n"
		"usage: %s -D IA_NAME [-q QUALIFIER] [-n COUNT]             (server)\n"
		"       %s -D IA_NAME [-q QUALIFIER] [-n COUNT] SERVER_IP   (client)\n",
		prog, what, prog, prog);
	exit(2);
}

void ex_args(int argc, char **argv, const char *what, struct ex_args *a)
{
	int c;

	a->ia_name = NULL;
	a->server = NULL;
	a->qual = 7000;
	a->count = 10;
	while ((c = getopt(argc, argv, "D:q:n:h")) != -1) {
		switch (c) {
		case 'D':
			a->ia_name = optarg;
			break;
		case 'q':
			a->qual = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			a->count = strtoul(optarg, NULL, 0);
			break;
		default:
			usage(argv[0], what);
		}
	}
	if (!a->ia_name || a->count == 0 || optind < argc - 1)
		usage(argv[0], what);
	if (optind == argc - 1)
		a->server = argv[optind];
}

static void evd(struct ex *x, DAT_COUNT qlen, DAT_EVD_FLAGS flags,
		DAT_EVD_HANDLE *h)
{
	/* no CNO: we wait on each EVD directly with dat_evd_wait */
	ex_check(dat_evd_create(x->ia, qlen, DAT_HANDLE_NULL, flags, h),
		 "dat_evd_create");
}

void ex_open(struct ex *x, const char *ia_name)
{
	memset(x, 0, sizeof(*x));
	/* DAT_HANDLE_NULL: the provider makes the IA's async EVD for us */
	x->async_evd = DAT_HANDLE_NULL;
	/* DAT_NAME_PTR is not const in DAT 1.2: the cast is safe, it is read only */
	ex_check(dat_ia_open((DAT_NAME_PTR)ia_name, 8, &x->async_evd, &x->ia),
		 "dat_ia_open");
	ex_check(dat_pz_create(x->ia, &x->pz), "dat_pz_create");
	evd(x, 32, DAT_EVD_DTO_FLAG, &x->req_evd);
	evd(x, 32, DAT_EVD_DTO_FLAG, &x->rcv_evd);
	evd(x, 4, DAT_EVD_CONNECTION_FLAG, &x->conn_evd);
	evd(x, 4, DAT_EVD_CR_FLAG, &x->cr_evd);
	/* NULL attributes: the provider's defaults (RC, a few DTOs deep) */
	ex_check(dat_ep_create(x->ia, x->pz, x->rcv_evd, x->req_evd,
			       x->conn_evd, NULL, &x->ep), "dat_ep_create");
}

/* Frees in the reverse order of creation: an EP before its EVDs and PZ. */
void ex_close(struct ex *x)
{
	ex_check(dat_ep_free(x->ep), "dat_ep_free");
	if (x->psp != DAT_HANDLE_NULL)
		ex_check(dat_psp_free(x->psp), "dat_psp_free");
	ex_check(dat_evd_free(x->cr_evd), "dat_evd_free");
	ex_check(dat_evd_free(x->conn_evd), "dat_evd_free");
	ex_check(dat_evd_free(x->rcv_evd), "dat_evd_free");
	ex_check(dat_evd_free(x->req_evd), "dat_evd_free");
	ex_check(dat_pz_free(x->pz), "dat_pz_free");
	ex_check(dat_ia_close(x->ia, DAT_CLOSE_GRACEFUL_FLAG), "dat_ia_close");
}

/*
 * Server: listen on qual, accept the first request on our EP.  Receives
 * the protocol needs first must be posted before this (ex_post_recv):
 * the client may send the moment the connection is up.
 */
void ex_serve(struct ex *x, DAT_CONN_QUAL qual)
{
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	ex_check(dat_psp_create(x->ia, qual, x->cr_evd, DAT_PSP_CONSUMER_FLAG,
				&x->psp), "dat_psp_create");
	/* scripts (and the tests) wait for this line before starting a client */
	printf("listening %llu\n", (unsigned long long)qual);
	fflush(stdout);
	ex_wait(x->cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	ex_check(dat_cr_accept(cr, x->ep, 0, NULL), "dat_cr_accept");
	ex_wait(x->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

/* Client: connect our EP to the server's address and qualifier. */
void ex_connect(struct ex *x, const char *server, DAT_CONN_QUAL qual)
{
	struct sockaddr_in sin;
	DAT_EVENT ev;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, server, &sin.sin_addr) != 1) {
		fprintf(stderr, "%s: not an IPv4 address\n", server);
		exit(2);
	}
	ex_check(dat_ep_connect(x->ep, (DAT_IA_ADDRESS_PTR)&sin, qual,
				EX_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG), "dat_ep_connect");
	ex_wait(x->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

/* Either side may end the connection; both then see DISCONNECTED. */
void ex_disconnect(struct ex *x)
{
	DAT_EVENT ev;

	ex_check(dat_ep_disconnect(x->ep, DAT_CLOSE_GRACEFUL_FLAG),
		 "dat_ep_disconnect");
	ex_wait(x->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
}

void ex_mem_register(struct ex *x, struct ex_mem *m, DAT_VLEN len,
		     DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;

	/* page-aligned, so that an RDMA target covers nothing else */
	if (posix_memalign((void **)&m->buf, 4096, len)) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(m->buf, 0, len);
	m->len = len;
	region.for_va = m->buf;
	ex_check(dat_lmr_create(x->ia, DAT_MEM_TYPE_VIRTUAL, region, len,
				x->pz, priv, &m->lmr, &m->lmr_context,
				&m->rmr_context, &reg_len, &reg_addr),
		 "dat_lmr_create");
}

void ex_mem_free(struct ex_mem *m)
{
	ex_check(dat_lmr_free(m->lmr), "dat_lmr_free");
	free(m->buf);
}

/* A local segment: the LMR's context, an address inside it, a length. */
DAT_LMR_TRIPLET ex_iov(const struct ex_mem *m, DAT_VLEN off, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = m->lmr_context;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(m->buf + off);
	t.segment_length = len;
	return t;
}

static DAT_DTO_COOKIE cookie_of(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

void ex_post_recv(struct ex *x, struct ex_mem *m, DAT_VLEN len,
		  uint64_t cookie)
{
	DAT_LMR_TRIPLET t = ex_iov(m, 0, len);

	ex_check(dat_ep_post_recv(x->ep, 1, &t, cookie_of(cookie),
				  DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_recv");
}

void ex_post_send(struct ex *x, struct ex_mem *m, DAT_VLEN len,
		  uint64_t cookie)
{
	DAT_LMR_TRIPLET t = ex_iov(m, 0, len);

	ex_check(dat_ep_post_send(x->ep, 1, &t, cookie_of(cookie),
				  DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_send");
}

/* The next event of evd must be want. */
void ex_wait(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want, DAT_EVENT *ev)
{
	DAT_COUNT nmore;

	ex_check(dat_evd_wait(evd, EX_WAIT_US, 1, ev, &nmore), "dat_evd_wait");
	if (ev->event_number != want) {
		fprintf(stderr, "event 0x%x, expected 0x%x\n",
			ev->event_number, want);
		exit(1);
	}
}

/* The next completion on evd must be the DTO cookie's, and a success. */
void ex_wait_dto(DAT_EVD_HANDLE evd, uint64_t cookie, DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	DAT_COUNT nmore;

	ex_check(dat_evd_wait(evd, EX_WAIT_US, 1, ev, &nmore), "dat_evd_wait");
	if (d->user_cookie.as_64 != cookie || d->status != DAT_DTO_SUCCESS) {
		fprintf(stderr, "completion of cookie %llu status %d, expected "
			"cookie %llu DAT_DTO_SUCCESS\n",
			(unsigned long long)d->user_cookie.as_64, d->status,
			(unsigned long long)cookie);
		exit(1);
	}
}

/*
 * Tells the peer where it may read or write: [off, off + len) of m under
 * ctx (the LMR's rmr_context, or a memory window's).  msg is a registered
 * buffer of at least sizeof(struct ex_buf_msg).
 */
void ex_send_buf(struct ex *x, struct ex_mem *msg, const struct ex_mem *m,
		 DAT_VLEN off, DAT_VLEN len, DAT_RMR_CONTEXT ctx)
{
	struct ex_buf_msg b;
	DAT_EVENT ev;

	b.address = htobe64((uint64_t)(uintptr_t)(m->buf + off));
	b.rmr_context = htonl(ctx);
	b.length = htonl((uint32_t)len);
	memcpy(msg->buf, &b, sizeof(b));
	ex_post_send(x, msg, sizeof(b), 1);
	ex_wait_dto(x->req_evd, 1, &ev);
}

/*
 * Waits for the peer's ex_send_buf (a receive posted on msg before the
 * connection, cookie 0) and returns it as the remote segment of an RDMA
 * or atomic DTO.
 */
DAT_RMR_TRIPLET ex_recv_buf(struct ex *x, struct ex_mem *msg)
{
	struct ex_buf_msg b;
	DAT_RMR_TRIPLET r;
	DAT_EVENT ev;

	ex_wait_dto(x->rcv_evd, 0, &ev);
	memcpy(&b, msg->buf, sizeof(b));
	r.rmr_context = ntohl(b.rmr_context);
	r.pad = 0;
	r.target_address = be64toh(b.address);
	r.segment_length = ntohl(b.length);
	return r;
}
