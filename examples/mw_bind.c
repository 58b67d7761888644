/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mw_bind.c - a memory window: expose part of a buffer to the peer, then
 * revoke that access without deregistering the buffer.
 *
 *   server:  mw_bind -D OpenIB-cma [-q 7000]
 *   client:  mw_bind -D OpenIB-cma [-q 7000] SERVER_IP
 *
 * An LMR's own rmr_context lets a peer at the whole registration for as
 * long as it exists.  A memory window (an RMR) is finer: dat_rmr_bind
 * exposes a chosen range of an LMR with chosen rights and returns a new
 * rmr_context; a bind with segment_length 0 unbinds, and from the moment
 * that completes the old context is dead.  The server here binds 256
 * bytes, lets the client write them, unbinds, and the client's next write
 * through the old context fails with DAT_DTO_ERR_REMOTE_ACCESS (which,
 * as any DTO error, also ends the connection).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example.h"

#define LEN 4096
#define WIN_OFF 1024	/* the window: [WIN_OFF, WIN_OFF + WIN_LEN) of the LMR */
#define WIN_LEN 256

/* Binds (len > 0) or unbinds (len 0) the window and waits for the bind's
 * completion: only then is a new context usable, or an old one dead. */
static DAT_RMR_CONTEXT bind_window(struct ex *x, DAT_RMR_HANDLE rmr,
			    const struct ex_mem *m, DAT_VLEN off, DAT_VLEN len,
			    DAT_MEM_PRIV_FLAGS priv)
{
	DAT_LMR_TRIPLET t = ex_iov(m, off, len);
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_COOKIE cookie;
	DAT_EVENT ev;

	cookie.as_64 = len;
	ex_check(dat_rmr_bind(rmr, &t, priv, x->ep, cookie,
			      DAT_COMPLETION_DEFAULT_FLAG, &ctx),
		 "dat_rmr_bind");
	ex_wait(x->req_evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	if (ev.event_data.rmr_completion_event_data.status != DAT_RMR_BIND_SUCCESS) {
		fprintf(stderr, "the bind failed\n");
		exit(1);
	}
	return ctx;
}

/* The connection ends: DISCONNECTED, or BROKEN after an error. */
static void wait_gone(struct ex *x)
{
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ex_check(dat_evd_wait(x->conn_evd, 60u * 1000000u, 1, &ev, &nmore),
		 "dat_evd_wait");
	if (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
	    ev.event_number != DAT_CONNECTION_EVENT_BROKEN) {
		fprintf(stderr, "event 0x%x, expected the end of the connection\n",
			ev.event_number);
		exit(1);
	}
}

static int server(struct ex *x, const struct ex_args *a)
{
	struct ex_mem msg, done, data;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	DAT_EVENT ev;
	int i;

	/* local rights only: remote access comes through the window */
	ex_mem_register(x, &data, LEN,
			DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	ex_mem_register(x, &msg, sizeof(struct ex_buf_msg),
			DAT_MEM_PRIV_LOCAL_READ_FLAG);
	ex_mem_register(x, &done, 1, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	ex_check(dat_rmr_create(x->pz, &rmr), "dat_rmr_create");
	ex_post_recv(x, &done, 1, 2);
	ex_serve(x, a->qual);

	/* a bind travels on a connected EP's queue, so it comes after accept */
	ctx = bind_window(x, rmr, &data, WIN_OFF, WIN_LEN, DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	ex_send_buf(x, &msg, &data, WIN_OFF, WIN_LEN, ctx);
	ex_wait_dto(x->rcv_evd, 2, &ev);		/* "written" */
	for (i = 0; i < WIN_LEN; i++)
		if (data.buf[WIN_OFF + i] != 0xa1) {
			fprintf(stderr, "server: the window's byte %d is 0x%x\n",
				i, data.buf[WIN_OFF + i]);
			return 1;
		}
	printf("server: the client wrote %d bytes through window context 0x%x\n",
	       WIN_LEN, ctx);

	/* revoke: a zero-length bind; once it completes, tell the client */
	bind_window(x, rmr, &data, 0, 0, 0);
	printf("server: window unbound, context 0x%x revoked\n", ctx);
	ex_post_send(x, &done, 1, 3);			/* "revoked" */
	ex_wait_dto(x->req_evd, 3, &ev);
	wait_gone(x);
	for (i = 0; i < WIN_LEN; i++)
		if (data.buf[WIN_OFF + i] != 0xa1) {
			fprintf(stderr, "server: a write after the unbind landed\n");
			return 1;
		}
	printf("server: nothing arrived through the revoked context\n");

	ex_check(dat_rmr_free(rmr), "dat_rmr_free");
	ex_mem_free(&done);
	ex_mem_free(&msg);
	ex_mem_free(&data);
	return 0;
}

static int client(struct ex *x, const struct ex_args *a)
{
	struct ex_mem msg, src;
	DAT_RMR_TRIPLET remote;
	DAT_LMR_TRIPLET local;
	DAT_DTO_COOKIE cookie;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ex_mem_register(x, &msg, sizeof(struct ex_buf_msg),
			DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	ex_mem_register(x, &src, WIN_LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG);
	ex_post_recv(x, &msg, sizeof(struct ex_buf_msg), 0);
	ex_connect(x, a->server, a->qual);
	remote = ex_recv_buf(x, &msg);
	ex_post_recv(x, &msg, 1, 5);			/* for "revoked" */

	memset(src.buf, 0xa1, WIN_LEN);
	local = ex_iov(&src, 0, WIN_LEN);
	cookie.as_64 = 4;
	ex_check(dat_ep_post_rdma_write(x->ep, 1, &local, cookie, &remote,
					DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_rdma_write");
	ex_wait_dto(x->req_evd, 4, &ev);
	ex_post_send(x, &src, 1, 6);			/* "written" */
	ex_wait_dto(x->req_evd, 6, &ev);
	printf("client: wrote %d bytes through context 0x%x\n", WIN_LEN,
	       remote.rmr_context);

	ex_wait_dto(x->rcv_evd, 5, &ev);		/* "revoked" */
	memset(src.buf, 0xb2, WIN_LEN);
	cookie.as_64 = 7;
	ex_check(dat_ep_post_rdma_write(x->ep, 1, &local, cookie, &remote,
					DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_rdma_write");
	/* the post is accepted; the peer's adapter refuses the data */
	ex_check(dat_evd_wait(x->req_evd, 60u * 1000000u, 1, &ev, &nmore),
		 "dat_evd_wait");
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->user_cookie.as_64 != 7 ||
	    d->status != DAT_DTO_ERR_REMOTE_ACCESS) {
		fprintf(stderr, "client: the write after the unbind: event 0x%x "
			"status %d, expected DAT_DTO_ERR_REMOTE_ACCESS\n",
			ev.event_number, d->status);
		return 1;
	}
	printf("client: the write through the revoked context failed: "
	       "DAT_DTO_ERR_REMOTE_ACCESS\n");
	wait_gone(x);
	ex_mem_free(&src);
	ex_mem_free(&msg);
	return 0;
}

int main(int argc, char **argv)
{
	struct ex_args a;
	struct ex x;
	int rc;

	ex_args(argc, argv, "memory window bind and revoke", &a);
	ex_open(&x, a.ia_name);
	rc = a.server ? client(&x, &a) : server(&x, &a);
	if (rc == 0)
		ex_close(&x);
	return rc;
}
