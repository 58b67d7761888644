/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pingpong.c - send/recv ping-pong between a server and a client.
 *
 *   server:  pingpong -D OpenIB-cma [-q 7000] [-n 10]
 *   client:  pingpong -D OpenIB-cma [-q 7000] [-n 10] SERVER_IP
 *
 * The client sends a message carrying a sequence number, the server sends
 * it back, COUNT times.  The one rule of send/recv: a receive must be
 * posted before the peer's send arrives, so each side posts its next
 * receive before it sends (and the server posts the first before it
 * accepts the connection).
 */
#include <stdio.h>
#include <string.h>

#include "example.h"

#define MSG_LEN 64

int main(int argc, char **argv)
{
	struct ex_args a;
	struct ex_mem rx, tx;
	struct ex x;
	DAT_EVENT ev;
	unsigned long i;

	ex_args(argc, argv, "send/recv ping-pong", &a);
	ex_open(&x, a.ia_name);
	/* receive buffers need LOCAL_WRITE: the adapter writes into them */
	ex_mem_register(&x, &rx, MSG_LEN,
			DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	ex_mem_register(&x, &tx, MSG_LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG);

	ex_post_recv(&x, &rx, MSG_LEN, 0);
	if (a.server)
		ex_connect(&x, a.server, a.qual);
	else
		ex_serve(&x, a.qual);

	for (i = 0; i < a.count; i++) {
		if (a.server) {
			/* ping: our number, then wait for it to come back */
			snprintf((char *)tx.buf, MSG_LEN, "ping %lu", i);
			ex_post_send(&x, &tx, MSG_LEN, i);
			ex_wait_dto(x.req_evd, i, &ev);
			ex_wait_dto(x.rcv_evd, i, &ev);
			if (strcmp((char *)rx.buf, (char *)tx.buf)) {
				fprintf(stderr, "sent \"%s\", got back \"%s\"\n",
					tx.buf, rx.buf);
				return 1;
			}
			if (i + 1 < a.count)
				ex_post_recv(&x, &rx, MSG_LEN, i + 1);
		} else {
			/* pong: what arrived goes straight back */
			ex_wait_dto(x.rcv_evd, i, &ev);
			memcpy(tx.buf, rx.buf, MSG_LEN);
			if (i + 1 < a.count)
				ex_post_recv(&x, &rx, MSG_LEN, i + 1);
			ex_post_send(&x, &tx, MSG_LEN, i);
			ex_wait_dto(x.req_evd, i, &ev);
		}
	}
	printf("%s: %lu round trips, every message came back intact\n",
	       a.server ? "client" : "server", a.count);

	/* the client ends the connection; the server waits for that */
	if (a.server)
		ex_disconnect(&x);
	else
		ex_wait(x.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
	ex_mem_free(&tx);
	ex_mem_free(&rx);
	ex_close(&x);
	return 0;
}
