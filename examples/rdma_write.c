/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_write.c - an RDMA write into the peer's memory with the peer's
 * rmr_context.
 *
 *   server:  rdma_write -D OpenIB-cma [-q 7000]
 *   client:  rdma_write -D OpenIB-cma [-q 7000] SERVER_IP
 *
 * The server registers a buffer with DAT_MEM_PRIV_REMOTE_WRITE_FLAG and
 * sends the client its address, length and the rmr_context that
 * dat_lmr_create returned.  The client writes into it with
 * dat_ep_post_rdma_write (the server's CPU takes no part), then sends a
 * "done" message; the server then checks what arrived.  A write's
 * completion says only that the data left; the message after it, on the
 * same connection, arrives after the data: that is what makes the check
 * safe.
 */
#include <stdio.h>
#include <string.h>

#include "example.h"

#define LEN 4096

static void fill(unsigned char *p, DAT_VLEN len)
{
	DAT_VLEN i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + 1);
}

int main(int argc, char **argv)
{
	struct ex_mem msg, data, done;
	struct ex_args a;
	DAT_RMR_TRIPLET remote;
	DAT_LMR_TRIPLET local;
	DAT_DTO_COOKIE cookie;
	struct ex x;
	DAT_EVENT ev;

	ex_args(argc, argv, "RDMA write with the peer's rmr_context", &a);
	ex_open(&x, a.ia_name);
	ex_mem_register(&x, &msg, sizeof(struct ex_buf_msg),
			DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG);

	if (!a.server) {
		/* the target: the peer may write it, nothing else */
		ex_mem_register(&x, &data, LEN,
				DAT_MEM_PRIV_LOCAL_READ_FLAG |
				DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
		/* the receive for "done" is posted before the client can send it */
		ex_mem_register(&x, &done, 1, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
		ex_post_recv(&x, &done, 1, 2);
		ex_serve(&x, a.qual);
		ex_send_buf(&x, &msg, &data, 0, LEN, data.rmr_context);
		ex_wait_dto(x.rcv_evd, 2, &ev);		/* "done" */
		ex_mem_free(&done);
		{
			unsigned char want[LEN];

			fill(want, LEN);
			if (memcmp(data.buf, want, LEN)) {
				fprintf(stderr, "server: the data differs\n");
				return 1;
			}
		}
		printf("server: %d bytes arrived by RDMA write, all as sent\n",
		       LEN);
		ex_wait(x.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
	} else {
		/* the source: only we read it */
		ex_mem_register(&x, &data, LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG);
		fill(data.buf, LEN);
		ex_post_recv(&x, &msg, sizeof(struct ex_buf_msg), 0);
		ex_connect(&x, a.server, a.qual);
		remote = ex_recv_buf(&x, &msg);
		if (remote.segment_length < LEN) {
			fprintf(stderr, "client: the peer offers only %llu bytes\n",
				(unsigned long long)remote.segment_length);
			return 1;
		}
		local = ex_iov(&data, 0, LEN);
		cookie.as_64 = 3;
		ex_check(dat_ep_post_rdma_write(x.ep, 1, &local, cookie,
						&remote,
						DAT_COMPLETION_DEFAULT_FLAG),
			 "dat_ep_post_rdma_write");
		ex_wait_dto(x.req_evd, 3, &ev);
		printf("client: wrote %d bytes to 0x%llx (rmr_context 0x%x)\n",
		       LEN, (unsigned long long)remote.target_address,
		       remote.rmr_context);
		ex_post_send(&x, &msg, 1, 4);		/* "done" */
		ex_wait_dto(x.req_evd, 4, &ev);
		ex_disconnect(&x);
	}
	ex_mem_free(&data);
	ex_mem_free(&msg);
	ex_close(&x);
	return 0;
}
